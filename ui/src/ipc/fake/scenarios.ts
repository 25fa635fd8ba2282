// Scripted runs of the whole hierarchy for the fake backend: every message a real run
// puts on the bus, in the contracts' shapes, paced like a real run. The live default run
// has a failed sub-task, a GGS replan (change_path), a Law 1 confirmation and either a
// result or an honest graceful failure depending on the user's decision.

import type {
  ConfirmationRequest,
  Criterion,
  CriterionVerdict,
  Decision,
  DecisionSource,
  Envelope,
  GapPoint,
  MacroState,
  Megram,
  Message,
  PlanDirective,
  RecalledConstraint,
  Role,
  Settings,
  SubTask,
  SubTaskOutcome,
  TerminalDirective,
  ToolCallRecord,
  Value,
} from '../contracts';
import type { FakeMemory } from './memory';
import { decide, QUANTIZATION, type RoundInput } from './ggs';
import { IdMint, iso, slug } from './support';

/** The operator's memory group (what the user told memory to remember). */
const USER_SPACE = 'global:user';

/** Thrown out of a script's sleep when its task is cancelled. */
export class Cancelled extends Error {
  constructor() {
    super('task cancelled');
  }
}

export interface Confirmation {
  decision: Decision;
  source: DecisionSource;
}

/** What a script can do: the fake backend implements it live; seeding implements it instantly. */
export interface ScriptHost {
  readonly ids: IdMint;
  readonly memory: FakeMemory;
  now(): number;
  settings(): Settings;
  sleep(ms: number): Promise<void>;
  publish(from: Role, to: Role, message: Message): Envelope;
  confirm(request: ConfirmationRequest): Promise<Confirmation>;
  clarify(question: string, round: number): Promise<string>;
}

type ToolSpec = Omit<ToolCallRecord, 'duration_ms' | 'confirmation'> & {
  confirmation?: Decision;
};

/** One task on the fake bus, with the helpers every script shares. */
export class Run {
  readonly startedAt: number;
  private prevL: number | null = null;
  private replans = 0;
  private prevDirective: PlanDirective['prev_directive'] = 'init';
  private readonly blockedTargets: string[] = [];
  lawFired = false;
  /** The intent R1 perceived; R4b carries it to R7 for the terminal Megram's tag. */
  intent = '';

  constructor(
    readonly host: ScriptHost,
    readonly taskId: string,
    readonly rawInput: string,
  ) {
    this.startedAt = host.now();
  }

  elapsed(): number {
    return this.host.now() - this.startedAt;
  }

  send(from: Role, to: Role, message: Message): Envelope {
    return this.host.publish(from, to, message);
  }

  /** A model call that took `ms`: waits, then publishes its LlmCall record. */
  async llm(role: Role, ms: number, prompt: number, completion: number, response: string): Promise<void> {
    await this.host.sleep(ms);
    const tiers = this.host.settings().llm;
    const brain = role === 'R1' || role === 'R2' || role === 'R4b';
    const model = (brain ? tiers.brain.model : tiers.tool.model) ?? 'unconfigured';
    this.send(role, 'Observer', {
      type: 'LlmCall',
      payload: {
        task_id: this.taskId,
        role,
        model,
        system_prompt: `You are ${role} of artoo.`,
        user_prompt: this.rawInput,
        response,
        prompt_tokens: prompt,
        completion_tokens: completion,
        elapsed_ms: ms,
        error: null,
      },
    });
  }

  async tool(subtask: SubTask, attempt: number, ms: number, spec: ToolSpec): Promise<ToolCallRecord> {
    await this.host.sleep(ms);
    const record: ToolCallRecord = { ...spec, duration_ms: ms };
    this.send('R3', 'Observer', {
      type: 'ToolCallEvent',
      payload: { task_id: this.taskId, subtask_id: subtask.subtask_id, attempt, record },
    });
    return record;
  }

  subtask(sequence: number, intent: string, context: string, criteria: Criterion[]): SubTask {
    return {
      subtask_id: this.host.ids.uuid(),
      parent_task_id: this.taskId,
      intent,
      context,
      success_criteria: criteria,
      sequence,
      deadline: null,
    };
  }

  dispatch(round: number, intent: string, taskCriteria: Criterion[], subtasks: SubTask[]): void {
    this.send('R2', 'R4b', {
      type: 'DispatchManifest',
      payload: {
        task_id: this.taskId,
        subtask_ids: subtasks.map((s) => s.subtask_id),
        task_spec: {
          task_id: this.taskId,
          intent,
          constraints: { scope: null, deadline: null },
          raw_input: this.rawInput,
        },
        dispatched_at: iso(this.host.now()),
        task_criteria: taskCriteria,
        round,
      },
    });
    for (const s of subtasks) this.send('R2', 'R3', { type: 'SubTask', payload: s });
  }

