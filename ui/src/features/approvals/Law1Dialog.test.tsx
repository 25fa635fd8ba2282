import { fireEvent, render, screen } from '@testing-library/preact';
import { signal } from '@preact/signals';
import { afterEach, describe, expect, it, vi } from 'vitest';

import type { Backend } from '../../ipc/backend';
import type { ConfirmationRequest, Envelope } from '../../ipc/contracts';
import { locale } from '../../i18n';
import { harness, type Harness, T0, TASK } from '../../test-util';
import { ARM_DELAY_MS, Law1Dialog } from './Law1Dialog';
import LINES from './law1-lines.json';
import { createApprovalsStore } from './store';

const REQUEST: ConfirmationRequest = {
  request_id: 'r-1',
  task_id: 'task_1',
  subtask_id: null,
  tool: 'write_file',
  description: 'Overwrite ~/notes.txt (it exists).',
  command: 'write_file ~/notes.txt',
  paths: [{ path: '~/notes.txt', exists: true, effect: 'overwrite' }],
  reversible: false,
  reversible_alternative: null,
  can_trash: false,
  expires_at: new Date(T0 + 90_000).toISOString(),
  scopes: ['once'],
};

/** An MCP tool's request: every scope offered, `always` naming exactly one tool. */
const MCP_REQUEST: ConfirmationRequest = {
  ...REQUEST,
  request_id: 'r-2',
  tool: 'files.write_file',
  description: 'whatever `write_file` of the MCP server `files` does',
  command: 'files.write_file {"path":"/w/notes.txt","content":"x"}',
  paths: [],
  scopes: ['once', 'task', 'always'],
  grant: { server: 'files', origin: 'npx -y @modelcontextprotocol/server-filesystem /w', tool: 'write_file', fingerprint: 'ab12' },
};

/** A deletion of a class of file changes the user approved often enough: "always" is
 * offered for the class, in its words. */
const EFFECT_REQUEST: ConfirmationRequest = {
  ...REQUEST,
  request_id: 'r-3',
  tool: 'delete_file',
  description: 'Delete ~/Downloads/a.tmp (exists)',
  command: 'delete_file ~/Downloads/a.tmp',
  paths: [{ path: '~/Downloads/a.tmp', exists: true, effect: 'delete' }],
  scopes: ['once', 'task', 'always'],
  effect_grant: { effect: 'delete', place: '/home/u/Downloads', extension: 'tmp', words: 'deleting .tmp files under ~/Downloads' },
};

function envelope(seq: number, message: Envelope['message']): Envelope {
  return { id: `e${seq}`, seq, timestamp: new Date(T0).toISOString(), from: 'R3', to: 'User', task_id: 'task_1', message };
}

