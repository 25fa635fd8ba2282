// The fake's memory: the groups the real memory store held after the runs the fake played
// (the blessed `memory` of each recording), re-keyed with the run's ids and clock. The
// potentials, the live contributions and the actions are the store's; nothing here derives
// them. Each recording starts from a fresh store (the Four Laws), so a group is shown as
// the most recent played run that holds it left it.
//
// The operator actions (remember, pin, forget) are served from what the real memory
// operator API answered when the recorder drove it after each run (`operator.steps`):
// remembering at a level into a group of its own, pinning and then forgetting the run's
// Megram, forgetting a law. The fake answers an action with the recorded answer of the
// same action and shows the recorded group afterwards; an action no recording holds
// (pinning any other entry, forgetting a whole group, forgetting one of several entries,
// remembering into a group that already has entries) is refused as `unavailable`, because
// its outcome would have to be computed.

import type { Megram } from '../contracts';
import type { MegramView, MemoryGroup, MemoryGroupDetail, RecallRef, TaskRun } from '../commands';
import type { Trajectory } from '../bindings';
import type { RecordedGroup, RecordedRun, Rekey } from './recorded';
import { DAY_MS } from './support';

/** The recorded run a group's state came from, with the re-keying and clock shift it was
 * played with, so its recorded operator steps can be matched and re-keyed alike. */
export interface Source {
  run: RecordedRun;
  rekey: Rekey;
  shift: number;
}

interface Held {
  state: RecordedGroup;
  source: Source;
}

function key(space: string, entity: string): string {
  return `${space}\u0000${entity}`;
}

/** The group row the desktop sends (`memory_groups` in src-tauri). */
function groupRow(g: RecordedGroup): MemoryGroup {
  const s = g.group;
  return {
    space: s.space,
    entity: s.entity,
    potentials: s.potentials,
    counts: { M: s.levels.m, K: s.levels.k, C: s.levels.c, T: s.levels.t },
    last_activity: s.newest,
  };
}

/** A Megram's age as the desktop gives it: days since its creation or last recall. */
function ageDays(m: Megram, nowMs: number): number {
  const created = Date.parse(m.created_at);
  const last = Math.max(created, m.last_recalled_at ? Date.parse(m.last_recalled_at) : created);
  return Math.max(0, nowMs - last) / DAY_MS;
}

export class RecordedMemory {
  private readonly held = new Map<string, Held>();

  /** Takes a played run's groups (already re-keyed). */
  take(groups: readonly RecordedGroup[], source: Source): void {
    for (const g of groups) {
      const k = key(g.group.space, g.group.entity);
      this.held.delete(k);
      this.held.set(k, { state: g, source });
    }
  }

  /** Puts a group's state after an action; null removes it. */
  put(space: string, entity: string, after: RecordedGroup | null, source: Source): void {
    const k = key(space, entity);
    this.held.delete(k);
    if (after) this.held.set(k, { state: after, source });
  }

  groups(): MemoryGroup[] {
    return [...this.held.values()].reverse().map((h) => groupRow(h.state));
  }

  has(space: string, entity: string): boolean {
    return this.held.has(key(space, entity));
  }

  /** The held entry with this id, with its group and the run it came from. */
  find(id: string): { megram: Megram; group: RecordedGroup; source: Source } | null {
    for (const h of this.held.values()) {
      const view = h.state.megrams.find((v) => v.megram.id === id);
      if (view) return { megram: view.megram, group: h.state, source: h.source };
    }
    return null;
  }

  /** The group's detail as the desktop builds it; the recalls come from the runs' folds. */
  detail(space: string, entity: string, nowMs: number, runs: readonly { run: TaskRun; trajectory: Trajectory | null }[]): MemoryGroupDetail | null {
    const h = this.held.get(key(space, entity));
    if (!h) return null;
    const megrams: MegramView[] = h.state.megrams.map((v) => ({
      megram: v.megram,
      age_days: ageDays(v.megram, nowMs),
      live_attention: v.attention,
      live_decision: v.decision,
      consolidated: v.consolidated_into !== null,
    }));
    return { space, entity, potentials: h.state.group.potentials, megrams, recalls: recallsOf(runs, space, entity) };
  }
}

/** Every planning round of the runs that recalled the group, newest first (`recalls_of`
 * in src-tauri). */
function recallsOf(runs: readonly { run: TaskRun; trajectory: Trajectory | null }[], space: string, entity: string): RecallRef[] {
  const out: RecallRef[] = [];
  for (const { run, trajectory } of runs) {
    for (const round of trajectory?.rounds ?? []) {
      for (const r of round.recalls) {
        if (r.recall.space !== space || r.recall.entity !== entity) continue;
        out.push({ task_id: run.task_id, raw_input: run.raw_input, at: r.at, round: round.index, potentials: r.recall.potentials, constraints: r.recall.constraints });
      }
    }
  }
  return out.sort((a, b) => b.at.localeCompare(a.at));
}
