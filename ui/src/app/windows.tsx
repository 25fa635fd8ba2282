// The two windows of the app — the popup and the panels — as components over a Session,
// and the browser preview that shows both on a simulated macOS desktop.

import { useEffect, useState } from 'preact/hooks';

import { AuditPanel } from '../features/audit/AuditPanel';
import { MemoryPanel } from '../features/memory/MemoryPanel';
import { Popup } from '../features/popup/Popup';
import { SettingsPanel } from '../features/settings/SettingsPanel';
import { TasksPanel } from '../features/tasks/TasksPanel';
import { t } from '../i18n';
import type { PanelFocus, PanelTab } from '../ipc/commands';
import { Icon } from '../shared/icons';
import { Segmented } from '../shared/widgets';
import type { Session } from './session';

export function PopupWindow({ session }: { session: Session }) {
  useEffect(() => {
    void session.settings.load();
    void session.model.load();
    void session.tasks.runs.load().then(() => {
      session.pipeline.seedHistory((session.tasks.runs.value.value ?? []).map((r) => r.raw_input));
    });
  }, [session]);
  return (
    <Popup
      pipeline={session.pipeline}
      recent={session.tasks.runs.value.value}
      approvals={session.approvals}
      model={session.model}
      settings={session.settings}
      now={session.now}
      skipped={session.skipped}
      openPanel={(tab, focus) => void session.backend.invoke('open_panel', { tab, focus })}
      hide={() => void session.backend.invoke('hide_popup', {})}
      sandbox={session.settings.view.value.value?.sandbox ?? null}
      undo={session.tasks.undo}
      tasksLike={session.tasks.like}
    />
  );
}

const PANEL_TABS: readonly PanelTab[] = ['tasks', 'memory', 'audit', 'settings'];

export function PanelsWindow({ session, chrome }: { session: Session; chrome?: { onClose: () => void } }) {
  const nav = session.navigation.value;
  useEffect(() => {
    void session.settings.load();
    // ⌘1…⌘4 switch tabs, as in every tabbed macOS window.
    const onKey = (e: KeyboardEvent) => {
      const tab = PANEL_TABS[Number(e.key) - 1];
      if ((e.metaKey || e.ctrlKey) && !e.altKey && tab) {
        e.preventDefault();
        session.navigate(tab);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [session]);
  const focus: PanelFocus | null = nav.focus;
  const tabs = [
    { id: 'tasks' as const, label: t('panels.tab.tasks'), icon: <Icon.Tasks /> },
    { id: 'memory' as const, label: t('panels.tab.memory'), icon: <Icon.Memory /> },
    { id: 'audit' as const, label: t('panels.tab.audit'), icon: <Icon.Audit /> },
    { id: 'settings' as const, label: t('panels.tab.settings'), icon: <Icon.Settings /> },
  ];
  const now = session.now.value;
  return (
    <div class="panels" data-testid="panels" data-tab={nav.tab}>
      <header class="titlebar" data-tauri-drag-region>
        {chrome ? (
          <span class="traffic">
            <button type="button" class="light close" aria-label={t('common.close')} onClick={chrome.onClose} />
            <span class="light min" />
            <span class="light max" />
          </span>
        ) : (
          // Room for the native traffic lights of an overlay title bar.
          <span class="traffic" />
        )}
        <span class="spacer" />
        <Segmented<PanelTab> options={tabs} value={nav.tab} onChange={(tab) => session.navigate(tab)} label={t('panels.title')} />
        <span class="spacer" />
      </header>
      <div class="panel-body">
        {nav.tab === 'tasks' ? <TasksPanel tasks={session.tasks} now={session.now} focusTask={focus?.kind === 'task' ? focus.task_id : null} /> : null}
        {nav.tab === 'memory' ? <MemoryPanel memory={session.memory} now={now} focus={focus?.kind === 'group' ? { space: focus.space, entity: focus.entity } : null} /> : null}
        {nav.tab === 'audit' ? <AuditPanel audit={session.audit} now={now} focusReport={focus?.kind === 'report' ? focus.report_id : null} /> : null}
        {nav.tab === 'settings' ? <SettingsPanel settings={session.settings} test={session.model.test} /> : null}
      </div>
    </div>
  );
}

/**
 * The browser preview: a menu bar with artoo's tray icon, the popup hanging from it and
 * the panels window — both over one fake backend, as the desktop shell would show them.
 */
export function PreviewDesk({ session, windows }: { session: Session; windows: DeskWindows }) {
  const popupOpen = windows.popupOpen.value;
  const panelsOpen = windows.panelsOpen.value;
  const [clockText] = useState(() => new Intl.DateTimeFormat('en', { weekday: 'short', hour: 'numeric', minute: '2-digit' }).format(new Date(session.now.value)));
  return (
    <div class="desk">
      <div class="menubar">
        <span class="apple"></span>
        <strong>Finder</strong>
        <span>File</span>
        <span>Edit</span>
        <span>View</span>
        <span class="spacer" />
        <button type="button" class={`tray ${popupOpen ? 'open' : ''}`} aria-label="artoo" aria-expanded={popupOpen} data-testid="tray" onClick={() => (windows.popupOpen.value = !popupOpen)}>
          <img src="./tray.png" alt="" width={18} height={18} />
          {session.approvals.first.value ? <span class="tray-badge" /> : null}
        </button>
        <span>{clockText}</span>
      </div>
      {panelsOpen ? (
        <div class="desk-window">
          <PanelsWindow session={session} chrome={{ onClose: () => (windows.panelsOpen.value = false) }} />
        </div>
      ) : null}
      {popupOpen ? (
        <div class="desk-popover">
          <PopupWindow session={session} />
        </div>
      ) : null}
    </div>
  );
}

export interface DeskWindows {
  popupOpen: { value: boolean };
  panelsOpen: { value: boolean };
}