  /** R1's TaskSpec; `rawInput` includes clarification answers, verbatim. */
  perceive(intent: string, rawInput: string = this.rawInput): void {
    this.intent = intent;
    this.send('R1', 'R2', {
      type: 'TaskSpec',
      payload: {
        task_id: this.taskId,
        intent,
        constraints: { scope: null, deadline: null },
        raw_input: rawInput,
      },
    });
  }

  /**
   * R2's memory calibration of one round, as the core publishes it: one recall per
   * group, the task's kind first (the Four Laws and `constraints` ride on it), then the
   * operator's `global:user` group with the rules the user remembered.
   */
  async recallRound(space: string, round: number, constraints: RecalledConstraint[]): Promise<void> {
    const laws: RecalledConstraint[] = this.host.memory
      .all()
      .filter((m) => m.level === 'T' && m.state === 'law')
      .map((m) => ({ kind: 'must_not', text: m.content, source: 'law', megram_ids: [m.id] }));
    await this.recall(space, 'env:local', round, [...laws, ...constraints]);
    const rules: RecalledConstraint[] = this.host.memory
      .inGroup(USER_SPACE, 'env:local')
      .filter((m) => m.level === 'C')
      .map((m) => ({
        kind: (m.sigma ?? 0) > 0 ? 'should_prefer' : 'must_not',
        text: `${(m.sigma ?? 0) > 0 ? 'SHOULD PREFER' : 'MUST NOT'}: ${m.content}`,
        source: 'sop',
        megram_ids: [m.id],
      }));
    await this.recall(USER_SPACE, 'env:local', round, rules);
  }

  private async recall(
    space: string,
    entity: string,
    round: number,
    constraints: RecalledConstraint[],
  ): Promise<void> {
    const memory = this.host.memory;
    this.send('R2', 'R5', { type: 'MemoryQuery', payload: { task_id: this.taskId, space, entity } });
    await this.host.sleep(40);
    const potentials = memory.potentials(space, entity);
    const recent = memory
      .inGroup(space, entity)
      .filter((m) => m.level === 'M' || m.level === 'K')
      .slice(-3)
      .reverse();
    const sops = memory
      .inGroup(space, entity)
      .filter((m) => m.level === 'C')
      .map((m) => ({ id: m.id, space, entity, content: m.content, sigma: m.sigma }));
    this.send('R5', 'R2', {
      type: 'MemoryResponse',
      payload: { task_id: this.taskId, space, entity, sops, potentials, recent, error: null },
    });
    await this.host.sleep(30);
    this.send('R2', 'R7', {
      type: 'MemoryRecall',
      payload: { task_id: this.taskId, space, entity, sops, potentials, constraints, round },
    });
    memory.recordRecall(space, entity, {
      task_id: this.taskId,
      raw_input: this.rawInput,
      at: iso(this.host.now()),
      round,
      potentials,
      constraints,
    });
  }

  execution(subtask: SubTask, attempt: number, ok: boolean, output: string, calls: ToolCallRecord[]): void {
    this.send('R3', 'R4a', {
      type: 'ExecutionResult',
      payload: {
        subtask_id: subtask.subtask_id,
        parent_task_id: this.taskId,
        status: ok ? 'completed' : 'failed',
        output,
        tool_calls: calls,
        attempt,
      },
    });
  }

  outcome(
    subtask: SubTask,
    verdicts: CriterionVerdict[],
    trajectory: GapPoint[],
    output: Value,
    calls: ToolCallRecord[],
  ): SubTaskOutcome {
    const failed = verdicts.some((v) => v.verdict === 'fail');
    const outcome: SubTaskOutcome = {
      subtask_id: subtask.subtask_id,
      parent_task_id: this.taskId,
      status: failed ? 'failed' : 'matched',
      output,
      failure_reason: failed
        ? verdicts.filter((v) => v.verdict === 'fail').map((v) => v.evidence).join('; ')
        : null,
      gap_trajectory: trajectory,
      criteria_verdicts: verdicts,
      tool_calls: calls,
    };
    this.send('R4a', 'R4b', { type: 'SubTaskOutcome', payload: outcome });
    return outcome;
  }

