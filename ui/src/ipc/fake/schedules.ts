// The fake backend's schedules: a TEST DOUBLE of the core's schedule store (src/schedule),
// for the browser preview and the UI tests only.
//
// It does not read when a text says it should run; the core does. The fake decides by one
// fixed rule instead:
//
//   text that starts with "every " (any case) and has a comma with something after it is
//   kept as a schedule of what follows the first comma; the schedule runs every weekday at
//   09:00 local time, WHATEVER the words before the comma say. Any other text is a task
//   that runs now.
//
// So "every weekday at 9, summarize ~/Downloads" is kept as the core would keep it, and
// "every hour, check the inbox" is kept too, but as every weekday at 09:00. Its views and
// its message have the shapes the core gives them (ScheduleView, made_message), and its
// schedules never run. Tests seed schedules with other rules through `seed`.
//
// Every schedule it keeps waits an hour for an answer, said as the core says it
// (FAKE_WINDOW). A window set afterwards is said in minutes, WHATEVER its length
// ("a question waits up to 240 min for your answer"); the core says 4 h.

import { IpcError } from '../backend';
import type { Day, Rule, Schedule, ScheduleView, TaskId } from '../bindings';
import { IdMint, iso } from './support';

/** The rule of every schedule the fake keeps from a text. */
export const FAKE_RULE: Rule = { kind: 'at', days: ['mon', 'tue', 'wed', 'thu', 'fri'], time: '09:00' };
/** FAKE_RULE in words, as the core says it. */
export const FAKE_WHEN = 'every weekday at 09:00';
/** The answer window of every fake schedule (the core's default, an hour), as the core says it. */
export const FAKE_WINDOW = 'a question waits up to 1 h for your answer';
/** That window in seconds. */
const FAKE_WINDOW_SECS = 3600;

/** The task of `text` when the fake keeps it as a schedule (the fixed rule above), else null. */
export function scheduledTask(text: string): string | null {
  const raw = text.trim();
  if (!/^every /i.test(raw)) return null;
  const comma = raw.indexOf(',');
  if (comma < 0) return null;
  const task = raw.slice(comma + 1).trim();
  return task.length > 0 ? task : null;
}

/** What a seeded schedule may set; a rule other than FAKE_RULE needs its words. */
export interface SeededSchedule {
  rule?: Rule;
  when?: string;
  created_at?: string;
  runs?: number;
  last_run?: string;
  last_task?: TaskId;
}

const DAY_INDEX: Record<Day, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The first time `rule` runs after `after` (local time), counting a repeat from `anchor`. */
function nextAfter(rule: Rule, after: number, anchor: number): number {
  if (rule.kind === 'every') {
    const period = Math.max(1, rule.minutes) * 60_000;
    return anchor + (Math.floor(Math.max(0, after - anchor) / period) + 1) * period;
  }
  const [hours, minutes] = rule.time.split(':').map(Number);
  const days = new Set(rule.days.map((d) => DAY_INDEX[d]));
  const day = new Date(after);
  for (let i = 0; i <= 7; i++) {
    const at = new Date(day.getFullYear(), day.getMonth(), day.getDate() + i, hours ?? 0, minutes ?? 0).getTime();
    if (at > after && days.has(new Date(at).getDay())) return at;
  }
  throw new Error('a schedule rule with no day');
}

/** "Mon 2 Mar 09:00" in local time, as the core writes a next run. */
function shortLocal(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${WEEKDAYS[d.getDay()]} ${d.getDate()} ${MONTHS[d.getMonth()]} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export class FakeSchedules {
  private list: { schedule: Schedule; when: string; window: string }[] = [];
  // Its own ids: making a schedule leaves the ids of the played runs as they were.
  private readonly ids = new IdMint(20260301);

  /** Keeps a schedule of `task`, made at `now`; its view at `now`. */
  add(task: string, now: number, seeded: SeededSchedule = {}): ScheduleView {
    if (seeded.rule && !seeded.when) throw new Error('a seeded rule needs its words (`when`)');
    const schedule: Schedule = {
      id: `sch_${this.ids.uuid().slice(0, 6)}`,
      task: task.trim(),
      rule: structuredClone(seeded.rule ?? FAKE_RULE),
      created_at: seeded.created_at ?? iso(now),
      runs: seeded.runs ?? 0,
      answer_window_secs: FAKE_WINDOW_SECS,
    };
    if (seeded.last_run) schedule.last_run = seeded.last_run;
    if (seeded.last_task) schedule.last_task = seeded.last_task;
    const kept = { schedule, when: seeded.when ?? FAKE_WHEN, window: FAKE_WINDOW };
    this.list = [...this.list, kept];
    return this.view(kept, now);
  }

  /** Every schedule, oldest first, with its next run after `now`. */
  views(now: number): ScheduleView[] {
    return this.list.map((s) => this.view(s, now));
  }

  /** Removes `id`; the remaining ones. */
  remove(id: string, now: number): ScheduleView[] {
    if (!this.list.some((s) => s.schedule.id === id)) throw new IpcError('not_found', `no schedule ${id}`);
    this.list = this.list.filter((s) => s.schedule.id !== id);
    return this.views(now);
  }

  /** Sets how long `id`'s question waits (a minute at least); every schedule. */
  setWindow(id: string, minutes: number, now: number): ScheduleView[] {
    const kept = this.list.find((s) => s.schedule.id === id);
    if (!kept) throw new IpcError('not_found', `no schedule ${id}`);
    const mins = Math.max(1, Math.floor(minutes));
    kept.schedule.answer_window_secs = mins * 60;
    kept.window = `a question waits up to ${mins} min for your answer`;
    return this.views(now);
  }

  private view({ schedule, when, window }: { schedule: Schedule; when: string; window: string }, now: number): ScheduleView {
    const since = Date.parse(schedule.last_run ?? schedule.created_at);
    const next = nextAfter(schedule.rule, Math.max(since, now), Date.parse(schedule.created_at));
    return { schedule: structuredClone(schedule), when, next_run: iso(next), window };
  }
}

/** What the core says when a schedule was made (src/schedule: made_message), word for word. */
export function madeMessage(view: ScheduleView): string {
  const { task } = view.schedule;
  return `Scheduled ${view.when}: ${task}. Next run: ${shortLocal(Date.parse(view.next_run))}. It runs while the artoo app is running, and anything that needs your approval still asks: ${view.window} (no answer is a no).`;
}
