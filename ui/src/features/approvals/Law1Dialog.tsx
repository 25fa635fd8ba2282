// The Law 1 dialog: an irreversible action waits for this specific approval. It looks
// unlike every informational card (warning band, Law 1 badge, modal), says what will
// happen in plain words, shows the exact command, and counts down to the automatic
// denial. Enter never approves; Esc denies; every Approve button is armed only after a
// short delay so a click meant for something else cannot land on it. Where the request
// offers them, an approval can reach the rest of the task or always: for an MCP tool, or
// for a class of file changes ("deleting .tmp files under ~/Downloads") the user approved
// often enough. The dialog says exactly what the wider approval would allow.

import type { ReadonlySignal } from '@preact/signals';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

import { t } from '../../i18n';
import type { ApprovalScope, ConfirmationRequest, Decision } from '../../ipc/contracts';
import { clock } from '../../shared/format';
import { Icon } from '../../shared/icons';
import { ErrorText } from '../../shared/widgets';
import { grantWords, law1Text, law1Verb } from './law1-text';
import type { ApprovalsStore } from './store';

/** How long Approve stays disabled after the dialog appears. */
export const ARM_DELAY_MS = 800;

export function Law1Dialog({ approvals, now }: { approvals: ApprovalsStore; now: ReadonlySignal<number> }) {
  const request = approvals.first.value;
  if (!request) return null;
  return (
    <Law1Sheet
      key={request.request_id}
      request={request}
      waiting={approvals.pending.value.length - 1}
      sending={approvals.sending.value[request.request_id] ?? null}
      error={approvals.errors.value[request.request_id]?.message ?? null}
      now={now.value}
      onAnswer={(decision, scope) => void approvals.answer(request.request_id, decision, scope)}
    />
  );
}

