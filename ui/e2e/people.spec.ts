// The popup as people meet it, in both languages and both themes: a running task with
// its one status line, the Law 1 dialog, a result, a failure, and the model screens
// (first-run choice, the built-in model's progress, an unreachable model). Every screen
// is checked with axe: no serious or critical violation. Screenshots go to
// target/ui-screenshots/people-<lang>-<theme>-*.png.

import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import AxeBuilder from '@axe-core/playwright';
import { expect, type Locator, type Page, test } from '@playwright/test';

const SHOTS = fileURLToPath(new URL('../../target/ui-screenshots/', import.meta.url));
mkdirSync(SHOTS, { recursive: true });

const START = new Date('2026-03-02T09:00:00+01:00');
// The fake answers a deletion with the golden recording replan_law1 (fake/recorded.ts).
const TASK = 'delete the old draft in my workspace';

type Lang = 'en' | 'zh-CN';
type Theme = 'light' | 'dark';

async function runUntilVisible(page: Page, probe: Locator, limitMs: number): Promise<void> {
  for (let t = 0; t <= limitMs; t += 250) {
    if (await probe.isVisible()) return;
    await page.clock.runFor(250);
  }
  await expect(probe).toBeVisible({ timeout: 1 });
}

/** No serious or critical accessibility violation on the screen as it is now. */
async function accessible(page: Page, screen: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `  ${n.target.join(' ')}: ${(n.failureSummary ?? '').split('\n').slice(1).join(' ')}`).join('\n')}`);
  expect(bad, `${screen}: ${bad.join('\n')}`).toEqual([]);
}

async function shot(page: Page, name: string): Promise<void> {
  await page.clock.runFor(50);
  await page.screenshot({ path: `${SHOTS}${name}.png` });
}

async function open(page: Page, lang: Lang, theme: Theme, extra = ''): Promise<void> {
  await page.emulateMedia({ colorScheme: theme });
  await page.goto(`/?view=popup&lang=${lang}${extra}`);
  await expect(page.locator('html')).toHaveAttribute('lang', lang);
}

async function submit(page: Page): Promise<void> {
  const input = page.locator('.task-input textarea');
  await expect(input).toBeEnabled();
  await input.fill(TASK);
  await input.press('Enter');
}

// The popup window's own size (src-tauri: 440 × 600).
test.use({ viewport: { width: 440, height: 600 } });

test.beforeEach(async ({ page }) => {
  await page.clock.install({ time: START });
});

for (const lang of ['en', 'zh-CN'] as const) {
  for (const theme of ['light', 'dark'] as const) {
    const name = (screen: string) => `people-${lang}-${theme}-${screen}`;

    test(`${lang} ${theme}: running, Law 1, result`, async ({ page }) => {
      await open(page, lang, theme);
      await submit(page);
      const status = page.getByTestId('status-line');
      // A step is running: one plain line says which.
      await expect(async () => {
        await page.clock.runFor(250);
        await expect(status).toHaveText(lang === 'en' ? /^Step 1 of 1: / : /^第 1\/1 步：/, { timeout: 1 });
      }).toPass({ timeout: 20_000 });
      await accessible(page, name('running'));
      await shot(page, name('1-running'));

      const dialog = page.getByTestId('law1-dialog');
      await runUntilVisible(page, dialog, 30_000);
      await expect(status).toHaveText(lang === 'en' ? /^Waiting for your approval: / : /^等待你的批准：/);
      if (lang === 'zh-CN') await expect(page.getByTestId('law1-effect')).toContainText('~/artoo_workspace/draft-old.txt');
      await page.clock.runFor(1_000);
      await accessible(page, name('law1'));
      await shot(page, name('2-law1'));

      await page.getByTestId('law1-approve').click();
      const result = page.getByTestId('result');
      await runUntilVisible(page, result, 20_000);
      await expect(page.getByTestId('summary')).not.toContainText('[LAW1]');
      await expect(page.getByTestId('pipeline-details')).not.toHaveAttribute('open', '');
      await accessible(page, name('result'));
      await shot(page, name('3-result'));
    });

    test(`${lang} ${theme}: a denial ends in an honest failure`, async ({ page }) => {
      await open(page, lang, theme);
      await submit(page);
      const dialog = page.getByTestId('law1-dialog');
      await runUntilVisible(page, dialog, 30_000);
      await page.keyboard.press('Escape');
      await page.clock.runFor(300);
      const result = page.getByTestId('result');
      await runUntilVisible(page, result, 20_000);
      await expect(page.getByTestId('next-moves').locator('li')).toHaveCount(2);
      await expect(page.getByTestId('accomplished')).toBeVisible();
      // The pipeline, one click away, explains each number in words.
      await page.getByTestId('pipeline-details').locator('summary').click();
      await expect(page.getByTestId('loss-row')).toContainText(lang === 'en' ? 'how far the result is from what you asked' : '结果与你的要求相差多远');
      await accessible(page, name('failure'));
      await shot(page, name('4-failure'));
    });

    test(`${lang} ${theme}: first run, the built-in model's progress, an unreachable model`, async ({ page }) => {
      await open(page, lang, theme, '&model=first_run');
      await expect(page.getByTestId('onboarding')).toBeVisible();
      await accessible(page, name('onboarding'));
      await shot(page, name('5-onboarding'));
      await page.getByTestId('use-builtin').click();
      const progress = page.getByTestId('model-progress');
      await runUntilVisible(page, progress, 2_000);
      await page.clock.runFor(900);
      await expect(page.getByTestId('model-progress-text')).not.toBeEmpty();
      await accessible(page, name('model-progress'));
      await shot(page, name('6-model-progress'));
      await page.clock.runFor(5_000);
      await expect(page.locator('.task-input textarea')).toBeEnabled();

      await open(page, lang, theme, '&model=unreachable');
      await expect(page.getByTestId('model-unreachable')).toBeVisible();
      await expect(page.locator('.task-input textarea')).toBeDisabled();
      await accessible(page, name('unreachable'));
      await shot(page, name('7-unreachable'));
    });
  }
}
