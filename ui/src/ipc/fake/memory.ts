// The fake's MKCT store: Megrams in memory with the dual-channel potentials,
// computed live from the fake clock exactly as R5 defines them.

import type { Level, Megram, MemoryAction, Potentials } from '../contracts';
import type {
  MegramView,
  MemoryGroup,
  MemoryGroupDetail,
  MemoryThresholds,
  RecallRef,
} from '../commands';
import { DAY_MS } from './support';

export const LEVELS: readonly Level[] = ['M', 'K', 'C', 'T'];

function num(value: number | null): number {
  return value ?? 0;
}

/** Days since the later of creation and last recall. */
export function ageDays(megram: Megram, nowMs: number): number {
  const created = Date.parse(megram.created_at);
  const recalled = megram.last_recalled_at ? Date.parse(megram.last_recalled_at) : created;
  return Math.max(0, (nowMs - Math.max(created, recalled)) / DAY_MS);
}

export function liveContribution(megram: Megram, nowMs: number): { att: number; dec: number } {
  const decay = Math.exp(-num(megram.k) * ageDays(megram, nowMs));
  const f = num(megram.f);
  return { att: Math.abs(f) * decay, dec: num(megram.sigma) * f * decay };
}

export function actionOf(attention: number, decision: number, t: MemoryThresholds): MemoryAction {
  if (attention < t.attention_floor) return 'Ignore';
  if (decision > t.exploit_above) return 'Exploit';
  if (decision < t.avoid_below) return 'Avoid';
  return 'Caution';
}

function groupKey(space: string, entity: string): string {
  return `${space}\u0000${entity}`;
}

export class FakeMemory {
  private megrams: Megram[] = [];
  private readonly recalls = new Map<string, RecallRef[]>();

  constructor(
    private readonly thresholds: () => MemoryThresholds,
    private readonly now: () => number,
  ) {}

  all(): readonly Megram[] {
    return this.megrams;
  }

  add(megram: Megram): void {
    this.megrams.push(megram);
  }

  find(id: string): Megram | undefined {
    return this.megrams.find((m) => m.id === id);
  }

  inGroup(space: string, entity: string): Megram[] {
    return this.megrams.filter((m) => m.space === space && m.entity === entity);
  }

  potentials(space: string, entity: string): Potentials {
    let attention = 0;
    let decision = 0;
    const now = this.now();
    for (const m of this.inGroup(space, entity)) {
      const live = liveContribution(m, now);
      attention += live.att;
      decision += live.dec;
    }
    return { attention, decision, action: actionOf(attention, decision, this.thresholds()) };
  }

  groups(): MemoryGroup[] {
    const seen = new Map<string, MemoryGroup>();
    for (const m of this.megrams) {
      const key = groupKey(m.space, m.entity);
      let group = seen.get(key);
      if (!group) {
        group = {
          space: m.space,
          entity: m.entity,
          potentials: this.potentials(m.space, m.entity),
          counts: { M: 0, K: 0, C: 0, T: 0 },
          last_activity: null,
        };
        seen.set(key, group);
      }
      group.counts[m.level] += 1;
      const touched = m.last_recalled_at ?? m.created_at;
      if (group.last_activity === null || touched > group.last_activity) {
        group.last_activity = touched;
      }
    }
    return [...seen.values()].sort((a, b) =>
      (b.last_activity ?? '').localeCompare(a.last_activity ?? ''),
    );
  }

  detail(space: string, entity: string): MemoryGroupDetail | null {
    const members = this.inGroup(space, entity);
    if (members.length === 0) return null;
    const now = this.now();
    const megrams: MegramView[] = members
      .map((megram) => {
        const live = liveContribution(megram, now);
        return {
          megram,
          age_days: ageDays(megram, now),
          live_attention: live.att,
          live_decision: live.dec,
          // The fake has no Dreamer: no entry is ever distilled into a rule.
          consolidated: false,
        };
      })
      .sort((a, b) => b.megram.created_at.localeCompare(a.megram.created_at));
    return {
      space,
      entity,
      potentials: this.potentials(space, entity),
      megrams,
      recalls: [...(this.recalls.get(groupKey(space, entity)) ?? [])].reverse(),
    };
  }

  recordRecall(space: string, entity: string, recall: RecallRef): void {
    const key = groupKey(space, entity);
    const list = this.recalls.get(key) ?? [];
    list.push(recall);
    this.recalls.set(key, list);
  }

  /** Removes Megrams; the Four Laws are never removed (a persona T entry an older build
   * stored is). Returns the ids removed. */
  forget(predicate: (m: Megram) => boolean): string[] {
    const removed = this.megrams.filter((m) => m.state !== 'law' && predicate(m)).map((m) => m.id);
    const gone = new Set(removed);
    this.megrams = this.megrams.filter((m) => !gone.has(m.id));
    return removed;
  }

  /** Pinning makes an entry timeless (k = 0). */
  pin(id: string): Megram | null {
    const index = this.megrams.findIndex((m) => m.id === id);
    const current = this.megrams[index];
    if (!current) return null;
    const pinned: Megram = { ...current, k: 0 };
    this.megrams[index] = pinned;
    return pinned;
  }
}