export function Law1Sheet({
  request,
  waiting,
  sending,
  error,
  now,
  onAnswer,
}: {
  request: ConfirmationRequest;
  waiting: number;
  sending: Decision | null;
  error: string | null;
  now: number;
  onAnswer: (decision: Decision, scope?: ApprovalScope) => void;
}) {
  const deny = useRef<HTMLButtonElement>(null);
  const [armed, setArmed] = useState(false);
  const expires = Date.parse(request.expires_at);
  // `now` ticks once a second, so it can lag the request's arrival by up to a second;
  // whole seconds of the window, never more than the window, keep the first frame from
  // showing more time than the backend granted.
  const [total] = useState(() => Math.max(1000, Math.floor((expires - now) / 1000) * 1000));
  const remaining = Math.min(total, Math.max(0, expires - now));

  useEffect(() => {
    deny.current?.focus();
    const timer = setTimeout(() => setArmed(true), ARM_DELAY_MS);
    return () => clearTimeout(timer);
  }, []);

  const busy = sending !== null;
  const offersTask = request.scopes.includes('task');
  const always = request.scopes.includes('always');
  const grant = always ? (request.grant ?? null) : null;
  // A class of file changes, when the request offers "always" for it (an MCP tool's grant
  // comes first: a request names one or the other).
  const effectGrant = always && !grant ? (request.effect_grant ?? null) : null;
  const latest = useRef({ busy, onAnswer });
  latest.current = { busy, onAnswer };
  useLayoutEffect(() => {
    // Escape denies wherever focus is — in the dialog, still in the task input, on the
    // pipeline, or nowhere: the dialog is modal. (The popup's own Escape listener leaves
    // an open dialog alone.) Installed before the dialog is painted, so an Escape pressed
    // the moment it appears is not lost.
    const onWindowKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      e.preventDefault();
      if (!latest.current.busy) latest.current.onAnswer('deny');
    };
    window.addEventListener('keydown', onWindowKey);
    return () => window.removeEventListener('keydown', onWindowKey);
  }, []);
  const sheet = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // Focus stays in the dialog while it is open: anything that moves it out (a click
    // on the popup behind, a screen reader's jump) brings it back to Deny.
    const onFocusIn = (e: FocusEvent) => {
      const el = sheet.current;
      if (el && e.target instanceof Node && !el.contains(e.target)) deny.current?.focus();
    };
    document.addEventListener('focusin', onFocusIn);
    return () => document.removeEventListener('focusin', onFocusIn);
  }, []);
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Enter') {
      // Enter never approves, whatever has focus.
      e.preventDefault();
      e.stopPropagation();
    } else if (e.key === 'Tab') {
      // Tab and Shift+Tab cycle through the dialog's own controls.
      const focusable = [...(sheet.current?.querySelectorAll<HTMLElement>('button:not([disabled]), [href], [tabindex]:not([tabindex="-1"])') ?? [])];
      const first = focusable[0];
      const last = focusable.at(-1);
      if (!first || !last) return;
      if (e.shiftKey && document.activeElement === first) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && document.activeElement === last) {
        e.preventDefault();
        first.focus();
      }
    }
  };

  return (
    <div class="law1-backdrop">
      <div
        ref={sheet}
        class="law1"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="law1-title"
        aria-describedby="law1-effect"
        data-testid="law1-dialog"
        onKeyDown={onKeyDown}
      >
        <header class="law1-band">
          <span class="law1-icon">
            <Icon.Warning />
          </span>
          <div class="stack" style={{ gap: '1px' }}>
            <div class="row">
              <h2 id="law1-title">{t('law1.title')}</h2>
              <span class="law1-badge">{t('law1.badge')}</span>
            </div>
            <span class="small">{t('law1.subtitle')}</span>
          </div>
        </header>

        {/* It scrolls when the request is long: focusable (in the Tab cycle), so the
            keyboard can scroll it too. */}
        <div class="law1-body" tabIndex={0} role="group" aria-label={t('law1.details')}>
          <section>
            <h4>{t('law1.effect')}</h4>
            <p id="law1-effect" class="law1-effect selectable" data-testid="law1-effect">
              {law1Text(request.description)}
            </p>
            <p class={`law1-reversibility ${request.reversible ? 'ok' : 'no'}`}>
              {request.reversible ? t('law1.reversible') : t('law1.irreversible')}
            </p>
          </section>

          {request.paths.length > 0 ? (
            <section>
              <h4>{t('law1.paths')}</h4>
              <ul class="law1-paths">
                {request.paths.map((p) => (
                  <li key={p.path}>
                    <span class="law1-verb">{law1Verb(p.effect)}</span>
                    <code class="selectable">{p.path}</code>
                    <span class={`chip ${p.exists ? 'warn' : 'info'}`}>{p.exists ? t('law1.exists') : t('law1.new')}</span>
                  </li>
                ))}
              </ul>
            </section>
          ) : null}

          <section>
            <h4>
              {t('law1.command')} <span class="muted">· {t('law1.tool')}: {request.tool}</span>
            </h4>
            <pre class="law1-command selectable" data-testid="law1-command">
              {request.command}
            </pre>
          </section>

          {request.reversible_alternative ? (
            <p class="small">
              <span class="muted">{t('law1.alternative')}: </span>
              {law1Text(request.reversible_alternative)}
            </p>
          ) : null}

          <div class="law1-countdown" data-testid="law1-countdown">
            <div class="law1-bar">
              <div class="law1-bar-fill" style={{ width: `${(remaining / total) * 100}%` }} />
            </div>
            <div class="row small">
              <span>{remaining > 0 ? t('law1.countdown', { time: clock(remaining) }) : t('law1.expiring')}</span>
              <span class="spacer" />
              <span class="muted">{t('law1.enterHint')}</span>
            </div>
          </div>
          {offersTask ? <p class="small muted">{t('law1.scopeTask')}</p> : null}
          {grant ? (
            <p class="small" data-testid="law1-always-scope">
              {t('law1.scopeAlways', { tool: grant.tool, server: grant.server, origin: grant.origin })}
            </p>
          ) : effectGrant ? (
            <p class="small" data-testid="law1-always-scope">
              {t('law1.scopeAlwaysEffect', { what: grantWords(effectGrant.words) })}
            </p>
          ) : null}
          {busy ? <p class="small muted">{t('law1.sending')}</p> : null}
          {error ? <ErrorText>{error}</ErrorText> : null}
        </div>

        <footer class="law1-actions">
          <span class="spacer" />
          <button ref={deny} type="button" class="btn large" disabled={busy} onClick={() => onAnswer('deny')}>
            {t('law1.deny')}
          </button>
          {request.can_trash ? (
            <button type="button" class="btn large" disabled={busy} onClick={() => onAnswer('trash')}>
              <Icon.Trash />
              {t('law1.trash')}
            </button>
          ) : null}
          <button
            type="button"
            class="btn large destructive"
            disabled={busy || !armed}
            data-testid="law1-approve"
            onClick={() => onAnswer('approve')}
          >
            {t('law1.approve')}
          </button>
          {offersTask ? (
            <button type="button" class="btn large destructive" disabled={busy || !armed} data-testid="law1-approve-task" onClick={() => onAnswer('approve', 'task')}>
              {t('law1.approveTask')}
            </button>
          ) : null}
          {grant || effectGrant ? (
            <button type="button" class="btn large destructive" disabled={busy || !armed} data-testid="law1-approve-always" onClick={() => onAnswer('approve', 'always')}>
              {t('law1.approveAlways')}
            </button>
          ) : null}
        </footer>
        {waiting > 0 ? <p class="law1-more small muted">{t('law1.more', { count: waiting })}</p> : null}
      </div>
    </div>
  );
}

export function ResolvedNotices({ approvals }: { approvals: ApprovalsStore }) {
  const notices = approvals.notices.value;
  if (notices.length === 0) return null;
  return (
    <div class="stack" style={{ gap: '6px' }}>
      {notices.map((n) => (
        <div key={n.requestId} class="callout warn row" role="status">
          <span class="small">
            {n.source === 'timeout' ? t('law1.resolved.timeout') : t('law1.resolved.dropped')} <code>{n.command}</code>
          </span>
          <span class="spacer" />
          <button type="button" class="icon-btn" aria-label={t('common.close')} onClick={() => approvals.dismissNotice(n.requestId)}>
            <Icon.Cross />
          </button>
        </div>
      ))}
    </div>
  );
}
