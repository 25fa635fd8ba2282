// The user's path through the app over the fake backend: the tray opens the popup, a
// task runs into a GGS replan (rationale shown while R2 replans), a Law 1 dialog asks for
// an irreversible delete (Enter does not approve; the dialog stays until the decision is
// on the bus), the result arrives with its cost, then the memory map, the audit history
// and the replay of the run. Time is Playwright's clock: every screenshot is exact.

import { expect, test } from '@playwright/test';

import { hold, runUntilVisible, shot, START, TASK } from './support';

test.beforeEach(async ({ page }) => {
  await page.clock.install({ time: START });
});

test('a task replans, asks for Law 1 approval, finishes, and shows up in memory, audit and tasks', async ({ page }) => {
  await page.goto('/');
  const popup = page.getByTestId('popup');
  await expect(popup).toBeVisible();

  // The tray icon toggles the popup.
  await page.getByTestId('tray').click();
  await expect(popup).toBeHidden();
  await page.getByTestId('tray').click();
  await expect(popup).toBeVisible();
  await shot(page, '01-popup-empty');

  const input = page.getByRole('textbox', { name: 'What should I do?' });
  await expect(input).toBeFocused();
  await input.fill(TASK);
  await input.press('Enter');
  await expect(page.getByTestId('task-input')).toHaveText(TASK);
  await expect(page.locator('.role[data-role="R1"]')).toHaveAttribute('data-activity', 'active');
  // One plain line says what is happening; the pipeline is one click away.
  await expect(page.getByTestId('status-line')).not.toBeEmpty();
  await page.getByTestId('pipeline-details').locator('summary').click();

  // Mid-replan: GGS chose change_path; R2 is working on it and the rationale is shown.
  const replan = page.getByTestId('replan');
  await runUntilVisible(page, replan, 20_000);
  await expect(replan).toContainText('R2 is replanning: change path');
  await expect(page.getByTestId('rationale')).toContainText('Plateau');
  await expect(page.getByTestId('gradient')).toContainText('⊥ plateau');
  await expect(page.getByTestId('loss-row')).toContainText('0.60');
  await expect(page.locator('.role[data-role="R2"]')).toHaveAttribute('data-activity', 'active');
  await expect(page.getByTestId('phase')).toHaveText('Replanning');
  await shot(page, '02-pipeline-replanning');

  // Law 1: an irreversible delete waits for the click. From here time moves only when
  // the test moves it, so the countdown reads the same on a loaded machine.
  await hold(page);
  const dialog = page.getByTestId('law1-dialog');
  await runUntilVisible(page, dialog, 10_000);
  // Effects (focusing Deny) run after paint, on timers the paused clock must release.
  await page.clock.runFor(100);
  await expect(dialog).toHaveAttribute('role', 'alertdialog');
  await expect(page.getByTestId('law1-effect')).toContainText('delete 1 file in ~/artoo_workspace: `draft-old.txt` (3 B)');
  await expect(dialog).toContainText('Cannot be undone');
  await expect(page.getByTestId('law1-command')).toContainText('rm draft-old.txt');
  await expect(dialog.locator('.law1-paths li')).toHaveCount(1);
  await expect(page.getByTestId('law1-countdown')).toContainText('Denied automatically in 2:00');
  await expect(dialog.getByRole('button', { name: 'Move to Trash' })).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Deny' })).toBeFocused();
  await page.clock.runFor(5_000);
  // The countdown reads a clock that ticks once a second, so five seconds on it land on
  // 1:55 or 1:56 depending on where the request fell between two ticks.
  await expect(page.getByTestId('law1-countdown')).toContainText(/in 1:5[56]/);
  // Enter never approves, wherever focus is.
  await page.getByTestId('law1-approve').focus();
  await page.keyboard.press('Enter');
  await page.clock.runFor(1_000);
  await expect(dialog).toBeVisible();
  await expect(page.locator('.role[data-role="R3"]')).toHaveAttribute('data-activity', 'waiting');
  await shot(page, '03-law1-dialog');

  // Approving is never optimistic: the dialog stays until the decision is on the bus.
  await page.getByTestId('law1-approve').click();
  await expect(dialog).toContainText('Sending your decision');
  await page.clock.runFor(300);
  await expect(dialog).toBeHidden();
  await page.clock.resume();

  const result = page.getByTestId('result');
  await runUntilVisible(page, result, 15_000);
  await expect(result).toContainText('✅');
  await expect(page.getByTestId('summary')).toHaveText('draft-old.txt deleted');
  await expect(page.getByTestId('law1-note')).toHaveText('Law 1: 1 action asked for your approval (1 approved).');
  await expect(page.getByTestId('result-details')).toContainText('accept');
  await page.getByTestId('result-details').locator('summary').click();
  await expect(page.getByTestId('cost')).toContainText('R2');
  await expect(page.getByTestId('cost')).toContainText('Models in all');
  await expect(page.getByTestId('cost')).toContainText('Tools');
  await shot(page, '04-result');

  // Undo: the plan first, then the confirm click takes the deletion back.
  await page.getByTestId('undo').click();
  await expect(page.getByTestId('undo-plan')).toContainText('put back ~/artoo_workspace/draft-old.txt');
  await page.getByTestId('undo-confirm').click();
  await expect(page.getByTestId('undo-done')).toContainText('Undone: 1 change taken back.');

  // The memory map, opened from the popup like the shell's open_panel would.
  await page.getByRole('button', { name: 'Memory' }).first().click();
  const panels = page.getByTestId('panels');
  await expect(panels).toHaveAttribute('data-tab', 'memory');
  await expect(page.getByTestId('potentials-map').locator('canvas')).toBeVisible();
  const groups = page.getByTestId('memory-groups');
  await expect(groups).toContainText('law:0');
  await expect(groups).toContainText('Exploit');
  await expect(groups).toContainText('Avoid');
  await groups.getByText('intent:delete_oldest').click();
  const detail = page.getByTestId('group-detail');
  await expect(detail).toContainText('draft-old.txt deleted');
  await expect(page.getByTestId('why-recalled')).toContainText(TASK);
  await expect(page.getByTestId('why-recalled')).toContainText('MUST NOT');
  await page.getByTestId('tray').click();
  await shot(page, '05-memory-map');

  // The audit history: past reports, an on-demand audit, the chain verified.
  await panels.getByRole('tab', { name: 'Audit' }).click();
  const reports = page.getByTestId('audit-reports').locator('li');
  await expect(reports).toHaveCount(3);
  await page.getByTestId('audit-now').click();
  await page.clock.runFor(1_000);
  await expect(reports).toHaveCount(4);
  await expect(page.getByTestId('audit-report')).toContainText('On demand');
  await expect(page.getByTestId('audit-report')).toContainText('Law 1: Approved 1');
  await page.getByTestId('audit-verify').click();
  await expect(page.getByTestId('chain')).toContainText('Chain intact');
  await panels.getByRole('checkbox', { name: 'Anomalies only' }).check();
  // The recorded runs raise no anomaly.
  await expect(page.getByTestId('audit-events')).toContainText('No event matches.');
  await shot(page, '06-audit-history');

  // The run, replayable with its loss trajectory.
  await panels.getByRole('tab', { name: 'Tasks' }).click();
  await expect(panels.locator('.list li').first()).toContainText(TASK);
  await expect(page.getByTestId('loss-chart').locator('canvas')).toBeVisible();
  await expect(page.getByTestId('step')).toContainText(/Step \d+ of \d+/);
  await panels.getByRole('button', { name: 'First step' }).click();
  await expect(page.getByTestId('step')).toContainText('Step 1 of');
  await panels.getByRole('button', { name: 'Last step' }).click();
  await shot(page, '07-tasks-replay');
});

