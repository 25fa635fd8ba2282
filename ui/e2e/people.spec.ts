// The popup as people meet it, in both languages and both themes: the welcome with the
// recent runs, a running task with its one status line, the Law 1 dialog, a result with
// its details, a failure, a clarifying question, a cancel, a chat reply, the pipeline and
// its messages mid-replan, a Law 1 request left to time out, and the model screens
// (first-run choice, a provider tested, the built-in model's progress, an unreachable
// model). Every screen is checked with axe, scrolled through: no serious or critical
// violation. Screenshots go to target/ui-screenshots/people-<lang>-<theme>-*.png.

import { expect, test } from '@playwright/test';

import { accessible, hold, inEveryLanguageAndTheme, open, runUntilVisible, shot, submit } from './support';

// The popup window's own size (src-tauri: 440 × 600).
inEveryLanguageAndTheme('people', { width: 440, height: 600 }, (lang, theme, name) => {
  test(`${lang} ${theme}: welcome, running, Law 1, result`, async ({ page }) => {
    await open(page, 'popup', lang, theme);
    // Nothing running yet: the welcome with the recent runs and examples.
    await expect(page.getByTestId('recent').locator('li').first()).toBeVisible();
    await accessible(page, name('welcome'));
    await shot(page, name('0-welcome'));
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
    if (lang === 'zh-CN') await expect(page.getByTestId('law1-effect')).toContainText('~/artoo_workspace 中的 1 个文件：`draft-old.txt`');
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
    // Its details: the directive, the replans and the cost per role.
    await page.getByTestId('result-details').locator('summary').click();
    await expect(page.getByTestId('cost')).toBeVisible();
    await accessible(page, name('result-details'));
  });

  test(`${lang} ${theme}: a denial ends in an honest failure`, async ({ page }) => {
    await open(page, 'popup', lang, theme);
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
    await open(page, 'popup', lang, theme, '&model=first_run');
    await expect(page.getByTestId('onboarding')).toBeVisible();
    await accessible(page, name('onboarding'));
    await shot(page, name('5-onboarding'));
    // A provider instead: its fields, then a test call that fails and one that answers.
    await page.getByTestId('choose-provider').check();
    await page.locator('#onboarding-preset').selectOption('ollama');
    await page.locator('#onboarding-url').fill('http://unreachable.test/v1');
    await page.getByTestId('test-connection').click();
    await page.clock.runFor(500);
    await expect(page.getByTestId('connection-result')).toContainText('unreachable.test');
    await accessible(page, name('provider-failed'));
    await page.locator('#onboarding-preset').selectOption('ollama');
    await page.getByTestId('test-connection').click();
    await page.clock.runFor(500);
    await expect(page.getByTestId('save-provider')).toBeEnabled();
    await accessible(page, name('provider-tested'));
    await shot(page, name('5-provider'));
    await page.getByTestId('onboarding').getByRole('radio').first().check();
    await page.getByTestId('use-builtin').click();
    const progress = page.getByTestId('model-progress');
    await runUntilVisible(page, progress, 2_000);
    await page.clock.runFor(900);
    await expect(page.getByTestId('model-progress-text')).not.toBeEmpty();
    await accessible(page, name('model-progress'));
    await shot(page, name('6-model-progress'));
    await page.clock.runFor(5_000);
    await expect(page.locator('.task-input textarea')).toBeEnabled();

    await open(page, 'popup', lang, theme, '&model=unreachable');
    await expect(page.getByTestId('model-unreachable')).toBeVisible();
    await expect(page.locator('.task-input textarea')).toBeDisabled();
    await accessible(page, name('unreachable'));
    await shot(page, name('7-unreachable'));
  });

  test(`${lang} ${theme}: a question, a cancel, a chat reply, a replan, a Law 1 request left to time out`, async ({ page }) => {
    await open(page, 'popup', lang, theme);
    await expect(page.locator('.task-input textarea')).toBeEnabled();
    // From here time moves only when the test moves it: each screen stays as checked.
    await hold(page);
    await submit(page, 'clean up');
    const question = page.getByTestId('clarification');
    await runUntilVisible(page, question, 5_000);
    await accessible(page, name('clarification'));
    await shot(page, name('8-clarification'));
    await page.getByTestId('cancel').click();
    const newTask = page.locator('.task-panel .actions .btn');
    await runUntilVisible(page, page.locator('.task-panel .callout.warn'), 5_000);
    await accessible(page, name('cancelled'));
    await newTask.click();

    await submit(page, 'hello');
    await runUntilVisible(page, page.getByTestId('chat'), 10_000);
    await accessible(page, name('chat'));
    await shot(page, name('9-chat'));
    await newTask.click();

    // The pipeline opened mid-replan: roles, sub-tasks, the rationale, the loss.
    await submit(page);
    await page.getByTestId('pipeline-details').locator('summary').click();
    await runUntilVisible(page, page.getByTestId('replan'), 20_000);
    await accessible(page, name('replan'));
    await shot(page, name('10-replan'));
    // The messages so far, one line each.
    await page.locator('.flow-toggle').click();
    await expect(page.getByTestId('flow').locator('li').first()).toBeVisible();
    await accessible(page, name('replan-messages'));
    // Nobody answers the Law 1 dialog: it is denied when its time runs out, and said so.
    await runUntilVisible(page, page.getByTestId('law1-dialog'), 20_000);
    await page.clock.runFor(125_000);
    const notice = page.locator('.callout.warn[role="status"]');
    await runUntilVisible(page, notice, 5_000);
    await runUntilVisible(page, page.getByTestId('result'), 20_000);
    await accessible(page, name('law1-timed-out'));
    await shot(page, name('11-law1-timed-out'));
  });
});
