// The live pipeline as data: a pure fold of one task's bus envelopes into what the popup
// and the replay timeline draw — each role's state, the sub-tasks, the loss per round with
// its gradient arrow, the directive and rationale while R2 replans, the result, the cost
// per role and the message flow, whose lines are the core's (each envelope arrives with
// its `line`, src/describe.rs). The same reducer serves live traffic and recorded runs.

import type {
  ClarificationRequest,
  FinalResult,
  Gradient,
  Loss,
  MemoryRecall,
  MessageKind,
  PlanDirective,
  Role,
  SubTask,
  TaskId,
  ToolCallRecord,
} from '../../ipc/contracts';
import type { DescribedEnvelope } from '../../ipc/commands';

/** The roles drawn in the pipeline strip, in loop order. */
export const PIPELINE_ROLES = ['R1', 'R2', 'R3', 'R4a', 'R4b', 'R7', 'R5'] as const;
export type PipelineRole = (typeof PIPELINE_ROLES)[number];

export type RoleActivity = 'idle' | 'active' | 'waiting' | 'done' | 'failed';

export type Phase =
  | 'perceiving'
  | 'clarifying'
  | 'planning'
  | 'executing'
  | 'judging'
  | 'deciding'
  | 'replanning'
  | 'approval'
  | 'done'
  | 'chat'
  | 'cancelled';

export type SubTaskProgress = 'queued' | 'running' | 'validating' | 'correcting' | 'matched' | 'failed' | 'skipped';

export interface SubTaskView {
  id: string;
  round: number;
  sequence: number;
  intent: string;
  criteria: string[];
  status: SubTaskProgress;
  attempt: number;
  tools: ToolCallRecord[];
  failure: string | null;
}

/** One GGS decision: a replan directive or the terminal one. */
export interface RoundPoint {
  round: number;
  loss: Loss;
  gradL: number;
  gradient: Gradient;
  directive: string;
  rationale: string | null;
  terminal: boolean;
}

export interface RoleCost {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  ms: number;
}

export interface FlowLine {
  seq: number;
  at: string;
  from: Role;
  to: Role;
  kind: MessageKind;
  /** The core's one-line summary of the payload (data, not prose). */
  detail: string;
}

export interface TaskView {
  taskId: TaskId;
  rawInput: string;
  intent: string | null;
  startedAt: string;
  updatedAt: string;
  phase: Phase;
  roles: Record<PipelineRole, RoleActivity>;
  round: number;
  subtasks: SubTaskView[];
  rounds: RoundPoint[];
  /** The directive R2 is working on while it replans (null otherwise). */
  replanning: PlanDirective | null;
  clarification: ClarificationRequest | null;
  recalls: MemoryRecall[];
  law1: boolean;
  result: FinalResult | null;
  /** On abandon: what was actually accomplished (R2's graceful-failure answer). */
  accomplished: string | null;
  chat: string | null;
  cancelled: string | null;
  cost: Partial<Record<Role, RoleCost>>;
  tools: { calls: number; ms: number };
  flow: FlowLine[];
  /** The bus seq of the last envelope folded in; -1 before any (the bus counts from 0). */
  lastSeq: number;
}

/** The thresholds the arrow needs (Config's ggs.epsilon and ggs.delta). */
export interface ArrowParams {
  epsilon: number;
  delta: number;
}

export const DEFAULT_ARROW_PARAMS: ArrowParams = { epsilon: 0.1, delta: 0.3 };

/** The label GGS gives the gradient: worsening/improving beyond ε, else plateau while D > δ. */
export function gradientOf(gradL: number, d: number, params: ArrowParams): Gradient {
  if (gradL > params.epsilon) return 'worsening';
  if (gradL < -params.epsilon) return 'improving';
  return d > params.delta ? 'plateau' : 'stable';
}

export const ARROWS: Record<Gradient, string> = {
  worsening: '↑',
  improving: '↓',
  plateau: '⊥',
  stable: '→',
};

const IDLE: Record<PipelineRole, RoleActivity> = {
  R1: 'idle',
  R2: 'idle',
  R3: 'idle',
  R4a: 'idle',
  R4b: 'idle',
  R7: 'idle',
  R5: 'idle',
};

export function emptyTask(taskId: TaskId, rawInput: string, at: string): TaskView {
  return {
    taskId,
    rawInput,
    intent: null,
    startedAt: at,
    updatedAt: at,
    phase: 'perceiving',
    roles: { ...IDLE, R1: 'active' },
    round: 0,
    subtasks: [],
    rounds: [],
    replanning: null,
    clarification: null,
    recalls: [],
    law1: false,
    result: null,
    accomplished: null,
    chat: null,
    cancelled: null,
    cost: {},
    tools: { calls: 0, ms: 0 },
    flow: [],
    lastSeq: -1,
  };
}

export function isFinished(task: TaskView): boolean {
  return task.phase === 'done' || task.phase === 'chat' || task.phase === 'cancelled';
}

