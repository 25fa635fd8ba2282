// "Undo this task" on a finished task that changed files: the core's checked plan is
// shown first (each change it takes back, and what it cannot), and nothing changes until
// the user confirms. A refusal (a file changed since) says which file and why.

import { useState } from 'preact/hooks';

import { t, tn } from '../../i18n';
import { IpcError } from '../../ipc/backend';
import type { UndoDone, UndoPreview, UndoStep } from '../../ipc/commands';
import { ErrorText } from '../../shared/widgets';

/** What the Undo button asks of the core: the checked plan, then the undo itself. */
export interface UndoActions {
  preview(taskId: string): Promise<UndoPreview>;
  apply(taskId: string): Promise<UndoDone>;
}

type State =
  | { kind: 'idle' }
  | { kind: 'loading' }
  | { kind: 'preview'; preview: UndoPreview }
  | { kind: 'applying'; preview: UndoPreview }
  | { kind: 'done'; count: number; undoId: string }
  | { kind: 'refused'; why: string };

/** One step of the plan, in the UI's language. */
export function stepText(step: UndoStep): string {
  switch (step.kind) {
    case 'remove':
      return t('undo.step.remove', { path: step.path });
    case 'cut':
      return t('undo.step.cut', { path: step.path, bytes: step.bytes });
    case 'put_back':
      return t('undo.step.putBack', { path: step.path });
    case 'restore':
      return t('undo.step.restore', { path: step.path });
    case 'move_back':
      return t('undo.step.moveBack', { path: step.path, to: step.to });
    case 'permissions':
      return t('undo.step.permissions', { path: step.path, mode: step.mode });
    case 'owner':
      return t('undo.step.owner', { path: step.path });
  }
}

export function UndoTask({ taskId, undo }: { taskId: string; undo: UndoActions }) {
  const [state, setState] = useState<State>({ kind: 'idle' });

  const show = async () => {
    setState({ kind: 'loading' });
    try {
      const preview = await undo.preview(taskId);
      if (preview.refused) setState({ kind: 'refused', why: preview.refused });
      else if (preview.steps.length === 0) setState({ kind: 'refused', why: t('undo.nothing') });
      else setState({ kind: 'preview', preview });
    } catch (reason) {
      setState({ kind: 'refused', why: IpcError.from(reason).message });
    }
  };

  const confirm = async (preview: UndoPreview) => {
    setState({ kind: 'applying', preview });
    try {
      const done = await undo.apply(taskId);
      setState({ kind: 'done', count: done.count, undoId: done.undo_id });
    } catch (reason) {
      setState({ kind: 'refused', why: IpcError.from(reason).message });
    }
  };

  if (state.kind === 'idle' || state.kind === 'loading') {
    return (
      <button type="button" class="btn plain" data-testid="undo" disabled={state.kind === 'loading'} onClick={() => void show()}>
        {t('undo.button')}
      </button>
    );
  }
  if (state.kind === 'done') {
    return (
      <p class="small" role="status" data-testid="undo-done">
        {tn('undo.done', state.count, { id: state.undoId })}
      </p>
    );
  }
  if (state.kind === 'refused') {
    return (
      <div data-testid="undo-refused" role="status">
        <ErrorText>{t('undo.refused', { why: state.why })}</ErrorText>
      </div>
    );
  }
  const { preview } = state;
  return (
    <div class="undo-plan" data-testid="undo-plan">
      <h4>{t('undo.title')}</h4>
      <ul class="selectable">
        {preview.steps.map((s, i) => (
          <li key={i}>{stepText(s)}</li>
        ))}
      </ul>
      {preview.lasting.length > 0 ? (
        <div>
          <h4>{t('undo.lasting')}</h4>
          <ul class="selectable small" data-testid="undo-lasting">
            {preview.lasting.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <p class="row">
        <button type="button" class="btn" data-testid="undo-confirm" disabled={state.kind === 'applying'} onClick={() => void confirm(preview)}>
          {t('undo.confirm')}
        </button>
        <button type="button" class="btn plain" disabled={state.kind === 'applying'} onClick={() => setState({ kind: 'idle' })}>
          {t('common.cancel')}
        </button>
      </p>
    </div>
  );
}