  /** GGS's decision for a round, published as a directive (with its Megram writes) or returned as terminal. */
  decide(input: Omit<RoundInput, 'replans' | 'elapsedMs'>, allMatched: boolean) {
    const s = this.host.settings();
    const round: RoundInput = { ...input, replans: this.replans, elapsedMs: this.elapsed() };
    const outcome = decide(round, this.prevL, allMatched, s.ggs, s.budgets);
    this.prevL = outcome.loss.L;
    return outcome;
  }

  directive(
    outcome: ReturnType<Run['decide']>,
    failedCriterion: string,
    failureClass: PlanDirective['failure_class'],
    blockedTools: string[],
    newTargets: { tool: string; target: string }[],
    rationale: string,
  ): PlanDirective {
    for (const t of newTargets) {
      if (!this.blockedTargets.includes(t.target)) this.blockedTargets.push(t.target);
    }
    const state = outcome.state;
    if (state === 'accept' || state === 'success' || state === 'abandon') {
      throw new Error(`terminal state ${state} is not a directive`);
    }
    this.replans += 1;
    const directive: PlanDirective = {
      task_id: this.taskId,
      loss: outcome.loss,
      prev_directive: this.prevDirective,
      directive: state,
      blocked_tools: blockedTools,
      blocked_targets: state === 'change_path' || state === 'refine' ? [...this.blockedTargets] : [],
      failed_criterion: failedCriterion,
      failure_class: failureClass,
      budget_pressure: outcome.loss.Omega,
      grad_l: outcome.gradL,
      rationale,
      urgency: outcome.urgency,
      gradient: outcome.gradient,
      round: this.replans,
    };
    this.prevDirective = state;
    this.send('R7', 'R2', { type: 'PlanDirective', payload: directive });
    for (const t of newTargets) {
      this.writeMegram(state, `tool:${t.tool}`, `path:${t.target}`, `${t.tool} on ${t.target}: ${failedCriterion}`);
    }
    return directive;
  }

  final(
    outcome: ReturnType<Run['decide']>,
    summary: string,
    output: Value,
    intent: string,
    nextMoves: string[] = [],
  ): void {
    const directive = outcome.state as TerminalDirective;
    const text = this.lawFired ? `[LAW1] ${summary}` : summary;
    this.send('R7', 'User', {
      type: 'FinalResult',
      payload: {
        task_id: this.taskId,
        summary: text,
        output,
        loss: outcome.loss,
        grad_l: outcome.gradL,
        replans: this.replans,
        prev_directive: this.prevDirective,
        directive,
        ...(nextMoves.length > 0 ? { next_moves: nextMoves } : {}),
      },
    });
    this.writeMegram(outcome.state, `intent:${slug(intent)}`, 'env:local', text);
    this.send('User', 'All', { type: 'TaskClosed', payload: { task_id: this.taskId, end: { kind: 'finished' } } });
  }

  writeMegram(state: MacroState, space: string, entity: string, content: string): void {
    const q = QUANTIZATION[state];
    const megram: Megram = {
      id: this.host.ids.uuid(),
      level: 'M',
      created_at: iso(this.host.now()),
      last_recalled_at: null,
      space,
      entity,
      content,
      state,
      f: q.f,
      sigma: q.sigma,
      k: q.k,
    };
    this.host.memory.add(megram);
    this.send('R7', 'R5', { type: 'Megram', payload: { task_id: this.taskId, megram } });
  }
}

const pass = (criterion: string, evidence: string): CriterionVerdict => ({
  criterion,
  mode: null,
  verdict: 'pass',
  failure_class: null,
  evidence,
});

const fail = (
  criterion: string,
  evidence: string,
  failureClass: CriterionVerdict['failure_class'],
): CriterionVerdict => ({ criterion, mode: null, verdict: 'fail', failure_class: failureClass, evidence });

const f3 = (x: number | null) => (x ?? 0).toFixed(2);

export function isGreeting(text: string): boolean {
  return /^\s*(hi|hello|hey|thanks|thank you|good (morning|afternoon|evening)|你好|谢谢)[\s!,.，。!]*$/iu.test(
    text,
  );
}

export function isAmbiguous(text: string): boolean {
  return text.trim().split(/\s+/u).length <= 2 && !/\p{Script=Han}{4,}/u.test(text);
}

/** The conversational fast path: R1 answers in one call, no pipeline. */
export async function chatScript(run: Run): Promise<void> {
  await run.llm('R1', 700, 380, 42, 'Hello!');
  run.send('R1', 'User', {
    type: 'ChatReply',
    payload: {
      task_id: run.taskId,
      answer:
        'Hi! Tell me what to do on this Mac — find, tidy, rename or summarise files — and I will plan it, run it and check the result. Anything irreversible waits for your click.',
    },
  });
  run.send('User', 'All', { type: 'TaskClosed', payload: { task_id: run.taskId, end: { kind: 'answered' } } });
}

