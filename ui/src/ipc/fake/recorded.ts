// The runs the fake backend plays: golden recordings of the real runtime, blessed by the
// Rust test `golden::the_golden_transcripts_are_what_the_runtime_sends`.
//   tests/fixtures/transcripts/<scenario>.json  the bus traffic, with the core's lines
//   tests/fixtures/recorded/<scenario>.json     what the runtime recorded of the run: the
//                                               task log's row and fold (`Trajectory`),
//                                               the auditor's chain, the memory store
//                                               and its operator API's answers
// A recording is normalised: ids numbered in order of appearance, the audit chain's
// hashes numbered apart, every time on a clock that stood at 2026-01-01T00:00:00Z, wall
// times 0, the temporary home as `$TMP/home`. The fake gives each played run fresh ids,
// fresh hashes and its own clock; it invents no traffic.

import type { AnomalyKind, Potentials, RunStatus, Trajectory } from '../bindings';
import type { AuditReport, Level, Loss, Megram, MegramId, Role } from '../contracts';
import type { DescribedEnvelope, TaskRun } from '../commands';
import { IdMint, iso } from './support';

/** The task log's row of a recorded run (`RunSummary` in src/tasklog). */
export interface RecordedSummary {
  run_id: string;
  task_id: string;
  raw_input: string | null;
  intent: string | null;
  started_at: string;
  ended_at: string | null;
  status: RunStatus;
  replans: number;
  loss: Loss | null;
  law1: boolean;
}

/** One entry of the auditor's hash-chained log (`AuditEvent` in src/auditor). */
export interface RecordedAuditEvent {
  seq: number;
  at: string;
  kind: string;
  from?: Role;
  to?: Role;
  task_id?: string;
  envelope_id?: string;
  detail: string;
  anomalies?: { kind: AnomalyKind; description: string }[];
  prev: string;
  hash: string;
}

/** What the auditor recorded of a run: its log, its reports, its own check of the chain
 * (the recorder refuses a broken one), and the two on-demand queries after the run with
 * their reports (both over the window the run fell in). */
export interface RecordedAudit {
  events: RecordedAuditEvent[];
  reports: AuditReport[];
  verify: { broken: null; events: number; head: { hash: string; next_seq: number } };
  asked: DescribedEnvelope[];
}

/** A memory group as the store summarises it (`GroupSummary` in src/memory). */
export interface RecordedGroupSummary {
  space: string;
  entity: string;
  potentials: Potentials;
  levels: { m: number; k: number; c: number; t: number };
  newest: string;
  consolidated: number;
}

/** One Megram of a group with its live contributions (`MegramView` in src/memory). */
export interface RecordedMegramView {
  megram: Megram;
  attention: number;
  decision: number;
  counted: boolean;
  consolidated_into: MegramId | null;
}

export interface RecordedGroup {
  group: RecordedGroupSummary;
  megrams: RecordedMegramView[];
}

/** One call of the memory operator API after the run: what it returned or its error,
 * and its group afterwards (null once the group is empty). */
export type RecordedStep = (
  | { action: 'remember'; level: Level; space: string; entity: string }
  | { action: 'pin'; id: MegramId }
  | { action: 'forget'; id: MegramId }
) & {
  result: { ok: unknown } | { error: string };
  after: RecordedGroup | null;
};

export interface RecordedRun {
  summary: RecordedSummary;
  trajectory: Trajectory;
  audit: RecordedAudit;
  memory: RecordedGroup[];
  /** The steps, and the operator changes they published on the bus. */
  operator: { steps: RecordedStep[]; changes: DescribedEnvelope[] };
}

export interface Recording {
  name: ScenarioName;
  transcript: readonly DescribedEnvelope[];
  run: RecordedRun;
}

export type ScenarioName =
  | 'greeting'
  | 'list_workspace'
  | 'clarify'
  | 'abandon'
  | 'replan_law1'
  | 'replan_law1_denied'
  | 'replan_law1_trashed'
  | 'replan_law1_cancelled';

const TRANSCRIPTS = import.meta.glob<DescribedEnvelope[]>('../../../../tests/fixtures/transcripts/*.json', {
  eager: true,
  import: 'default',
});
const RUNS = import.meta.glob<RecordedRun>('../../../../tests/fixtures/recorded/*.json', { eager: true, import: 'default' });

function load(name: ScenarioName): Recording {
  const file = (dir: string) => `../../../../tests/fixtures/${dir}/${name}.json`;
  const transcript = TRANSCRIPTS[file('transcripts')];
  const run = RUNS[file('recorded')];
  if (!transcript || !run) throw new Error(`no golden recording ${name}`);
  return { name, transcript, run };
}

const CACHE = new Map<ScenarioName, Recording>();

