import { fireEvent, render, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it } from 'vitest';

import { locale, t } from '../../i18n';
import { harness, type Harness } from '../../test-util';
import { accelerator, SettingsPanel } from './SettingsPanel';

describe('the settings panel', () => {
  let h: Harness;
  afterEach(() => h.dispose());

  async function open(options: { keychain?: boolean; sandbox?: boolean } = {}) {
    h = harness(options);
    render(<SettingsPanel settings={h.session.settings} test={h.session.model.test} />);
    await h.advance(50);
  }

  const field = (label: string) => screen.getAllByLabelText(label)[0] as HTMLInputElement;
  const save = () => screen.getByRole('button', { name: 'Save' }) as HTMLButtonElement;

  it('runs the check-up when asked and shows each line with its fix', async () => {
    await open({ sandbox: false });
    expect(screen.queryByRole('list', { name: 'Check-up' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Run the check-up' }));
    await h.advance(50);
    const lines = [...screen.getByRole('list', { name: 'Check-up' }).querySelectorAll('li')];
    expect(lines.map((l) => l.querySelector('strong')?.textContent)).toEqual(['model', 'model server', 'speed', 'sandbox', 'data dir', 'mcp', 'versions', 'keychain']);
    const sandbox = lines.find((l) => l.querySelector('strong')?.textContent === 'sandbox');
    expect(sandbox?.getAttribute('data-ok')).toBe('false');
    expect(sandbox?.textContent).toContain('fix: on Linux install bubblewrap');
    expect(lines.find((l) => l.querySelector('strong')?.textContent === 'speed')?.textContent).toContain('a typical task takes about 2 min');
  });

  it('applies a provider preset to both tiers', async () => {
    await open();
    fireEvent.change(screen.getByLabelText('Preset'), { target: { value: 'deepseek' } });
    await h.advance(10);
    const urls = screen.getAllByLabelText('Base URL') as HTMLInputElement[];
    expect(urls.map((u) => u.value)).toEqual(['https://api.deepseek.com/v1', 'https://api.deepseek.com/v1']);
    expect(save().disabled).toBe(false);
    expect(screen.getByText('Unsaved changes')).toBeTruthy();
  });

  it('tests a tier with a real one-token call and shows the model and latency', async () => {
    await open();
    fireEvent.click(screen.getByTestId('brain-test'));
    await h.advance(300);
    expect(screen.getByTestId('brain-test-result').textContent).toBe('Connected: qwen2.5-coder-7b-instruct answered in 240 ms.');
    fireEvent.input(screen.getAllByLabelText('Base URL')[0] as HTMLInputElement, { target: { value: 'http://unreachable.local/v1' } });
    await h.advance(10);
    expect(screen.getByTestId('brain-test-result').textContent).toBe('');
    fireEvent.click(screen.getByTestId('brain-test'));
    await h.advance(300);
    expect(screen.getByTestId('brain-test-result').textContent).toContain('Not connected');
  });

  it('says that empty tiers mean the built-in model', async () => {
    await open();
    expect(screen.queryByTestId('builtin-note')).toBeNull();
    for (const label of ['Base URL', 'Model']) {
      for (const input of screen.getAllByLabelText(label) as HTMLInputElement[]) fireEvent.input(input, { target: { value: '' } });
    }
    await h.advance(10);
    expect(screen.getByTestId('builtin-note').textContent).toContain('built-in model');
  });

  it('sends an API key to the keychain and never shows it back', async () => {
    await open();
    fireEvent.input(field('API key'), { target: { value: 'sk-live-123' } });
    fireEvent.click(save());
    await h.advance(50);
    expect(field('API key').value).toBe('');
    expect(screen.getByText(/Stored in macOS Keychain/)).toBeTruthy();
    expect(document.body.textContent).not.toContain('sk-live-123');
  });

  it('says where no keychain exists and disables the key fields', async () => {
    await open({ keychain: false });
    expect(screen.getByText(/No keychain: no keychain on this system/)).toBeTruthy();
    expect(field('API key').disabled).toBe(true);
  });

  it('says whether Law 1 sandboxes shell commands, and why not when it does not', async () => {
    await open();
    expect(screen.getByTestId('settings-sandbox').textContent).toContain('the sandbox is on');
    h.dispose();
    document.body.innerHTML = '';
    await open({ sandbox: false });
    const off = screen.getByTestId('settings-sandbox');
    expect(off.textContent).toContain('the sandbox is off: bubblewrap (bwrap) is not installed');
    expect(off.className).toContain('warn');
  });

  it('shows a rejected value with the field the backend named, and keeps the draft', async () => {
    await open();
    fireEvent.change(screen.getByLabelText('θ — abandon threshold'), { target: { value: '1.5' } });
    fireEvent.click(save());
    await h.advance(50);
    expect(screen.getByRole('alert').textContent).toBe('Not saved: invalid value for `ggs.theta`: 1.5 is not in [0, 1]');
    expect((screen.getByLabelText('θ — abandon threshold') as HTMLInputElement).value).toBe('1.5');
    fireEvent.click(screen.getByRole('button', { name: 'Revert' }));
    await h.advance(10);
    expect((screen.getByLabelText('θ — abandon threshold') as HTMLInputElement).value).toBe('0.8');
  });

  it('switches the whole UI to Simplified Chinese on save', async () => {
    await open();
    fireEvent.change(screen.getByLabelText('Language'), { target: { value: 'zh-CN' } });
    fireEvent.click(save());
    await h.advance(50);
    expect(locale.value).toBe('zh-CN');
    expect(t('law1.approve')).toBe('批准');
    expect(screen.getByRole('button', { name: '保存' })).toBeTruthy();
  });

  it('lists the MCP servers with what connected, and imports a Claude Desktop config into the draft', async () => {
    await open();
    expect(screen.getByTestId('mcp-state-files').textContent).toBe('Connected · 2 tools');
    expect(screen.getByTestId('mcp-server-files').textContent).toContain('files.write_file');
    const config = JSON.stringify({
      mcpServers: {
        files: { command: 'npx', args: ['-y', 'other'] },
        everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] },
        old: { type: 'sse', url: 'https://example.invalid/sse' },
      },
    });
    fireEvent.input(screen.getByLabelText('Config JSON'), { target: { value: config } });
    fireEvent.click(screen.getByRole('button', { name: 'Import' }));
    await h.advance(10);
    const said = screen.getByTestId('mcp-import-result').textContent ?? '';
    expect(said).toContain('Added: everything.');
    expect(said).toContain('Already configured, kept: files.');
    expect(said).toContain('old: a legacy SSE server');
    expect(screen.getByTestId('mcp-state-everything').textContent).toBe('Connects after you save');
    expect(screen.getByTestId('mcp-server-files').textContent).toContain('/Users/me/Documents');
    fireEvent.click(save());
    await h.advance(50);
    expect(screen.getByTestId('mcp-state-everything').textContent).toBe('Connected · 0 tools');
  });

  it('adds, turns off and removes a server as part of the draft', async () => {
    await open();
    fireEvent.input(screen.getByLabelText('Name'), { target: { value: 'remote' } });
    fireEvent.input(screen.getByLabelText('Command or URL'), { target: { value: 'http://127.0.0.1:3001/mcp' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
    await h.advance(10);
    expect(screen.getByTestId('mcp-server-remote').textContent).toContain('http://127.0.0.1:3001/mcp');
    fireEvent.click(screen.getByLabelText('Use the server files'));
    await h.advance(10);
    expect(screen.getByTestId('mcp-state-files').textContent).toBe('Turned off');
    fireEvent.click(screen.getByRole('button', { name: 'Remove the server remote' }));
    await h.advance(10);
    expect(screen.queryByTestId('mcp-server-remote')).toBeNull();
    expect(save().disabled).toBe(false);
    fireEvent.click(save());
    await h.advance(50);
    const saved = await h.fake.invoke('get_settings', {});
    expect(Object.keys(saved.settings.mcp.servers)).toEqual(['files']);
    expect(saved.settings.mcp.servers.files?.enabled).toBe(false);
  });

  it('lists standing grants and revokes one at once', async () => {
    h = harness();
    h.fake.grantAlways({ server: 'files', origin: 'npx -y @modelcontextprotocol/server-filesystem /w', tool: 'write_file', fingerprint: 'ab12' });
    render(<SettingsPanel settings={h.session.settings} />);
    await h.advance(50);
    const grants = screen.getByTestId('mcp-grants');
    expect(grants.textContent).toContain('files.write_file');
    fireEvent.click(screen.getByRole('button', { name: 'Revoke always allowing files.write_file' }));
    await h.advance(10);
    expect(screen.getByTestId('mcp-grants').textContent).toContain('None: every MCP tool that is not read-only asks.');
    expect(await h.fake.invoke('mcp_grants', {})).toEqual([]);
  });

  it('lists the standing grants by effect with their use, and revokes one at once', async () => {
    h = harness();
    const tmp = { effect: 'delete', place: '/home/u/Downloads', extension: 'tmp', words: 'deleting .tmp files under ~/Downloads' } as const;
    const logs = { effect: 'truncate', place: '/home/u/logs', extension: 'log', words: 'emptying .log files under ~/logs' } as const;
    h.fake.grantEffect(tmp, { uses: 4, last_used: '2026-03-01T17:30:00Z' });
    h.fake.grantEffect(logs);
    render(<SettingsPanel settings={h.session.settings} />);
    await h.advance(50);
    const items = [...screen.getByTestId('effect-grants').querySelectorAll('li')].map((li) => li.textContent);
    expect(items).toEqual([
      'deleting .tmp files under ~/Downloadssince 2026-03-02 · used 4 times, last 2026-03-01Revoke',
      'emptying .log files under ~/logssince 2026-03-02 · not used yetRevoke',
    ]);
    fireEvent.click(screen.getByRole('button', { name: 'Revoke the grant for deleting .tmp files under ~/Downloads' }));
    await h.advance(10);
    const left = [...screen.getByTestId('effect-grants').querySelectorAll('li')].map((li) => li.textContent);
    expect(left).toEqual(['emptying .log files under ~/logssince 2026-03-02 · not used yetRevoke']);
    expect((await h.fake.invoke('effect_grants', {})).map((g) => g.class.words)).toEqual(['emptying .log files under ~/logs']);
    // Revoking is not a settings change to save.
    expect(save().disabled).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Revoke the grant for emptying .log files under ~/logs' }));
    await h.advance(10);
    expect(screen.getByTestId('effect-grants').textContent).toContain(
      'None: every action that cannot be undone asks. Once you approve the same kind of change in the same folder a few times, the dialog offers “Always allow” for it.',
    );
    expect(screen.getByTestId('effect-grants').querySelectorAll('li')).toHaveLength(0);
    expect(await h.fake.invoke('effect_grants', {})).toEqual([]);
  });

  it('keeps an "always" approval of a class of changes as a standing grant, used once', async () => {
    h = harness();
    h.fake.grantEffect({ effect: 'delete', place: '/home/u/Downloads', extension: 'tmp', words: 'deleting .tmp files under ~/Downloads' }, { uses: 1, last_used: '2026-03-02T08:00:00Z' });
    render(<SettingsPanel settings={h.session.settings} />);
    await h.advance(50);
    expect(screen.getByTestId('effect-grant').textContent).toContain('used once, last 2026-03-02');
  });

  it('says when the dialog offers "always": after 3 approvals by default, saved as a whole number, never below 0', async () => {
    await open();
    const offer = () => screen.getByLabelText('Offer “Always allow” after this many approvals') as HTMLInputElement;
    expect(offer().value).toBe('3');
    fireEvent.change(offer(), { target: { value: '-1' } });
    fireEvent.click(save());
    await h.advance(50);
    expect(screen.getByRole('alert').textContent).toBe('Not saved: invalid value for `laws.offer_always_after`: -1 must be a whole number ≥ 0');
    fireEvent.change(offer(), { target: { value: '0' } });
    fireEvent.click(save());
    await h.advance(50);
    expect(screen.queryByRole('alert')).toBeNull();
    expect((await h.fake.invoke('get_settings', {})).settings.laws.offer_always_after).toBe(0);
    expect(offer().value).toBe('0');
  });

  it('turns each notification off on its own, and saves it', async () => {
    await open();
    const toggle = (label: string) => screen.getAllByLabelText(label)[0] as HTMLInputElement;
    const done = 'Notify me when a task is done while the popup is away';
    const abandoned = 'Notify me when a task was abandoned while the popup is away';
    const approvals = 'Notify me when an action waits for my approval (the popup comes back either way)';
    expect([approvals, done, abandoned].map((l) => toggle(l).checked)).toEqual([true, true, true]);
    fireEvent.click(toggle(done));
    fireEvent.click(save());
    await h.advance(50);
    const { ui } = (await h.fake.invoke('get_settings', {})).settings;
    expect([ui.notify_approvals, ui.notify_done, ui.notify_abandoned]).toEqual([true, false, true]);
  });

  it('records a hotkey as a Tauri accelerator', async () => {
    expect(accelerator({ key: 'k', code: 'KeyK', metaKey: true, ctrlKey: false, altKey: false, shiftKey: true })).toBe('CommandOrControl+Shift+K');
    expect(accelerator({ key: ' ', code: 'Space', metaKey: false, ctrlKey: true, altKey: true, shiftKey: false })).toBe('CommandOrControl+Alt+Space');
    expect(accelerator({ key: 'Shift', code: 'ShiftLeft', metaKey: false, ctrlKey: false, altKey: false, shiftKey: true })).toBeNull();
    expect(accelerator({ key: 'a', code: 'KeyA', metaKey: false, ctrlKey: false, altKey: false, shiftKey: false })).toBeNull();
    await open();
    fireEvent.click(screen.getByRole('button', { name: 'Record' }));
    fireEvent.keyDown(screen.getByRole('button', { name: 'Press the shortcut…' }), { key: 'j', code: 'KeyJ', metaKey: true, altKey: true });
    await h.advance(10);
    expect(screen.getByText('⌘ ⌥ J')).toBeTruthy();
  });
});