const INSTALLERS = [
  { keep: '~/Downloads/Zoom.pkg', drop: '~/Downloads/Zoom (1).pkg', bytes: 94_371_840 },
  { keep: '~/Downloads/Docker.dmg', drop: '~/Downloads/Docker (1).dmg', bytes: 1_468_006_400 },
  { keep: '~/Downloads/Firefox 131.0.dmg', drop: '~/Downloads/Firefox 131.0 (2).dmg', bytes: 136_314_880 },
];

/**
 * The live default run: list the duplicates, fail on a wrong folder (twice, with a
 * correction), GGS change_path, replan, Law 1 confirmation, then accept or abandon.
 */
export async function duplicatesScript(run: Run): Promise<void> {
  const host = run.host;
  let intent = run.rawInput.trim();
  let rawInput = run.rawInput;
  if (isAmbiguous(intent)) {
    const answer = await host.clarify(
      'Which folder should I clean up, and what counts as clutter — duplicate downloads, old installers, or something else?',
      1,
    );
    rawInput = `${run.rawInput}\nClarification: ${answer}`;
    intent = answer.trim().length > 0 ? `${intent}: ${answer.trim()}` : intent;
  }
  await run.llm('R1', 900, 612, 96, JSON.stringify({ intent }));
  run.perceive(intent, rawInput);

  const space = `intent:${slug(intent)}`;
  await host.sleep(120);
  await run.recallRound(space, 0, [
    {
      kind: 'should_prefer',
      text: 'Identify duplicates by checksum, not by name alone.',
      source: 'memory',
      megram_ids: host.memory.inGroup(space, 'env:local').map((m) => m.id).slice(0, 2),
    },
  ]);
  await run.llm('R2', 1700, 2140, 388, '{"task_criteria": [...], "subtasks": [...]}');

  const taskCriteria: Criterion[] = [
    'no two files in ~/Downloads have the same SHA-256',
    'one copy of every installer remains',
  ];
  const list = run.subtask(
    1,
    'List installer files (.dmg, .pkg) in ~/Downloads with their size and SHA-256',
    'Look only at the top level of ~/Downloads. Report absolute paths.',
    ['output lists every .dmg and .pkg file with a size', { criterion: 'duplicates are grouped by checksum', mode: 'verifiable' }],
  );
  const remove = run.subtask(
    2,
    'Delete the older copy of every duplicate installer, keeping the newest',
    'Use the groups of identical checksums from step 1.',
    ['every duplicate group keeps exactly one file', 'the deleted files no longer exist'],
  );
  run.dispatch(0, intent, taskCriteria, [list, remove]);

  // Sequence 1: the listing works.
  const glob = await run.tool(list, 1, 650, {
    tool: 'glob',
    input: { pattern: '*.{dmg,pkg}', root: '~/Downloads' },
    target: '~/Downloads/*.{dmg,pkg}',
    output_head: INSTALLERS.flatMap((i) => [i.keep, i.drop]).join('\n'),
    status: 'ok',
    error: null,
  });
  const sums = await run.tool(list, 1, 1100, {
    tool: 'shell',
    input: { command: 'shasum -a 256 ~/Downloads/*.dmg ~/Downloads/*.pkg' },
    target: 'shasum -a 256 ~/Downloads/*.dmg ~/Downloads/*.pkg',
    output_head: '5d41402abc4b2a76b9719d911017c592  ~/Downloads/Zoom.pkg\n5d41402abc4b2a76b9719d911017c592  ~/Downloads/Zoom (1).pkg\n7d793037a0760186574b0282f2f435e7  ~/Downloads/Docker.dmg',
    status: 'ok',
    error: null,
  });
  await run.llm('R3', 700, 1320, 240, 'result');
  const listing = INSTALLERS.map((i) => `${i.keep} = ${i.drop} (${(i.bytes / 1048576).toFixed(0)} MB)`).join('\n');
  run.execution(list, 1, true, listing, [glob, sums]);
  await run.llm('R4a', 900, 980, 160, 'verdicts');
  const listOutcome = run.outcome(
    list,
    [
      pass('output lists every .dmg and .pkg file with a size', 'glob found 6 installers; shasum read each'),
      pass('duplicates are grouped by checksum', '3 groups of identical SHA-256'),
    ],
    [{ attempt: 1, score: 1, unmet_criteria: [], failure_class: null }],
    listing,
    [glob, sums],
  );

  // Sequence 2: the executor assumes a sub-folder that does not exist, twice.
  const wrong = await run.tool(remove, 1, 800, {
    tool: 'shell',
    input: { command: 'ls ~/Downloads/Installers' },
    target: '~/Downloads/Installers',
    output_head: '',
    status: 'error',
    error: 'ls: ~/Downloads/Installers: No such file or directory',
  });
  await run.llm('R3', 600, 1410, 120, 'result');
  run.execution(remove, 1, false, 'The Installers folder does not exist.', [wrong]);
  await run.llm('R4a', 700, 1020, 150, 'verdicts');
  run.send('R4a', 'R3', {
    type: 'CorrectionSignal',
    payload: {
      subtask_id: remove.subtask_id,
      parent_task_id: run.taskId,
      attempt_number: 1,
      failed_criterion: 'every duplicate group keeps exactly one file',
      failure_class: 'environmental',
      what_was_wrong: '~/Downloads/Installers does not exist; the duplicates are at the top level of ~/Downloads.',
      what_to_do: 'Use the paths listed by step 1.',
      calls_to_avoid: [wrong],
    },
  });
  const again = await run.tool(remove, 2, 900, {
    tool: 'mdfind',
    input: { query: "kMDItemFSName == '*(1)*'", onlyin: '~/Downloads/Installers' },
    target: '~/Downloads/Installers',
    output_head: '',
    status: 'error',
    error: 'mdfind: no such directory ~/Downloads/Installers',
  });
  await run.llm('R3', 600, 1530, 110, 'result');
  run.execution(remove, 2, false, 'Still cannot find the Installers folder.', [again]);
  await run.llm('R4a', 700, 1100, 170, 'verdicts');
  const removeOutcome = run.outcome(
    remove,
    [
      fail('every duplicate group keeps exactly one file', 'nothing was deleted: the target folder does not exist', 'environmental'),
      fail('the deleted files no longer exist', 'no deletion was attempted', 'environmental'),
    ],
    [
      { attempt: 1, score: 0, unmet_criteria: ['every duplicate group keeps exactly one file', 'the deleted files no longer exist'], failure_class: 'environmental' },
      { attempt: 2, score: 0, unmet_criteria: ['every duplicate group keeps exactly one file', 'the deleted files no longer exist'], failure_class: 'environmental' },
    ],
    null,
    [wrong, again],
  );
  await host.sleep(80);
  run.send('R4b', 'R7', {
    type: 'ReplanRequest',
    payload: {
      task_id: run.taskId,
      intent: run.intent,
      gap_summary: '1 of 2 sub-tasks failed: the executor looked in ~/Downloads/Installers, which does not exist',
      failed_outcomes: [removeOutcome],
      matched_outcomes: [listOutcome],
      failed_subtasks: [remove.subtask_id],
      task_criteria_verdicts: [],
      // R4b's code gate fired: nothing ran unjudged but the task criteria.
      unrun_subtasks: [],
      unjudged_task_criteria: taskCriteria,
      correction_count: 3,
      elapsed_ms: run.elapsed(),
      recommendation: 'replan',
    },
  });
  await host.sleep(250);
  const r1 = run.decide({ d: 0.5, p: 0 }, false);
  run.directive(
    r1,
    'every duplicate group keeps exactly one file',
    'environmental',
    [],
    [{ tool: 'shell', target: '~/Downloads/Installers' }],
    `Plateau: |∇L| = ${f3(Math.abs(r1.gradL))} < ε = 0.10 with D = ${f3(r1.loss.D)} > δ = 0.30. ` +
      `Environmental origin (P = ${f3(r1.loss.P)} ≤ ρ = 0.50): keep the approach, change the target — ` +
      '~/Downloads/Installers is blocked; use the files step 1 found at the top level of ~/Downloads.',
  );

  // R2 replans against the directive.
  await run.llm('R2', 2900, 2480, 310, '{"subtasks": [...]}');
  await run.recallRound(space, 1, [
    {
      kind: 'must_not',
      text: 'Do not use ~/Downloads/Installers (blocked target: it does not exist).',
      source: 'blocked_target',
      megram_ids: [],
    },
  ]);
  const context = `Delete exactly these files:\n${INSTALLERS.map((i) => i.drop).join('\n')}`;
  const retry = run.subtask(
    1,
    'Delete the 3 older duplicate installers at the top level of ~/Downloads',
    context,
    ['each of the 3 listed files no longer exists', 'the newest copy of each installer still exists'],
  );
  run.dispatch(1, intent, taskCriteria, [retry]);
  await host.sleep(900);

  // Law 1: an irreversible delete waits for the user's click.
  const command = `rm ${INSTALLERS.map((i) => `"${i.drop.replace('~', '$HOME')}"`).join(' ')}`;
  const requestId = host.ids.uuid();
  const timeoutSecs = host.settings().laws.confirm_timeout_secs;
  run.lawFired = true;
  const answer = await host.confirm({
    request_id: requestId,
    task_id: run.taskId,
    subtask_id: retry.subtask_id,
    tool: 'shell',
    // Worded as the core's Law 1 classifier words it: one line per effect.
    description: INSTALLERS.map((i) => `Delete ${i.drop} (exists) — by \`rm\``).join('\n'),
    command,
    paths: INSTALLERS.map((i) => ({ path: i.drop, exists: true, effect: 'delete' })),
    reversible: false,
    reversible_alternative: 'Move them to the Trash instead (they can be put back).',
    can_trash: true,
    expires_at: iso(host.now() + timeoutSecs * 1000),
    scopes: ['once', 'task'],
  });

  if (answer.decision === 'deny') {
    const denied = await run.tool(retry, 1, 200, {
      tool: 'shell',
      input: { command },
      target: command,
      output_head: '',
      status: 'denied',
      error: answer.source === 'timeout' ? 'Law 1: nobody answered in time; denied' : 'Law 1: denied by the user',
      confirmation: 'deny',
    });
    await run.llm('R3', 500, 1210, 90, 'result');
    run.execution(retry, 1, false, 'The deletion was denied (Law 1); nothing was deleted.', [denied]);
    await run.llm('R4a', 600, 900, 120, 'verdicts');
    const deniedOutcome = run.outcome(
      retry,
      [fail('each of the 3 listed files no longer exists', 'the user denied the deletion; all 3 files still exist', 'environmental'), pass('the newest copy of each installer still exists', 'untouched')],
      [{ attempt: 1, score: 0.5, unmet_criteria: ['each of the 3 listed files no longer exists'], failure_class: 'environmental' }],
      null,
      [denied],
    );
    run.send('R4b', 'R7', {
      type: 'ReplanRequest',
      payload: {
        task_id: run.taskId,
        intent: run.intent,
        gap_summary: 'the only way to meet the goal was denied by the user (Law 1)',
        failed_outcomes: [deniedOutcome],
        matched_outcomes: [],
        failed_subtasks: [retry.subtask_id],
        task_criteria_verdicts: [],
        unrun_subtasks: [],
        unjudged_task_criteria: taskCriteria,
        correction_count: 1,
        elapsed_ms: run.elapsed(),
        recommendation: 'abandon',
      },
    });
    await host.sleep(200);
    run.send('R7', 'R2', {
      type: 'GracefulFailureRequest',
      payload: {
        task_id: run.taskId,
        intent,
        reason: 'the deletion was denied (Law 1)',
        matched_outputs: [{ subtask_id: list.subtask_id, output: listing }],
        failures: ['each of the 3 listed files no longer exists'],
      },
    });
    await run.llm('R2', 1300, 1180, 220, 'graceful failure');
    const nextMoves = [
      'Approve the deletion next time, or choose "Move to Trash" to keep an undo.',
      'Delete them yourself in Finder: the 3 files are listed above.',
      'Ask me to move the duplicates into a folder for review instead.',
    ];
    run.send('R2', 'R7', {
      type: 'GracefulFailure',
      payload: { task_id: run.taskId, accomplished: `Found 3 duplicate installers:\n${listing}`, next_moves: nextMoves },
    });
    await host.sleep(150);
    const done = run.decide({ d: 0.5, p: 0 }, false);
    run.final(
      { ...done, state: 'abandon' },
      'Nothing deleted: you denied removing 3 duplicate installers. I found them; the list is under what was done.',
      null,
      intent,
      nextMoves,
    );
    return;
  }

  const trash = answer.decision === 'trash';
  const performed = await run.tool(retry, 1, 700, {
    tool: trash ? 'trash' : 'shell',
    input: trash ? { paths: INSTALLERS.map((i) => i.drop) } : { command },
    target: trash ? INSTALLERS.map((i) => i.drop).join(', ') : command,
    output_head: trash ? 'moved 3 items to the Trash' : '',
    status: 'ok',
    error: null,
    confirmation: answer.decision,
  });
  const check = await run.tool(retry, 1, 400, {
    tool: 'glob',
    input: { pattern: '*.{dmg,pkg}', root: '~/Downloads' },
    target: '~/Downloads/*.{dmg,pkg}',
    output_head: INSTALLERS.map((i) => i.keep).join('\n'),
    status: 'ok',
    error: null,
  });
  await run.llm('R3', 600, 1380, 130, 'result');
  run.execution(retry, 1, true, trash ? 'Moved 3 duplicates to the Trash.' : 'Deleted 3 duplicates.', [performed, check]);
  await run.llm('R4a', 800, 1040, 140, 'verdicts');
  const doneOutcome = run.outcome(
    retry,
    [pass('each of the 3 listed files no longer exists', 'glob no longer lists them'), pass('the newest copy of each installer still exists', 'glob lists Zoom.pkg, Docker.dmg, Firefox 131.0.dmg')],
    [{ attempt: 1, score: 1, unmet_criteria: [], failure_class: null }],
    INSTALLERS.map((i) => i.drop),
    [performed, check],
  );
  await run.llm('R4b', 1200, 1960, 260, 'merged');
  const freed = INSTALLERS.reduce((sum, i) => sum + i.bytes, 0);
  const merged: Value = {
    removed: INSTALLERS.map((i) => i.drop),
    kept: INSTALLERS.map((i) => i.keep),
    freed_bytes: freed,
    to_trash: trash,
  };
  run.send('R4b', 'R7', {
    type: 'OutcomeSummary',
    payload: {
      task_id: run.taskId,
      intent: run.intent,
      merged_output: merged,
      summary: 'Removed 3 duplicate installers; one copy of each remains.',
      task_criteria_verdicts: [
        pass('no two files in ~/Downloads have the same SHA-256', 'shasum of the remaining files are distinct'),
        pass('one copy of every installer remains', 'Zoom.pkg, Docker.dmg and Firefox 131.0.dmg remain'),
      ],
      outcomes: [listOutcome, doneOutcome],
      elapsed_ms: run.elapsed(),
    },
  });
  await host.sleep(200);
  const done = run.decide({ d: 0, p: 0 }, true);
  run.final(
    done,
    `${trash ? 'Moved' : 'Deleted'} 3 duplicate installers from ~/Downloads${trash ? ' to the Trash' : ''} (${(freed / 1073741824).toFixed(1)} GB freed); kept the newest copy of each.`,
    merged,
    intent,
  );
}