function updateSubtask(
  task: TaskView,
  id: string,
  change: (s: SubTaskView) => SubTaskView,
): SubTaskView[] {
  return task.subtasks.map((s) => (s.id === id ? change(s) : s));
}

/** A sub-task of the plan as the pipeline shows it, at its first sighting. */
function subtaskView(s: SubTask, round: number, status: SubTaskProgress): SubTaskView {
  return {
    id: s.subtask_id,
    round,
    sequence: s.sequence,
    intent: s.intent,
    criteria: s.success_criteria.map((c) => (typeof c === 'string' ? c : c.criterion)),
    status,
    attempt: 1,
    tools: [],
    failure: null,
  };
}

function num(x: number | null | undefined): number {
  return x ?? 0;
}

/** Folds one envelope into the task. Envelopes of other tasks and repeats are ignored. */
export function reduce(task: TaskView, env: DescribedEnvelope, params: ArrowParams = DEFAULT_ARROW_PARAMS): TaskView {
  if (env.task_id !== task.taskId || env.seq <= task.lastSeq) return task;
  const base: TaskView = {
    ...task,
    updatedAt: env.timestamp,
    lastSeq: env.seq,
    flow: [...task.flow, { seq: env.seq, at: env.timestamp, from: env.from, to: env.to, kind: env.message.type, detail: env.line }],
  };
  const roles = { ...task.roles };
  const m = env.message;
  switch (m.type) {
    case 'TaskSubmitted':
      return { ...base, rawInput: m.payload.raw_input, startedAt: m.payload.submitted_at, roles: { ...roles, R1: 'active' } };
    case 'ClarificationRequest':
      return { ...base, phase: 'clarifying', clarification: m.payload, roles: { ...roles, R1: 'waiting' } };
    case 'ClarificationAnswer':
      return { ...base, phase: 'perceiving', clarification: null, roles: { ...roles, R1: 'active' } };
    case 'ChatReply':
      return { ...base, phase: 'chat', chat: m.payload.answer, roles: { ...roles, R1: 'done' } };
    case 'TaskSpec':
      return {
        ...base,
        intent: m.payload.intent,
        rawInput: m.payload.raw_input,
        phase: 'planning',
        roles: { ...roles, R1: 'done', R2: 'active' },
      };
    case 'MemoryQuery':
      return { ...base, roles: { ...roles, R5: 'active' } };
    case 'MemoryResponse':
      return { ...base, roles: { ...roles, R5: m.payload.error ? 'failed' : 'done' } };
    case 'MemoryRecall':
      return { ...base, recalls: [...task.recalls, m.payload], roles: { ...roles, R5: 'done' } };
    case 'DispatchManifest': {
      // The whole plan arrives at once; each step waits until the dispatcher releases it.
      const round = m.payload.round;
      const planned = m.payload.subtasks.map((s) => subtaskView(s, round, 'queued'));
      const ids = new Set(planned.map((s) => s.id));
      return {
        ...base,
        phase: 'executing',
        round,
        replanning: null,
        subtasks: [...task.subtasks.filter((x) => !ids.has(x.id)), ...planned],
        roles: { ...roles, R2: 'done', R3: 'active', R4a: 'idle', R4b: 'waiting', R7: 'idle' },
      };
    }
    case 'SubTask': {
      const s = m.payload;
      const released = subtaskView(s, task.round, 'running');
      const known = task.subtasks.some((x) => x.id === s.subtask_id);
      const subtasks = known
        ? updateSubtask(task, s.subtask_id, (x) => ({ ...released, round: x.round }))
        : [...task.subtasks, released];
      return { ...base, subtasks, roles: { ...roles, R3: 'active' } };
    }
    case 'ToolCallEvent': {
      const r = m.payload.record;
      return {
        ...base,
        tools: { calls: task.tools.calls + 1, ms: task.tools.ms + r.duration_ms },
        subtasks: updateSubtask(task, m.payload.subtask_id, (s) => ({ ...s, attempt: m.payload.attempt, tools: [...s.tools, r] })),
      };
    }
    case 'ExecutionResult':
      return {
        ...base,
        subtasks: updateSubtask(task, m.payload.subtask_id, (s) => ({ ...s, status: 'validating', attempt: m.payload.attempt })),
        roles: { ...roles, R4a: 'active' },
      };
    case 'CorrectionSignal':
      return {
        ...base,
        subtasks: updateSubtask(task, m.payload.subtask_id, (s) => ({
          ...s,
          status: 'correcting',
          attempt: m.payload.attempt_number + 1,
          failure: m.payload.what_was_wrong,
        })),
        roles: { ...roles, R3: 'active' },
      };
    case 'SubTaskOutcome': {
      const o = m.payload;
      const subtasks = updateSubtask(task, o.subtask_id, (s) => ({
        ...s,
        status: o.status,
        failure: o.status === 'failed' ? o.failure_reason : null,
      }));
      const current = subtasks.filter((s) => s.round === task.round);
      const open = current.some((s) => s.status !== 'matched' && s.status !== 'failed' && s.status !== 'skipped');
      const anyFailed = current.some((s) => s.status === 'failed');
      return {
        ...base,
        subtasks,
        phase: open ? task.phase : 'judging',
        roles: open
          ? roles
          : { ...roles, R3: anyFailed ? 'failed' : 'done', R4a: 'done', R4b: 'active' },
      };
    }
    case 'SubTaskClosed':
      // R4a ends the fast loop; the outcome itself arrives as SubTaskOutcome.
      return base;
    case 'DispatchHalted': {
      const skipped = new Set<string>(m.payload.skipped);
      return {
        ...base,
        subtasks: task.subtasks.map((s) => (skipped.has(s.id) ? { ...s, status: 'skipped', failure: m.payload.reason } : s)),
      };
    }
    case 'ReplanRequest':
      return { ...base, phase: 'deciding', roles: { ...roles, R4b: 'failed', R7: 'active' } };
    case 'OutcomeSummary':
      return { ...base, phase: 'deciding', roles: { ...roles, R4b: 'done', R7: 'active' } };
    case 'PlanDirective': {
      const d = m.payload;
      const gradL = num(d.grad_l);
      const point: RoundPoint = {
        round: d.round,
        loss: d.loss,
        gradL,
        gradient: d.gradient ?? gradientOf(gradL, num(d.loss.D), params),
        directive: d.directive,
        rationale: d.rationale,
        terminal: false,
      };
      return {
        ...base,
        phase: 'replanning',
        replanning: d,
        rounds: [...task.rounds, point],
        roles: { ...roles, R7: 'done', R2: 'active', R3: 'idle', R4a: 'idle', R4b: 'idle' },
      };
    }
    case 'PlanningFailed':
      return { ...base, phase: 'deciding', roles: { ...roles, R2: 'failed', R7: 'active' } };
    case 'GracefulFailureRequest':
      return { ...base, roles: { ...roles, R2: 'active' } };
    case 'GracefulFailure':
      return { ...base, accomplished: m.payload.accomplished, roles: { ...roles, R2: 'done' } };
    case 'FinalResult': {
      const r = m.payload;
      const gradL = num(r.grad_l);
      const point: RoundPoint = {
        round: r.replans,
        loss: r.loss,
        gradL,
        gradient: gradientOf(gradL, num(r.loss.D), params),
        directive: r.directive,
        rationale: null,
        terminal: true,
      };
      const settled: Record<PipelineRole, RoleActivity> = { ...roles };
      for (const role of PIPELINE_ROLES) if (settled[role] === 'active' || settled[role] === 'waiting') settled[role] = 'done';
      return {
        ...base,
        phase: 'done',
        result: r,
        replanning: null,
        rounds: [...task.rounds, point],
        roles: { ...settled, R7: r.directive === 'abandon' ? 'failed' : 'done' },
      };
    }
    case 'Megram':
      return { ...base, roles: { ...roles, R5: 'done' } };
    case 'ConfirmationRequest':
      return { ...base, phase: 'approval', law1: true, roles: { ...roles, R3: 'waiting' } };
    case 'ConfirmationDecision':
      // A cancel closes the task first and then denies its open requests, as dropped:
      // the task stays cancelled.
      if (task.phase === 'cancelled') return base;
      return { ...base, phase: 'executing', roles: { ...roles, R3: 'active' } };
    case 'TaskClosed': {
      // A result or a chat answer already ended the task; only a cancel changes it here.
      const end = m.payload.end;
      if (end.kind !== 'cancelled') return base;
      const stopped: Record<PipelineRole, RoleActivity> = { ...roles };
      for (const role of PIPELINE_ROLES) if (stopped[role] === 'active' || stopped[role] === 'waiting') stopped[role] = 'idle';
      return { ...base, phase: 'cancelled', cancelled: end.reason, replanning: null, clarification: null, roles: stopped };
    }
    case 'LlmCall': {
      const c = m.payload;
      const prev = task.cost[c.role] ?? { calls: 0, promptTokens: 0, completionTokens: 0, ms: 0 };
      return {
        ...base,
        cost: {
          ...task.cost,
          [c.role]: {
            calls: prev.calls + 1,
            promptTokens: prev.promptTokens + c.prompt_tokens,
            completionTokens: prev.completionTokens + c.completion_tokens,
            ms: prev.ms + c.elapsed_ms,
          },
        },
      };
    }
    case 'MemoryOperatorChange':
    case 'AuditQuery':
    case 'AuditReport':
      return base;
  }
}

/** Replays recorded envelopes (or a prefix of them) into a task view. */
export function replay(envelopes: readonly DescribedEnvelope[], params: ArrowParams = DEFAULT_ARROW_PARAMS): TaskView | null {
  const first = envelopes.find((e) => e.task_id);
  if (!first?.task_id) return null;
  let task = emptyTask(first.task_id, '', first.timestamp);
  for (const e of envelopes) task = reduce(task, e, params);
  return task;
}

/** The latest loss the task has (from the last GGS decision), for the live D/P/∇L/Ω row. */
export function latestRound(task: TaskView): RoundPoint | null {
  return task.rounds.at(-1) ?? null;
}
