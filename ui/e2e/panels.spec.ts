// The panels window at its own size, and the browser preview, in both languages and both
// themes: Tasks (a chat run, a run that replanned, its replay at the first step and
// playing), Memory (the map, a Law group, a group's Megrams, remembering, forgetting that
// asks first), Audit (the reports, an on-demand report, the chain verified, anomalies
// only), Settings (every section, test calls that answer and fail, an MCP server added,
// an import refused and one taken, a value refused, then saved), and the desk with both
// windows following a task through its Law 1 dialog. Every screen is checked with axe,
// scrolled through: no serious or critical violation. Screenshots go to
// target/ui-screenshots/panels-<lang>-<theme>-*.png.

import { expect, test } from '@playwright/test';

import { accessible, hold, inEveryLanguageAndTheme, open, runUntilVisible, shot, submit, TASK } from './support';

// The panels window's own size (src-tauri/src/desktop.rs: 1040 × 700).
inEveryLanguageAndTheme('panels', { width: 1040, height: 700 }, (lang, theme, name) => {
  const en = lang === 'en';

  test(`${lang} ${theme}: tasks, a replay stepped through`, async ({ page }) => {
    await open(page, 'panels', lang, theme, '#tasks');
    const panels = page.getByTestId('panels');
    await expect(panels).toHaveAttribute('data-tab', 'tasks');
    // The newest run, a chat reply: no GGS round, so no loss yet.
    await expect(page.getByTestId('step')).toBeVisible();
    // From here time moves only when the test moves it: each screen stays as checked.
    await hold(page);
    await accessible(page, name('tasks'));
    // A run that replanned and was abandoned: its loss trajectory, its pipeline, its result.
    await panels.getByRole('option').filter({ hasText: 'read the report' }).first().click();
    await runUntilVisible(page, page.getByTestId('loss-chart'), 2_000);
    await accessible(page, name('tasks-replanned'));
    await shot(page, name('1-tasks'));
    // At the first step the rest of the run is still ahead.
    await panels.getByRole('button', { name: en ? 'First step' : '第一步' }).click();
    await expect(page.getByTestId('step')).toContainText(en ? 'Step 1 of' : '第 1');
    await accessible(page, name('tasks-first-step'));
    await panels.getByRole('button', { name: en ? 'Play' : '播放' }).click();
    await page.clock.runFor(1_000);
    await expect(panels.getByRole('button', { name: en ? 'Pause' : '暂停' })).toBeVisible();
    await accessible(page, name('tasks-playing'));
    await shot(page, name('2-tasks-playing'));
  });

  test(`${lang} ${theme}: memory, a group, remembering, forgetting`, async ({ page }) => {
    await open(page, 'panels', lang, theme, '#memory');
    const groups = page.getByTestId('memory-groups');
    await expect(groups).toBeVisible();
    await hold(page);
    await accessible(page, name('memory'));
    // A Law group: immutable, nothing to forget.
    await groups.locator('tbody tr').filter({ hasText: 'law:' }).first().click();
    const detail = page.getByTestId('group-detail');
    await runUntilVisible(page, detail, 2_000);
    await accessible(page, name('memory-law'));
    await groups.locator('tbody tr').filter({ hasNotText: 'law:' }).first().click();
    await runUntilVisible(page, detail.locator('.megram .icon-btn').first(), 2_000);
    await accessible(page, name('memory-group'));
    await shot(page, name('3-memory'));
    // The form that remembers by hand, and a Megram's forget armed (it asks first).
    await page.locator('.memory-main .toolbar-row .btn').click();
    await page.getByTestId('remember-form').locator('textarea').fill(en ? 'Prefer the Trash' : '优先移到废纸篓');
    await detail.locator('.megram .icon-btn').last().click();
    await expect(detail.locator('.armed')).toBeVisible();
    await accessible(page, name('memory-remember-forget'));
    await shot(page, name('4-memory-remember'));
  });

  test(`${lang} ${theme}: audit, a report on demand, the chain verified`, async ({ page }) => {
    await open(page, 'panels', lang, theme, '#audit');
    const reports = page.getByTestId('audit-reports').locator('li');
    await expect(page.getByTestId('audit-report')).toBeVisible();
    await hold(page);
    await accessible(page, name('audit'));
    await page.getByTestId('audit-now').click();
    await page.clock.runFor(1_000);
    await expect(reports).toHaveCount(4);
    await page.getByTestId('audit-verify').click();
    await runUntilVisible(page, page.getByTestId('chain'), 2_000);
    await accessible(page, name('audit-verified'));
    await shot(page, name('5-audit'));
    await page.getByTestId('audit-events').getByRole('checkbox').check();
    await page.clock.runFor(500);
    await expect(page.getByTestId('audit-events').locator('table')).toBeHidden();
    await accessible(page, name('audit-anomalies'));
  });

  test(`${lang} ${theme}: settings, edited, refused, saved`, async ({ page }) => {
    await open(page, 'panels', lang, theme, '#settings');
    const settings = page.getByTestId('settings');
    await expect(settings).toBeVisible();
    await hold(page);
    await accessible(page, name('settings'));
    await shot(page, name('6-settings'));

    // Test calls: the brain answers, the tool tier's endpoint does not.
    await page.getByTestId('brain-test').click();
    await page.locator('#tool-url').fill('http://unreachable.test/v1');
    await page.getByTestId('tool-test').click();
    await page.clock.runFor(500);
    await expect(page.getByTestId('tool-test-result')).toContainText('unreachable.test');
    // MCP: the connected server's tools, a server added, an import refused.
    const mcp = page.getByTestId('mcp-settings');
    await mcp.locator('details summary').first().click();
    await page.locator('#mcp-add-name').fill('notes');
    await page.locator('#mcp-add-target').fill('npx');
    await page.locator('#mcp-add-args').fill('-y\nnotes-mcp');
    await mcp.locator('fieldset').first().getByRole('button').click();
    await expect(page.getByTestId('mcp-server-notes')).toBeVisible();
    await page.locator('#mcp-import-json').fill('{"nothing": true}');
    await mcp.locator('fieldset').last().getByRole('button').click();
    await page.clock.runFor(200);
    await expect(mcp.locator('fieldset').last().getByRole('alert')).toBeVisible();
    // A value the core refuses: ε must be above zero.
    await page.locator('#ggs-epsilon').fill('0');
    await page.locator('#ggs-epsilon').blur();
    await settings.locator('button[type="submit"]').click();
    await page.clock.runFor(500);
    await expect(settings.locator('.settings-footer [role="alert"]')).toContainText('ggs.epsilon');
    await accessible(page, name('settings-refused'));
    await shot(page, name('7-settings-refused'));

    // Fixed, an import taken, and saved.
    await page.locator('#ggs-epsilon').fill('0.1');
    await page.locator('#ggs-epsilon').blur();
    await page.locator('#mcp-import-json').fill('{"mcpServers": {"web": {"url": "https://mcp.example.com/sse"}}}');
    await mcp.locator('fieldset').last().getByRole('button').click();
    await page.clock.runFor(200);
    await expect(page.getByTestId('mcp-server-web')).toBeVisible();
    await settings.locator('button[type="submit"]').click();
    await page.clock.runFor(500);
    await expect(settings.locator('.settings-footer [role="status"]')).toBeVisible();
    await accessible(page, name('settings-saved'));
  });

  test(`${lang} ${theme}: the preview desk, a task followed in both windows`, async ({ page }) => {
    await open(page, '', lang, theme);
    await expect(page.getByTestId('recent')).toBeVisible();
    await hold(page);
    await accessible(page, name('desk'));
    // A task running, followed in Tasks: the open run selected in the list.
    await submit(page);
    await page.getByRole('button', { name: en ? 'Tasks' : '任务' }).first().click();
    const panels = page.getByTestId('panels');
    await runUntilVisible(page, panels, 2_000);
    const selected = panels.locator('.list li.selected');
    await runUntilVisible(page, selected.filter({ hasText: TASK }), 2_000);
    await accessible(page, name('desk-running'));
    // The Law 1 dialog over the popup, the panels beside it; then approved, the run
    // selected with its Law 1 mark.
    const dialog = page.getByTestId('law1-dialog');
    await runUntilVisible(page, dialog, 30_000);
    await page.clock.runFor(1_000);
    await accessible(page, name('desk-law1'));
    await page.getByTestId('law1-approve').click();
    await runUntilVisible(page, page.getByTestId('result'), 20_000);
    await runUntilVisible(page, selected.locator('.chip.warn'), 2_000);
    await accessible(page, name('desk-done'));
    await shot(page, name('8-desk'));
  });
});