/** A finished success without replans (seeded history). */
export async function videosScript(run: Run): Promise<void> {
  const intent = 'Find the 5 largest video files in ~/Movies and ~/Downloads';
  await run.llm('R1', 800, 590, 80, '{}');
  run.perceive(intent);
  await run.recallRound(`intent:${slug(intent)}`, 0, []);
  await run.llm('R2', 1500, 1900, 300, '{}');
  const s = run.subtask(1, 'List video files with sizes in ~/Movies and ~/Downloads', 'Extensions: mp4 mkv mov', [
    'output lists at least one absolute path with a size',
  ]);
  run.dispatch(0, intent, ['the 5 largest files are listed, largest first'], [s]);
  const call = await run.tool(s, 1, 1200, {
    tool: 'mdfind',
    input: { query: 'kMDItemContentTypeTree == public.movie' },
    target: 'kMDItemContentTypeTree == public.movie',
    output_head: '~/Movies/holiday.mov\n~/Downloads/talk.mp4\n~/Movies/wedding.mkv',
    status: 'ok',
    error: null,
  });
  await run.llm('R3', 700, 1200, 200, 'result');
  run.execution(s, 1, true, '5 files listed', [call]);
  await run.llm('R4a', 800, 900, 120, 'verdicts');
  const o = run.outcome(s, [pass('output lists at least one absolute path with a size', '5 paths with sizes')], [{ attempt: 1, score: 1, unmet_criteria: [], failure_class: null }], 'list', [call]);
  await run.llm('R4b', 1000, 1500, 200, 'merged');
  run.send('R4b', 'R7', {
    type: 'OutcomeSummary',
    payload: {
      task_id: run.taskId,
      intent: run.intent,
      merged_output: ['~/Movies/wedding.mkv 4.2 GB', '~/Movies/holiday.mov 2.9 GB', '~/Downloads/talk.mp4 1.1 GB'],
      summary: 'The 5 largest videos, largest first.',
      task_criteria_verdicts: [pass('the 5 largest files are listed, largest first', 'sorted by size')],
      outcomes: [o],
      elapsed_ms: run.elapsed(),
    },
  });
  run.final(run.decide({ d: 0, p: 0 }, true), 'Found the 5 largest videos (largest: ~/Movies/wedding.mkv, 4.2 GB).', ['~/Movies/wedding.mkv 4.2 GB', '~/Movies/holiday.mov 2.9 GB', '~/Downloads/talk.mp4 1.1 GB'], intent);
}

