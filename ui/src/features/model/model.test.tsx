// The model before the first task: the first-run choice, the built-in model's progress,
// "Test connection" before a provider is saved, and the unreachable banner.

import { fireEvent, render, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { harness, type Harness } from '../../test-util';
import { Popup } from '../popup/Popup';

describe('the model in the popup', () => {
  let h: Harness;
  const openPanel = vi.fn();
  afterEach(() => {
    h.dispose();
    openPanel.mockReset();
  });

  async function open(model: 'first_run' | 'unreachable' | 'ready') {
    h = harness({ model });
    const s = h.session;
    await s.settings.load();
    await s.model.load();
    render(<Popup pipeline={s.pipeline} approvals={s.approvals} model={s.model} settings={s.settings} now={s.now} skipped={s.skipped} openPanel={openPanel} hide={() => undefined} />);
  }

  const input = () => screen.getByRole('textbox', { name: 'What should I do?' }) as HTMLTextAreaElement;

  it('once ready, says how fast the model runs here and how long a task takes', async () => {
    await open('ready');
    await h.until(() => screen.queryByTestId('model-pace'));
    expect(screen.getByTestId('model-pace').textContent).toBe('≈9.6 tokens/s written, ≈50 read here; a typical task takes about 2 min (time budget 5 min)');
  });

  it('on first run asks which model, and the built-in one shows its progress until it is ready', async () => {
    await open('first_run');
    expect(screen.getByTestId('onboarding')).toBeTruthy();
    expect(input().disabled).toBe(true);
    fireEvent.click(screen.getByTestId('use-builtin'));
    await h.until(() => screen.queryByTestId('model-progress'));
    await h.until(() => /part \d+ of 22/.test(screen.queryByTestId('model-progress-text')?.textContent ?? ''));
    expect(screen.getByTestId('model-announcer').textContent).toMatch(/Downloading the built-in model/);
    await h.until(() => h.session.model.status.value?.phase === 'ready', 10_000);
    expect(screen.queryByTestId('onboarding')).toBeNull();
    expect(input().disabled).toBe(false);
    // Choosing the built-in model saved no provider: both tiers stay empty.
    const saved = await h.fake.invoke('get_settings', {});
    expect(saved.settings.llm.brain.base_url ?? null).toBeNull();
    expect(saved.settings.llm.tool.model ?? null).toBeNull();
  });

  it('saves a provider only after a passing test of exactly those values, showing model and latency', async () => {
    await open('first_run');
    fireEvent.click(screen.getByTestId('choose-provider'));
    const save = () => screen.getByTestId('save-provider') as HTMLButtonElement;
    expect(save().disabled).toBe(true);
    expect((screen.getByTestId('test-connection') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.input(screen.getByLabelText('Base URL'), { target: { value: 'http://unreachable.local/v1' } });
    fireEvent.input(screen.getByLabelText('Model'), { target: { value: 'qwen' } });
    fireEvent.click(screen.getByTestId('test-connection'));
    await h.advance(300);
    expect(screen.getByTestId('connection-result').textContent).toContain('Not connected: cannot connect');
    expect(save().disabled).toBe(true);
    fireEvent.input(screen.getByLabelText('Base URL'), { target: { value: 'http://127.0.0.1:11434/v1' } });
    expect(save().disabled).toBe(true);
    fireEvent.click(screen.getByTestId('test-connection'));
    await h.advance(300);
    expect(screen.getByTestId('connection-result').textContent).toBe('Connected: qwen answered in 240 ms.');
    expect(save().disabled).toBe(false);
    fireEvent.click(save());
    await h.until(() => h.session.model.status.value?.phase === 'ready');
    const saved = await h.fake.invoke('get_settings', {});
    expect(saved.settings.llm.brain).toMatchObject({ base_url: 'http://127.0.0.1:11434/v1', model: 'qwen' });
    expect(saved.settings.llm.tool).toMatchObject({ base_url: 'http://127.0.0.1:11434/v1', model: 'qwen' });
  });

  it('says the model is unreachable before anything is typed, with a way to fix it', async () => {
    await open('unreachable');
    const banner = screen.getByTestId('model-unreachable');
    expect(banner.getAttribute('role')).toBe('alert');
    expect(banner.textContent).toContain('cannot be reached');
    expect(input().disabled).toBe(true);
    for (const example of screen.getByText('Try').parentElement?.querySelectorAll('.example') ?? []) expect((example as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByTestId('model-fix'));
    expect(openPanel).toHaveBeenCalledWith('settings', null);
  });
});
