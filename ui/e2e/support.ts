// What the people and panels specs share: the fixed start time, the task the fake answers
// with a Law 1 request, the languages and themes every screen is seen in, screenshots, and
// the accessibility check.

import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import AxeBuilder from '@axe-core/playwright';
import { expect, type Locator, type Page, test } from '@playwright/test';

const SHOTS = fileURLToPath(new URL('../../target/ui-screenshots/', import.meta.url));
mkdirSync(SHOTS, { recursive: true });

export const START = new Date('2026-03-02T09:00:00+01:00');
// The fake answers a deletion with the golden recording replan_law1 (fake/recorded.ts).
export const TASK = 'delete the old draft in my workspace';

export const LANGS = ['en', 'zh-CN'] as const;
export const THEMES = ['light', 'dark'] as const;
export type Lang = (typeof LANGS)[number];
export type Theme = (typeof THEMES)[number];

/**
 * Declares the tests of a spec once per language and theme, in a window of `size`, each
 * starting on the clock at START; `name` names a screen for its check and screenshot
 * (`<prefix>-<lang>-<theme>-<screen>`).
 */
export function inEveryLanguageAndTheme(
  prefix: string,
  size: { width: number; height: number },
  declare: (lang: Lang, theme: Theme, name: (screen: string) => string) => void,
): void {
  test.use({ viewport: size });
  test.beforeEach(async ({ page }) => {
    await page.clock.install({ time: START });
  });
  for (const lang of LANGS) {
    for (const theme of THEMES) declare(lang, theme, (screen) => `${prefix}-${lang}-${theme}-${screen}`);
  }
}

/** Advances the clock in small steps until `probe` is visible. */
export async function runUntilVisible(page: Page, probe: Locator, limitMs: number): Promise<void> {
  for (let t = 0; t <= limitMs; t += 250) {
    if (await probe.isVisible()) return;
    await page.clock.runFor(250);
  }
  await expect(probe).toBeVisible({ timeout: 1 });
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.clock.runFor(50);
  await page.screenshot({ path: `${SHOTS}${name}.png` });
}

/** Opens a window of the app (`popup`, `panels`, or the preview desk for '') in a language and theme. */
export async function open(page: Page, view: 'popup' | 'panels' | '', lang: Lang, theme: Theme, extra = ''): Promise<void> {
  await page.emulateMedia({ colorScheme: theme });
  await page.goto(`/?${view ? `view=${view}&` : ''}lang=${lang}${extra}`);
  await expect(page.locator('html')).toHaveAttribute('lang', lang);
}

/** Stops the page's clock: from here time moves only when the test moves it. */
export async function hold(page: Page): Promise<void> {
  // Half a second ahead: the page's clock keeps running until the pause lands.
  await page.clock.pauseAt(await page.evaluate(() => Date.now() + 500));
}

/** Types a task into the popup and sends it. */
export async function submit(page: Page, task = TASK): Promise<void> {
  const input = page.locator('.task-input textarea');
  await expect(input).toBeEnabled();
  await input.fill(task);
  await input.press('Enter');
}

const SCROLLER = 'data-axe-scroller';

/**
 * The serious and critical violations axe finds on the page as it is now, one entry per
 * rule and element (the key), said with `where` it was seen.
 */
async function violations(page: Page, where: string): Promise<Map<string, string>> {
  // axe waits on zero-delay timers, which run on the page's clock: while a test holds the
  // clock they are released a millisecond at a time, so the screen does not move on meanwhile.
  // The clock is the whole context's, so axe runs inside the page alone (its legacy mode: no
  // blank page of its own opened and closed beside it while the clock moves; the app has
  // no frames to gather results from).
  let done = false;
  const analysis = new AxeBuilder({ page }).setLegacyMode().analyze().finally(() => {
    done = true;
  });
  while (!done) {
    await page.clock.runFor(1);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const found = new Map<string, string>();
  for (const v of (await analysis).violations) {
    if (v.impact !== 'serious' && v.impact !== 'critical') continue;
    for (const n of v.nodes) {
      const why = (n.failureSummary ?? '').split('\n').slice(1).join(' ').trim();
      found.set(`${v.id} ${n.target.join(' ')}`, `${where}: ${v.id} (${v.impact}): ${v.help}\n  ${n.target.join(' ')}: ${why}`);
    }
  }
  return found;
}

/**
 * No serious or critical accessibility violation on the screen as it is now. axe judges
 * the contrast of the text it can see, so every box that scrolls is also checked a
 * screenful at a time, then put back where it was.
 */
export async function accessible(page: Page, screen: string): Promise<void> {
  const bad = await violations(page, screen);
  const scrollers = await page.evaluate((attr) => {
    const found = [...document.querySelectorAll<HTMLElement>('body *')].filter((el) => {
      const style = getComputedStyle(el);
      return /auto|scroll/.test(style.overflowY) && el.scrollHeight > el.clientHeight + 1 && el.getClientRects().length > 0;
    });
    found.forEach((el, i) => el.setAttribute(attr, String(i)));
    return found.map((el) => ({ name: [el.localName, ...el.classList].join('.'), top: el.scrollTop, height: el.clientHeight, full: el.scrollHeight }));
  }, SCROLLER);
  for (const [i, box] of scrollers.entries()) {
    const el = page.locator(`[${SCROLLER}="${i}"]`);
    await el.scrollIntoViewIfNeeded();
    const last = box.full - box.height;
    for (let top = 0; ; top += box.height) {
      const y = Math.min(top, last);
      if (y !== box.top) {
        await el.evaluate((e, to) => e.scrollTo({ top: to }), y);
        for (const [key, line] of await violations(page, `${screen} (${box.name} scrolled to ${y}px)`)) if (!bad.has(key)) bad.set(key, line);
      }
      if (y >= last) break;
    }
    await el.evaluate((e, y) => e.scrollTo({ top: y }), box.top);
  }
  await page.evaluate((attr) => document.querySelectorAll(`[${attr}]`).forEach((el) => el.removeAttribute(attr)), SCROLLER);
  const lines = [...bad.values()];
  expect(lines, lines.join('\n')).toEqual([]);
}
