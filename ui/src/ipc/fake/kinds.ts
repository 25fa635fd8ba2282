// "Tasks like this" over the fake's own runs, as src/tasklog/kinds.rs reads the task
// logs: a run counts when it delivered (accepted, success) or failed (abandoned,
// unfinished); a kind with fewer than three counted runs has no history; every figure
// comes from those runs alone. The kind is a simple slug of the user's words (the core's
// task-kind slug needs its vocabulary); nothing here is estimated.

import type { Trajectory } from '../bindings';
import type { DeliveryTrend, KindHistory, TaskRun } from '../commands';

/** Fewer counted runs than this and a kind has no history to show. */
export const MIN_RUNS = 3;
/** The `k` of pass^k. */
export const PASS_K = 3;
/** Runs a kind needs before a trend is shown, and the change in delivery rate that counts. */
const TREND_RUNS = 6;
const TREND_STEP = 0.2;
const MAX_REASON_CHARS = 160;

/** One counted run, as the history reads it. */
export interface CountedRun {
  kind: string;
  words: string;
  started_at: string;
  delivered: boolean;
  ms: number;
  model_calls: number;
  failure: string | null;
}

/** The kind of a request: its lower-cased words, digits and punctuation dropped. */
export function taskKind(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\s]+/gu, ' ')
    .split(/\s+/u)
    .filter((w) => w.length > 0)
    .join('-');
}

/** The run as the history counts it; null for a run that does not count. */
export function counted(run: TaskRun, trajectory: Trajectory | null): CountedRun | null {
  let delivered: boolean;
  switch (run.status) {
    case 'accepted':
    case 'success':
      delivered = true;
      break;
    case 'abandoned':
    case 'unfinished':
      delivered = false;
      break;
    default:
      return null;
  }
  const words = run.raw_input || run.intent || '';
  if (words.trim().length === 0) return null;
  const summary = trajectory?.final_result?.summary;
  const failure = delivered
    ? null
    : summary === undefined
      ? 'the recording stopped before the task ended'
      : [...(summary.split('\n')[0] ?? '').replace(/^(\[LAW1\])+/, '').trim()].slice(0, MAX_REASON_CHARS).join('');
  return {
    kind: taskKind(words),
    words,
    started_at: run.started_at,
    delivered,
    ms: trajectory?.elapsed_ms ?? 0,
    model_calls: (trajectory?.usage.role_stats ?? []).reduce((sum, s) => sum + s.calls, 0),
    failure,
  };
}

/** The median of `values` (the lower middle of an even count); 0 for none. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(Math.max(0, sorted.length - 1) / 2)] ?? 0;
}

/** C(n, k). */
export function choose(n: number, k: number): number {
  if (k > n) return 0;
  let out = 1;
  for (let i = 0; i < k; i++) out = (out * (n - i)) / (i + 1);
  return out;
}

/** The delivery rate's trend from the older half of `runs` (oldest first) to the newer. */
function trend(runs: CountedRun[]): DeliveryTrend | null {
  if (runs.length < TREND_RUNS) return null;
  const half = Math.floor(runs.length / 2);
  const rate = (part: CountedRun[]) => part.filter((r) => r.delivered).length / part.length;
  const change = rate(runs.slice(runs.length - half)) - rate(runs.slice(0, half));
  return change >= TREND_STEP ? 'better' : change <= -TREND_STEP ? 'worse' : 'steady';
}

/** The history of `runs`, all of one kind; null with fewer than MIN_RUNS. */
export function history(runs: CountedRun[]): KindHistory | null {
  if (runs.length < MIN_RUNS) return null;
  const sorted = [...runs].sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at));
  const newest = sorted[sorted.length - 1] as CountedRun;
  const delivered = sorted.filter((r) => r.delivered).length;
  return {
    kind: newest.kind,
    example: newest.words,
    runs: sorted.length,
    delivered,
    typical_ms: median(sorted.map((r) => r.ms)),
    typical_model_calls: median(sorted.map((r) => r.model_calls)),
    pass_k: choose(delivered, PASS_K) / choose(sorted.length, PASS_K),
    trend: trend(sorted),
    last_failure: [...sorted].reverse().find((r) => r.failure !== null)?.failure ?? null,
    last_run_at: newest.started_at,
  };
}

/** How tasks of the kind `text` asks for went; null with fewer than MIN_RUNS of them. */
export function like(runs: CountedRun[], text: string): KindHistory | null {
  const kind = taskKind(text);
  return history(runs.filter((r) => r.kind === kind));
}

/** Every kind with enough history, the most recently run first. */
export function byKind(runs: CountedRun[]): KindHistory[] {
  const kinds = new Map<string, CountedRun[]>();
  for (const r of runs) kinds.set(r.kind, [...(kinds.get(r.kind) ?? []), r]);
  return [...kinds.values()]
    .flatMap((of) => history(of) ?? [])
    .sort((a, b) => Date.parse(b.last_run_at) - Date.parse(a.last_run_at));
}

/** The one line shown before a task of this kind runs, as the core writes it. */
export function likeLine(h: KindHistory, lang: 'en' | 'zh-CN'): string {
  const s = Math.ceil(h.typical_ms / 1000);
  const minutes = s >= 90;
  const n = minutes ? Math.floor((s + 30) / 60) : s;
  if (lang === 'zh-CN') {
    const why = h.last_failure === null ? '' : `；上次失败：${h.last_failure}`;
    return `本机同类任务：${h.runs} 次中 ${h.delivered} 次给出了答案，通常约 ${n} ${minutes ? '分钟' : '秒'}、${h.typical_model_calls} 次模型调用${why}`;
  }
  const why = h.last_failure === null ? '' : `; the last failure: ${h.last_failure}`;
  return `Tasks like this here: ${h.delivered} of ${h.runs} delivered an answer, usually in about ${n} ${minutes ? 'min' : 's'} and ${h.typical_model_calls} model calls${why}`;
}