export function recording(name: ScenarioName): Recording {
  let found = CACHE.get(name);
  if (!found) {
    found = load(name);
    CACHE.set(name, found);
  }
  return found;
}

/**
 * The recording a submitted input is answered with. The fake cannot understand text, so
 * it picks by the input's shape, the way the recordings were made:
 *   a greeting or thanks              → greeting (R1's conversational fast path)
 *   one or two words                  → clarify (R1 asks what is meant, then lists files)
 *   delete / remove / erase / trash   → replan_law1 (a failed plan, a replan, a Law 1
 *                                        request; the answer picks the rest)
 *   read / report / summarise / quote → abandon (both plans fail, an honest abandon)
 *   anything else                     → list_workspace (one plan, accepted)
 * What is played is what the core did for the recorded input, not for the typed one.
 */
export function scenarioFor(text: string): ScenarioName {
  if (isGreeting(text)) return 'greeting';
  if (text.trim().split(/\s+/u).length <= 2 && !/\p{Script=Han}{4,}/u.test(text)) return 'clarify';
  if (/\b(delete|remove|erase|trash|rm)\b|删除/iu.test(text)) return 'replan_law1';
  if (/\b(read|report|summari[sz]e|quote)\b|总结|读/iu.test(text)) return 'abandon';
  return 'list_workspace';
}

function isGreeting(text: string): boolean {
  return /^\s*(hi|hello|hey|thanks|thank you|good (morning|afternoon|evening)|你好|谢谢)[\s!,.，。!]*$/iu.test(text);
}

/** Which recording continues a Law 1 request answered this way. */
export const AFTER_DECISION = {
  approve: 'replan_law1',
  deny: 'replan_law1_denied',
  trash: 'replan_law1_trashed',
} as const satisfies Record<string, ScenarioName>;

/** The cancel recorded while a Law 1 request was open. */
export const CANCELLED_AT_LAW1: ScenarioName = 'replan_law1_cancelled';

/** The instant every recording's clock stood at. */
export const RECORDED_AT = Date.parse('2026-01-01T00:00:00Z');

const RECORDED_ID = /task_\d{12}|00000000-0000-4000-8000-\d{12}/g;
/** A numbered chain hash; the genesis (all zeros) stays as it is. */
const RECORDED_HASH = /^(?!0{64}$)[0-9a-f]{64}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * Fresh ids for one played run: every recorded id (task, envelope, sub-task, request…)
 * and every chain hash gets one new value, the same wherever it occurs, in every
 * recording the run plays.
 */
export class Rekey {
  private readonly ids = new Map<string, string>();

  constructor(private readonly mint: IdMint) {}

  id(recorded: string): string {
    let fresh = this.ids.get(recorded);
    if (fresh === undefined) {
      fresh = recorded.startsWith('task_') ? this.mint.taskId() : this.mint.uuid();
      this.ids.set(recorded, fresh);
    }
    return fresh;
  }

  private hash(recorded: string): string {
    let fresh = this.ids.get(recorded);
    if (fresh === undefined) {
      fresh = this.mint.hash();
      this.ids.set(recorded, fresh);
    }
    return fresh;
  }

  /** A copy of `value` with fresh ids, times moved by `shiftMs`, and `~` for the home. */
  value<T>(value: T, shiftMs: number): T {
    return this.walk(value, shiftMs) as T;
  }

  private walk(value: unknown, shiftMs: number): unknown {
    if (typeof value === 'string') {
      if (TIMESTAMP.test(value)) return iso(Date.parse(value) + shiftMs);
      if (RECORDED_HASH.test(value)) return this.hash(value);
      return value.replace(RECORDED_ID, (id) => this.id(id)).replaceAll('$TMP/home/', '~/');
    }
    if (Array.isArray(value)) return value.map((v) => this.walk(v, shiftMs));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.walk(v, shiftMs)]));
    }
    return value;
  }
}

/** The run row the desktop builds from the task log's row (`task_run` in src-tauri). */
export function taskRun(summary: RecordedSummary): TaskRun {
  return {
    run_id: summary.run_id,
    task_id: summary.task_id,
    raw_input: summary.raw_input ?? '',
    intent: summary.intent,
    started_at: summary.started_at,
    ended_at: summary.ended_at,
    status: summary.status,
    replans: summary.replans,
    loss: summary.loss,
    law1: summary.law1,
  };
}

/** How long the live fake takes before publishing an envelope: a model call or a tool
 * call takes a while, the rest of the traffic follows at once. Recordings keep no wall
 * times (a scripted model answers instantly), so this pacing is the fake's. */
export function paceMs(envelope: DescribedEnvelope): number {
  switch (envelope.message.type) {
    case 'LlmCall':
      return 700;
    case 'ToolCallEvent':
      return 500;
    default:
      return 80;
  }
}