describe('the Law 1 dialog', () => {
  let h: Harness | undefined;
  afterEach(() => {
    h?.dispose();
    h = undefined;
    vi.useRealTimers();
  });

  function renderWith(backend: Backend) {
    vi.useFakeTimers({ now: T0 });
    const approvals = createApprovalsStore(backend);
    const now = signal(T0);
    render(<Law1Dialog approvals={approvals} now={now} />);
    return { approvals, now };
  }

  /** Shows `REQUEST` changed by `change` with nothing behind the dialog. */
  async function show(change: Partial<ConfirmationRequest>) {
    const { approvals } = renderWith({ invoke: vi.fn(), subscribe: () => () => undefined } as unknown as Backend);
    approvals.handle(envelope(1, { type: 'ConfirmationRequest', payload: { ...REQUEST, ...change } }));
    await vi.advanceTimersByTimeAsync(20);
  }

  it('states the effect, the paths and the exact command, with Deny focused and no Trash for an overwrite', async () => {
    const { approvals } = renderWith({ invoke: vi.fn(), subscribe: () => () => undefined } as unknown as Backend);
    approvals.handle(envelope(1, { type: 'ConfirmationRequest', payload: REQUEST }));
    await vi.advanceTimersByTimeAsync(20);
    const dialog = screen.getByRole('alertdialog');
    expect(screen.getByTestId('law1-effect').textContent).toBe('Overwrite ~/notes.txt (it exists).');
    expect(screen.getByTestId('law1-command').textContent).toBe('write_file ~/notes.txt');
    expect(dialog.textContent).toContain('overwrite');
    expect(dialog.textContent).toContain('Cannot be undone');
    expect(screen.queryByText('Move to Trash')).toBeNull();
    expect(document.activeElement?.textContent).toBe('Deny');
    expect(screen.getByTestId('law1-countdown').textContent).toContain('1:30');
  });

  it('never shows more time than the request grants when the clock it reads lags the arrival', async () => {
    const { approvals, now } = renderWith({ invoke: vi.fn(), subscribe: () => () => undefined } as unknown as Backend);
    // The request was made 0.6 s after the last tick of `now`.
    approvals.handle(envelope(1, { type: 'ConfirmationRequest', payload: { ...REQUEST, expires_at: new Date(T0 + 600 + 90_000).toISOString() } }));
    await vi.advanceTimersByTimeAsync(20);
    expect(screen.getByTestId('law1-countdown').textContent).toContain('1:30');
    now.value = T0 + 1_600;
    await vi.advanceTimersByTimeAsync(20);
    expect(screen.getByTestId('law1-countdown').textContent).toContain('1:29');
  });

  it('never approves on Enter, arms Approve only after a delay, and denies on Escape', async () => {
    const invoke = vi.fn().mockResolvedValue(null);
    const { approvals } = renderWith({ invoke, subscribe: () => () => undefined } as unknown as Backend);
    approvals.handle(envelope(1, { type: 'ConfirmationRequest', payload: REQUEST }));
    await vi.advanceTimersByTimeAsync(20);
    const approve = screen.getByTestId('law1-approve') as HTMLButtonElement;
    expect(approve.disabled).toBe(true);
    await vi.advanceTimersByTimeAsync(ARM_DELAY_MS);
    expect(approve.disabled).toBe(false);
    approve.focus();
    fireEvent.keyDown(approve, { key: 'Enter' });
    expect(invoke).not.toHaveBeenCalled();
    fireEvent.keyDown(approve, { key: 'Escape' });
    expect(invoke).toHaveBeenCalledWith('answer_confirmation', { request_id: 'r-1', decision: 'deny', scope: null });
  });

  it('offers wider approvals only where the request does, says what they allow, and never takes one on Enter', async () => {
    const invoke = vi.fn().mockResolvedValue(null);
    const { approvals } = renderWith({ invoke, subscribe: () => () => undefined } as unknown as Backend);
    approvals.handle(envelope(1, { type: 'ConfirmationRequest', payload: REQUEST }));
    await vi.advanceTimersByTimeAsync(20);
    expect(screen.queryByTestId('law1-approve-task')).toBeNull();
    expect(screen.queryByTestId('law1-approve-always')).toBeNull();
    approvals.handle(envelope(2, { type: 'ConfirmationDecision', payload: { request_id: 'r-1', task_id: 'task_1', decision: 'deny', source: 'user', scope: 'once' } }));
    approvals.handle(envelope(3, { type: 'ConfirmationRequest', payload: MCP_REQUEST }));
    await vi.advanceTimersByTimeAsync(20);
    const always = screen.getByTestId('law1-approve-always') as HTMLButtonElement;
    const task = screen.getByTestId('law1-approve-task') as HTMLButtonElement;
    expect([always.disabled, task.disabled]).toEqual([true, true]);
    expect(screen.getByTestId('law1-always-scope').textContent).toBe(
      '“Always allow” lets write_file of the MCP server files (npx -y @modelcontextprotocol/server-filesystem /w) run without asking in every task, while its definition stays the same, until you revoke it in Settings.',
    );
    await vi.advanceTimersByTimeAsync(ARM_DELAY_MS);
    always.focus();
    fireEvent.keyDown(always, { key: 'Enter' });
    expect(invoke).not.toHaveBeenCalled();
    fireEvent.click(always);
    expect(invoke).toHaveBeenCalledWith('answer_confirmation', { request_id: 'r-2', decision: 'approve', scope: 'always' });
  });

  it('offers "always" for a class of file changes only when the request does, in its words, and answers approve / always', async () => {
    const invoke = vi.fn().mockResolvedValue(null);
    const { approvals } = renderWith({ invoke, subscribe: () => () => undefined } as unknown as Backend);
    // The class is named, but "always" is not offered yet (too few approvals of it).
    approvals.handle(envelope(1, { type: 'ConfirmationRequest', payload: { ...EFFECT_REQUEST, scopes: ['once', 'task'] } }));
    await vi.advanceTimersByTimeAsync(20);
    expect(screen.getByTestId('law1-approve-task')).toBeTruthy();
    expect(screen.queryByTestId('law1-approve-always')).toBeNull();
    expect(screen.queryByTestId('law1-always-scope')).toBeNull();
    expect(screen.getByRole('alertdialog').textContent).not.toContain('deleting .tmp files under ~/Downloads');
    approvals.handle(envelope(2, { type: 'ConfirmationDecision', payload: { request_id: 'r-3', task_id: 'task_1', decision: 'deny', source: 'user', scope: 'once' } }));
    approvals.handle(envelope(3, { type: 'ConfirmationRequest', payload: { ...EFFECT_REQUEST, request_id: 'r-4' } }));
    await vi.advanceTimersByTimeAsync(20);
    expect(screen.getByTestId('law1-always-scope').textContent).toBe(
      '“Always allow” lets deleting .tmp files under ~/Downloads happen without asking in every task, until you revoke it in Settings. It still asks for anything outside your home folder and workspace, for credentials and version-control data, and after a task read text from the web.',
    );
    const always = screen.getByTestId('law1-approve-always') as HTMLButtonElement;
    expect(always.textContent).toBe('Always allow');
    expect(always.disabled).toBe(true);
    await vi.advanceTimersByTimeAsync(ARM_DELAY_MS);
    expect(always.disabled).toBe(false);
    fireEvent.keyDown(always, { key: 'Enter' });
    expect(invoke).not.toHaveBeenCalled();
    fireEvent.click(always);
    expect(invoke).toHaveBeenCalledTimes(1);
    expect(invoke).toHaveBeenCalledWith('answer_confirmation', { request_id: 'r-4', decision: 'approve', scope: 'always' });
  });

  it("says an MCP tool's grant, not a class of changes, when a request names both", async () => {
    await show({ ...MCP_REQUEST, effect_grant: EFFECT_REQUEST.effect_grant });
    const line = screen.getByTestId('law1-always-scope').textContent ?? '';
    expect(line).toContain('write_file of the MCP server files');
    expect(line).not.toContain('.tmp');
    expect(screen.getAllByTestId('law1-approve-always')).toHaveLength(1);
  });

  it('says the class of changes in Chinese, the folder kept verbatim', async () => {
    locale.value = 'zh-CN';
    try {
      await show(EFFECT_REQUEST);
      expect(screen.getByTestId('law1-always-scope').textContent).toBe(
        '“始终允许”后，删除 ~/Downloads 下的 .tmp 文件在每个任务中都不再询问，直到你在设置中撤销。主文件夹和工作区之外的内容、凭据和版本控制数据仍然会询问，任务读取过网页文字之后也仍然会询问。',
      );
      expect(screen.getByTestId('law1-approve-always').textContent).toBe('始终允许');
    } finally {
      locale.value = 'en';
    }
  });

  it('denies once on Escape pressed inside the dialog', async () => {
    const invoke = vi.fn().mockResolvedValue(null);
    const { approvals } = renderWith({ invoke, subscribe: () => () => undefined } as unknown as Backend);
    approvals.handle(envelope(1, { type: 'ConfirmationRequest', payload: REQUEST }));
    await vi.advanceTimersByTimeAsync(20);
    fireEvent.keyDown(screen.getByRole('alertdialog'), { key: 'Escape' });
    expect(invoke).toHaveBeenCalledTimes(1);
  });

  it('denies on Escape while focus is still outside the dialog', async () => {
    const invoke = vi.fn().mockResolvedValue(null);
    const { approvals } = renderWith({ invoke, subscribe: () => () => undefined } as unknown as Backend);
    const input = document.createElement('textarea');
    document.body.appendChild(input);
    try {
      approvals.handle(envelope(1, { type: 'ConfirmationRequest', payload: REQUEST }));
      await vi.advanceTimersByTimeAsync(20);
      input.focus();
      fireEvent.keyDown(input, { key: 'Escape' });
      expect(invoke).toHaveBeenCalledTimes(1);
      expect(invoke).toHaveBeenCalledWith('answer_confirmation', { request_id: 'r-1', decision: 'deny', scope: null });
    } finally {
      input.remove();
    }
  });

  it('keeps the dialog up until the decision is on the bus (never optimistic)', async () => {
    h = harness();
    const s = h.session;
    render(<Law1Dialog approvals={s.approvals} now={s.now} />);
    await h.fake.invoke('submit_task', { text: TASK });
    await h.until(() => screen.queryByTestId('law1-dialog'));
    await h.advance(ARM_DELAY_MS + 20);
    fireEvent.click(screen.getByTestId('law1-approve'));
    await h.advance(50);
    expect(screen.getByTestId('law1-dialog').textContent).toContain('Sending your decision');
    expect(h.fake.transcript().some((e) => e.message.type === 'ConfirmationDecision')).toBe(false);
    await h.advance(200);
    expect(screen.queryByTestId('law1-dialog')).toBeNull();
    const decision = h.fake.transcript().find((e) => e.message.type === 'ConfirmationDecision');
    expect(decision?.message.type === 'ConfirmationDecision' && decision.message.payload).toMatchObject({ decision: 'approve', source: 'user' });
  });

  it('stays up with the error when the decision cannot be delivered', async () => {
    const invoke = vi.fn().mockRejectedValue({ code: 'not_found', message: 'this confirmation was already answered or has expired' });
    const { approvals } = renderWith({ invoke, subscribe: () => () => undefined } as unknown as Backend);
    approvals.handle(envelope(1, { type: 'ConfirmationRequest', payload: REQUEST }));
    await vi.advanceTimersByTimeAsync(20 + ARM_DELAY_MS);
    fireEvent.click(screen.getByTestId('law1-approve'));
    await vi.advanceTimersByTimeAsync(0);
    expect(screen.getByRole('alertdialog')).toBeTruthy();
    expect(screen.getByRole('alert').textContent).toBe('this confirmation was already answered or has expired');
  });

  it('counts down and reports an automatic denial once the broker times out', async () => {
    h = harness();
    const s = h.session;
    render(<Law1Dialog approvals={s.approvals} now={s.now} />);
    await h.fake.invoke('submit_task', { text: TASK });
    await h.until(() => screen.queryByTestId('law1-dialog'));
    await h.advance(60_000);
    expect(screen.getByTestId('law1-countdown').textContent).toMatch(/Denied automatically in 1:0\d/);
    await h.advance(61_000);
    expect(screen.queryByTestId('law1-dialog')).toBeNull();
    expect(s.approvals.notices.value[0]?.source).toBe('timeout');
  });

  it('keeps focus inside while open: Tab wraps through the request and the buttons, and focus that leaves comes back to Deny', async () => {
    const outside = document.createElement('button');
    outside.textContent = 'outside';
    document.body.appendChild(outside);
    const { approvals } = renderWith({ invoke: vi.fn(), subscribe: () => () => undefined } as unknown as Backend);
    approvals.handle(envelope(1, { type: 'ConfirmationRequest', payload: { ...REQUEST, can_trash: true } }));
    await vi.advanceTimersByTimeAsync(ARM_DELAY_MS + 20);
    // The request itself comes first (it scrolls when long), then the buttons.
    const first = screen.getByRole('group', { name: 'The request in full' });
    const last = [...screen.getByRole('alertdialog').querySelectorAll('button')].at(-1) as HTMLButtonElement;
    last.focus();
    fireEvent.keyDown(last, { key: 'Tab' });
    expect(document.activeElement).toBe(first);
    fireEvent.keyDown(first, { key: 'Tab', shiftKey: true });
    expect(document.activeElement).toBe(last);
    outside.focus();
    expect(document.activeElement?.textContent).toBe('Deny');
    outside.remove();
  });

  it("speaks Chinese: the core's effect lines, verbs and safer option, paths kept verbatim", async () => {
    locale.value = 'zh-CN';
    try {
      await show({
        description: 'Delete ~/Downloads/a.pkg (exists) — by `rm ~/Downloads/a.pkg`\nOverwrite ~/notes.txt (does not exist yet)',
        paths: [{ path: '~/Downloads/a.pkg', exists: true, effect: 'delete' }],
        reversible_alternative: 'Move them to the Trash instead (they can be put back).',
      });
      expect(screen.getByTestId('law1-effect').textContent).toBe('删除 ~/Downloads/a.pkg（已存在）——由 `rm ~/Downloads/a.pkg` 执行\n覆盖 ~/notes.txt（尚不存在）');
      const dialog = screen.getByRole('alertdialog');
      expect(dialog.textContent).toContain('删除');
      expect(dialog.textContent).toContain('改为移到废纸篓（之后可以放回）。');
      expect(document.documentElement.lang).toBe('zh-CN');
    } finally {
      locale.value = 'en';
    }
    expect(document.documentElement.lang).toBe('en');
  });

  it('speaks Chinese on every kind of line the core writes, in one request', async () => {
    locale.value = 'zh-CN';
    try {
      await show({
        description: LINES.lines.join('\n'),
        paths: LINES.verbs.map((effect, i) => ({ path: `/home/u/f${i}`, exists: true, effect })),
        reversible_alternative: LINES.alternatives.join(' '),
      });
      const dialog = screen.getByRole('alertdialog').textContent ?? '';
      // Quoted commands and paths stay as written; no English sentence is left.
      const prose = dialog.replace(/`[^`]*`/g, ' ').replace(/"[^"]*"/g, ' ').replace(/\S*\/\S*/g, ' ');
      expect(prose).not.toMatch(/[A-Za-z]+[\s,;:.]+[A-Za-z]+[\s,;:.]+[A-Za-z]+/);
      for (const line of LINES.lines) {
        for (const quoted of line.match(/`[^`]*`/g) ?? []) expect(dialog).toContain(quoted);
      }
    } finally {
      locale.value = 'en';
    }
  });
});
