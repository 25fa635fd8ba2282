import { clearMocks, mockIPC } from '@tauri-apps/api/mocks';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { IpcError, type UiEvent } from './backend';
import { createTauriBackend, insideTauri } from './tauri';

describe('the Tauri backend', () => {
  afterEach(() => clearMocks());

  it('passes snake_case arguments to the command and resolves with its result', async () => {
    const calls: [string, unknown][] = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      return 'task_0123456789ab';
    });
    const id = await createTauriBackend().invoke('submit_task', { text: 'hello' });
    expect(id).toBe('task_0123456789ab');
    expect(calls).toEqual([['submit_task', { text: 'hello' }]]);
    expect(insideTauri()).toBe(true);
  });

  it("rejects with the shell's IpcError code so views can branch on it", async () => {
    mockIPC(() => {
      throw { code: 'hotkey_conflict', message: 'Cmd+Shift+Space is taken by Spotlight' };
    });
    const error = await createTauriBackend()
      .invoke('save_settings', { update: { settings: {}, keys: { brain: { kind: 'keep' }, tool: { kind: 'keep' } } } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IpcError);
    expect(error).toMatchObject({ code: 'hotkey_conflict', message: 'Cmd+Shift+Space is taken by Spotlight' });
  });

  it('streams events through one Channel and stops listening when unsubscribed', async () => {
    let channel: { onmessage: (e: UiEvent) => void } | null = null;
    const commands: string[] = [];
    mockIPC((cmd, args) => {
      commands.push(cmd);
      if (cmd === 'subscribe_events') {
        channel = (args as { channel: { onmessage: (e: UiEvent) => void } }).channel;
        return 7;
      }
      return null;
    });
    const seen: UiEvent[] = [];
    const stop = createTauriBackend().subscribe((e) => seen.push(e));
    await vi.waitFor(() => expect(channel).not.toBeNull());
    const deliver = (e: UiEvent) => (channel as unknown as { onmessage: (e: UiEvent) => void }).onmessage(e);
    deliver({ kind: 'gap', skipped: 3 });
    stop();
    deliver({ kind: 'gap', skipped: 4 });
    expect(seen).toEqual([{ kind: 'gap', skipped: 3 }]);
    await vi.waitFor(() => expect(commands).toEqual(['subscribe_events', 'unsubscribe_events']));
  });
});