/** A diverging run that GGS abandons when Ω crosses θ (seeded history, for the loss chart). */
export async function weatherScript(run: Run): Promise<void> {
  const intent = 'Tell me whether it will rain in Paris tomorrow';
  await run.llm('R1', 800, 560, 70, '{}');
  run.perceive(intent);
  const rounds: { d: number; p: number; tool: string; target: string; wait: number }[] = [
    { d: 0.5, p: 1, tool: 'search', target: 'paris weather tomorrow', wait: 25_000 },
    { d: 1, p: 1, tool: 'shell', target: 'curl wttr.in/Paris', wait: 35_000 },
    { d: 1, p: 0.5, tool: 'applescript', target: 'tell application "Weather"', wait: 40_000 },
    { d: 1, p: 0.4, tool: 'shortcuts', target: 'Get Weather', wait: 45_000 },
  ];
  for (let i = 0; i < rounds.length; i++) {
    const r = rounds[i];
    if (!r) break;
    await run.recallRound(`intent:${slug(intent)}`, i, []);
    await run.llm('R2', 1400, 1800, 260, '{}');
    const s = run.subtask(1, `Get tomorrow's forecast for Paris with ${r.tool}`, '', ['output names a chance of rain for tomorrow']);
    run.dispatch(i, intent, ['the answer says yes or no with a probability'], [s]);
    const call = await run.tool(s, 1, r.wait, {
      tool: r.tool,
      input: { query: r.target },
      target: r.target,
      output_head: '',
      status: 'error',
      error: r.tool === 'search' ? 'search unavailable — do not guess' : 'timed out',
    });
    run.execution(s, 1, false, 'no forecast', [call]);
    await run.llm('R4a', 700, 800, 100, 'verdicts');
    const o = run.outcome(s, [fail('output names a chance of rain for tomorrow', 'no data', r.p > 0.5 ? 'logical' : 'environmental')], [{ attempt: 1, score: 0, unmet_criteria: ['output names a chance of rain for tomorrow'], failure_class: 'logical' }], null, [call]);
    run.send('R4b', 'R7', {
      type: 'ReplanRequest',
      payload: { task_id: run.taskId, intent: run.intent, gap_summary: 'no forecast obtained', failed_outcomes: [o], matched_outcomes: [], failed_subtasks: [s.subtask_id], task_criteria_verdicts: [], unrun_subtasks: [], unjudged_task_criteria: ['the answer says yes or no with a probability'], correction_count: 1, elapsed_ms: run.elapsed(), recommendation: 'replan' },
    });
    const outcome = run.decide({ d: r.d, p: r.p }, false);
    if (outcome.state === 'abandon' || i === rounds.length - 1) {
      run.send('R7', 'R2', {
        type: 'GracefulFailureRequest',
        payload: { task_id: run.taskId, intent, reason: 'budget exhausted', matched_outputs: [], failures: ['no forecast source answered'] },
      });
      await run.llm('R2', 900, 700, 140, 'graceful');
      const moves = ['Check that this Mac can reach the internet (the search timed out).', 'Ask again with a specific weather site to read.', 'Open the Weather app yourself.'];
      run.send('R2', 'R7', { type: 'GracefulFailure', payload: { task_id: run.taskId, accomplished: 'Nothing: every forecast source failed.', next_moves: moves } });
      run.final({ ...outcome, state: 'abandon' }, 'Could not get a forecast for Paris: search, curl and the Weather app all failed.', null, intent, moves);
      return;
    }
    run.directive(
      outcome,
      'output names a chance of rain for tomorrow',
      r.p > 0.5 ? 'logical' : 'mixed',
      r.p > 0.5 ? [r.tool] : [],
      r.p > 0.5 ? [] : [{ tool: r.tool, target: r.target }],
      `${outcome.gradient === 'worsening' ? 'Worsening' : 'Plateau'}: ∇L = ${f3(outcome.gradL)}, D = ${f3(outcome.loss.D)}, P = ${f3(outcome.loss.P)}, Ω = ${f3(outcome.loss.Omega)} → ${outcome.state}.`,
    );
  }
}
