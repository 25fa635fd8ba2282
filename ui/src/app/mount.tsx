// Picks the backend (the Tauri shell inside the app, the fake in a plain browser), builds
// the window's session and renders the window the URL asks for:
//   index.html?view=popup    the popup window
//   index.html?view=panels   the panels window (#tasks, #memory, #audit, #settings)
//   index.html               the browser preview (both, over the fake backend)
// `?speed=N` runs the fake's scripted tasks N times faster; `?model=first_run` (or
// `unreachable`) starts the fake with no model chosen (or one that does not answer);
// `?lang=zh-CN` starts it in Simplified Chinese.

import { signal } from '@preact/signals';
import { render } from 'preact';

import type { Backend } from '../ipc/backend';
import type { PanelTab } from '../ipc/commands';
import { createSession } from './session';
import { type DeskWindows, PanelsWindow, PopupWindow, PreviewDesk } from './windows';

import '../styles/app.css';
import '../styles/views.css';

const TABS: readonly PanelTab[] = ['tasks', 'memory', 'audit', 'settings'];

export async function mountApp(root: HTMLElement, location: Location): Promise<void> {
  const params = new URLSearchParams(location.search);
  const view = params.get('view');
  const windows: DeskWindows = { popupOpen: signal(true), panelsOpen: signal(false) };

  let backend: Backend;
  const { insideTauri, createTauriBackend } = await import('../ipc/tauri');
  if (insideTauri()) {
    backend = createTauriBackend();
  } else {
    // Loaded only outside the app, so the shipped windows never run the fake.
    const { createFakeBackend } = await import('../ipc/fake');
    const speed = Number(params.get('speed') ?? '1');
    const model = params.get('model');
    backend = createFakeBackend({
      speed: Number.isFinite(speed) && speed > 0 ? speed : 1,
      model: model === 'first_run' || model === 'unreachable' ? model : 'ready',
      language: params.get('lang') === 'zh-CN' ? 'zh-CN' : 'en',
      onWindow: (request) => {
        if (request.kind === 'hide_popup') windows.popupOpen.value = false;
        else windows.panelsOpen.value = true;
      },
    });
  }

  const session = createSession(backend);
  document.documentElement.dataset.view = view ?? 'preview';
  if (view === 'popup') {
    render(<PopupWindow session={session} />, root);
  } else if (view === 'panels') {
    const hash = location.hash.replace('#', '') as PanelTab;
    if (TABS.includes(hash)) session.navigate(hash);
    render(<PanelsWindow session={session} />, root);
  } else {
    render(<PreviewDesk session={session} windows={windows} />, root);
  }
}
