// The one seam between the UI and whatever runs the core: the Tauri shell in the app
// (tauri.ts) or the in-memory fake in a browser and in tests (fake.ts). Everything the
// UI knows arrives as a command result or an event on the stream; nothing else.

import type { CommandArgs, CommandName, CommandResult, DescribedEnvelope, ModelStatus, PanelFocus, PanelTab } from './commands';

/** What the event stream carries: bus traffic, tap gaps and panel navigation. */
export type UiEvent =
  /**
   * One bus envelope with the core's one-line summary of it (`line`), and the
   * plain-language status line it begins (written by the core, in the UI language; null
   * when it begins no new phase).
   */
  | { kind: 'envelope'; envelope: DescribedEnvelope; status?: string | null }
  /** The shell's tap fell behind and `skipped` envelopes are gone for good. */
  | { kind: 'gap'; skipped: number }
  /** The shell opened the panels window on a tab (tray menu, a "why" link). */
  | { kind: 'navigate'; tab: PanelTab; focus: PanelFocus | null }
  /** The model changed state (starting with progress, ready, unreachable). */
  | { kind: 'model'; model: ModelStatus };

export type Unsubscribe = () => void;

export interface Backend {
  invoke<C extends CommandName>(command: C, args: CommandArgs<C>): Promise<CommandResult<C>>;
  /** Delivers every event from now on, in order, until the returned function is called. */
  subscribe(listener: (event: UiEvent) => void): Unsubscribe;
}

/** The codes the shell's `IpcError { code, message }` carries. The UI branches on these. */
export type IpcErrorCode =
  | 'invalid_input'
  | 'not_found'
  | 'forbidden'
  | 'busy'
  | 'config_invalid'
  | 'keychain_unavailable'
  | 'hotkey_conflict'
  | 'timeout'
  | 'unavailable'
  | 'internal';

const CODES: ReadonlySet<string> = new Set<IpcErrorCode>([
  'invalid_input',
  'not_found',
  'forbidden',
  'busy',
  'config_invalid',
  'keychain_unavailable',
  'hotkey_conflict',
  'timeout',
  'unavailable',
  'internal',
]);

export class IpcError extends Error {
  readonly code: IpcErrorCode;

  constructor(code: IpcErrorCode, message: string) {
    super(message);
    this.name = 'IpcError';
    this.code = code;
  }

  /** Normalises whatever a rejected command produced into an IpcError. */
  static from(reason: unknown): IpcError {
    if (reason instanceof IpcError) return reason;
    if (typeof reason === 'object' && reason !== null) {
      const { code, message } = reason as { code?: unknown; message?: unknown };
      if (typeof code === 'string' && typeof message === 'string') {
        return new IpcError(CODES.has(code) ? (code as IpcErrorCode) : 'internal', message);
      }
    }
    if (reason instanceof Error) return new IpcError('internal', reason.message);
    return new IpcError('internal', String(reason));
  }
}
