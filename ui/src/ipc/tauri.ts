// The Backend of the desktop app: Tauri 2 commands and one typed Channel of UiEvents.
// The only module that imports @tauri-apps/api.
//
// Shell side (docs/ui.md): every command is `#[tauri::command(rename_all = "snake_case")]`
// and rejects with `IpcError { code, message }`; `subscribe_events(channel:
// Channel<UiEvent>) -> u32` starts the stream (first the envelopes of tasks still
// running, then live traffic) and `unsubscribe_events(id: u32)` stops it.

import { Channel, invoke } from '@tauri-apps/api/core';

import { type Backend, IpcError, type UiEvent, type Unsubscribe } from './backend';
import type { CommandArgs, CommandName, CommandResult } from './commands';

/** True inside a Tauri webview (the shell injects its IPC internals before any script). */
export function insideTauri(global: object = globalThis): boolean {
  return '__TAURI_INTERNALS__' in global;
}

export function createTauriBackend(): Backend {
  return {
    async invoke<C extends CommandName>(
      command: C,
      args: CommandArgs<C>,
    ): Promise<CommandResult<C>> {
      try {
        return await invoke<CommandResult<C>>(command, args);
      } catch (reason) {
        throw IpcError.from(reason);
      }
    },

    subscribe(listener: (event: UiEvent) => void): Unsubscribe {
      let open = true;
      const channel = new Channel<UiEvent>((event) => {
        if (open) listener(event);
      });
      const subscription = invoke<number>('subscribe_events', { channel }).catch(
        (reason: unknown) => {
          // Without a stream the UI would look idle while tasks run: say so loudly.
          console.error('artoo: cannot subscribe to the event stream', IpcError.from(reason));
          return null;
        },
      );
      return () => {
        if (!open) return;
        open = false;
        void subscription.then((id) => {
          if (id !== null) return invoke('unsubscribe_events', { id }).catch(() => undefined);
          return undefined;
        });
      };
    },
  };
}
