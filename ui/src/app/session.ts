// One window's state: the backend, every feature store, and the one subscription that
// feeds them. Data flows one way: backend events → stores → views; views only call
// store actions, which call the backend.

import { batch, signal, type ReadonlySignal } from '@preact/signals';

import { createApprovalsStore, type ApprovalsStore } from '../features/approvals/store';
import { createAuditStore, type AuditStore } from '../features/audit/store';
import { createMemoryStore, type MemoryStore } from '../features/memory/store';
import { createModelStore, type ModelStore } from '../features/model/store';
import { createPipelineStore, type PipelineStore } from '../features/pipeline/store';
import { createSettingsStore, type SettingsStore } from '../features/settings/store';
import { createTasksStore, type TasksStore } from '../features/tasks/store';
import { asLocale, locale } from '../i18n';
import type { Backend } from '../ipc/backend';
import type { PanelFocus, PanelTab, SettingsView } from '../ipc/commands';

export interface Navigation {
  tab: PanelTab;
  focus: PanelFocus | null;
  /** Bumped on every request, so asking twice for the same tab still refocuses. */
  serial: number;
}

export interface Session {
  readonly backend: Backend;
  /** Wall clock, ticking once a second (countdowns, elapsed time, ages). */
  readonly now: ReadonlySignal<number>;
  readonly pipeline: PipelineStore;
  readonly approvals: ApprovalsStore;
  readonly memory: MemoryStore;
  readonly audit: AuditStore;
  readonly tasks: TasksStore;
  readonly settings: SettingsStore;
  readonly model: ModelStore;
  readonly navigation: ReadonlySignal<Navigation>;
  /** Envelopes the shell's tap had to skip since this window opened. */
  readonly skipped: ReadonlySignal<number>;
  /** Shows a tab in this window (panels) — the shell's open_panel does it across windows. */
  navigate(tab: PanelTab, focus?: PanelFocus | null): void;
  dispose(): void;
}

export interface SessionOptions {
  now?: () => number;
  tickMs?: number;
}

export function createSession(backend: Backend, options: SessionOptions = {}): Session {
  const clock = options.now ?? (() => Date.now());
  const now = signal(clock());
  const ticker = setInterval(() => {
    now.value = clock();
  }, options.tickMs ?? 1000);
  const navigation = signal<Navigation>({ tab: 'tasks', focus: null, serial: 0 });
  const skipped = signal(0);

  const pipeline = createPipelineStore(backend);
  const approvals = createApprovalsStore(backend);
  const memory = createMemoryStore(backend);
  const audit = createAuditStore(backend);
  const tasks = createTasksStore(backend, pipeline.arrowParams);
  const applySettings = (view: SettingsView) => {
    locale.value = asLocale(view.settings.ui.language);
    pipeline.arrowParams.value = {
      epsilon: view.settings.ggs.epsilon ?? 0.1,
      delta: view.settings.ggs.delta ?? 0.3,
    };
  };
  const settings = createSettingsStore(backend, applySettings);
  const model = createModelStore(backend);

  const unsubscribe = backend.subscribe((event) => {
    batch(() => {
      if (event.kind === 'envelope') {
        pipeline.handle(event.envelope, event.status);
        approvals.handle(event.envelope);
        memory.handle(event.envelope);
        audit.handle(event.envelope);
        tasks.handle(event.envelope);
      } else if (event.kind === 'gap') {
        skipped.value += event.skipped;
        void pipeline.resync().then((envelopes) => {
          if (envelopes) approvals.resync(envelopes);
        });
      } else if (event.kind === 'model') {
        model.handle(event.model);
      } else {
        navigation.value = { tab: event.tab, focus: event.focus, serial: navigation.value.serial + 1 };
      }
    });
  });

  return {
    backend,
    now,
    pipeline,
    approvals,
    memory,
    audit,
    tasks,
    settings,
    model,
    navigation,
    skipped,
    navigate(tab, focus = null) {
      navigation.value = { tab, focus, serial: navigation.value.serial + 1 };
    },
    dispose() {
      clearInterval(ticker);
      unsubscribe();
    },
  };
}