test('denying the Law 1 request ends in an honest graceful failure', async ({ page }) => {
  await page.setViewportSize({ width: 440, height: 640 });
  await page.goto('/?view=popup');
  const input = page.getByRole('textbox', { name: 'What should I do?' });
  await input.fill(TASK);
  await input.press('Enter');
  const dialog = page.getByTestId('law1-dialog');
  await runUntilVisible(page, dialog, 30_000);
  await page.keyboard.press('Escape');
  await page.clock.runFor(300);
  await expect(dialog).toBeHidden();
  const result = page.getByTestId('result');
  await runUntilVisible(page, result, 15_000);
  await expect(result).toContainText('❌');
  // The tally beside the answer, in words; the answer carries none of it.
  await expect(page.getByTestId('law1-note')).toHaveText('Law 1: 1 action asked for your approval (1 denied).');
  await expect(page.getByTestId('summary')).not.toContainText('denied');
  await expect(page.getByTestId('next-moves').locator('li')).toHaveCount(2);
  await expect(page.getByTestId('next-moves')).toContainText('Delete draft-old.txt yourself.');
  await shot(page, '08-popup-denied');
});

test('the popup in dark mode, and the whole UI in Simplified Chinese', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/');
  const input = page.getByRole('textbox', { name: 'What should I do?' });
  await input.fill('clean up');
  await input.press('Enter');
  const question = page.getByTestId('clarification');
  await runUntilVisible(page, question, 5_000);
  await expect(question).toContainText('What should I tidy up');
  await shot(page, '09-dark-clarification');
  await question.getByRole('textbox').fill('list the files in my workspace');
  await question.getByRole('button', { name: 'Answer' }).click();
  await expect(question).toBeHidden();
  await page.getByTestId('cancel').click();
  await expect(page.getByTestId('phase')).toHaveText('Cancelled');

  await page.getByRole('button', { name: 'Settings' }).first().click();
  const settings = page.getByTestId('settings');
  await expect(settings).toBeVisible();
  await settings.getByLabel('Language').selectOption('zh-CN');
  await settings.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('panels').getByRole('tab', { name: '设置' })).toBeVisible();
  await expect(settings).toContainText('已保存到');
  await page.getByTestId('tray').click();
  await shot(page, '10-settings-zh-dark');
  // The MCP section: the configured server with what connected, import, grants.
  const mcp = settings.getByTestId('mcp-settings');
  await mcp.scrollIntoViewIfNeeded();
  await expect(mcp.getByTestId('mcp-state-files')).toHaveText('已连接 · 2 个工具');
  await shot(page, '12-settings-mcp-zh-dark');
});

test('the panels window opens on the tab its URL names, and ⌘-digits switch tabs', async ({ page }) => {
  await page.goto('/?view=panels#audit');
  const panels = page.getByTestId('panels');
  await expect(panels).toHaveAttribute('data-tab', 'audit');
  await expect(page.getByTestId('audit-reports').locator('li')).toHaveCount(3);
  await page.keyboard.press('Control+2');
  await expect(panels).toHaveAttribute('data-tab', 'memory');
  await expect(page.getByTestId('memory-groups')).toContainText('intent:read');
  await shot(page, '11-panels-window');
});
