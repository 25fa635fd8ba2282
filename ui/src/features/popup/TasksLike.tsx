// "Tasks like this here: 4 of 5 delivered an answer…": while a task is typed, one quiet
// line under the input says how tasks of its kind went on this machine. The core writes
// the line (in the UI language) and says nothing with fewer than three runs of the kind;
// neither does the popup, nor when the question fails.

import { useEffect, useState } from 'preact/hooks';

import type { TasksLike } from '../../ipc/commands';

/** What the popup asks of the core for the text being typed. */
export type TasksLikeLookup = (text: string) => Promise<TasksLike | null>;

/** How long the typing must pause before the core is asked. */
export const TASKS_LIKE_DEBOUNCE_MS = 400;

/** The line for `text`, asked for once the typing pauses; null while there is none. */
export function useTasksLike(text: string, lookup: TasksLikeLookup | undefined): string | null {
  const [line, setLine] = useState<string | null>(null);
  useEffect(() => {
    const words = text.trim();
    // Nothing typed, or a slash command: no task to say anything about.
    if (!lookup || words.length === 0 || words.startsWith('/')) {
      setLine(null);
      return undefined;
    }
    let current = true;
    const timer = setTimeout(() => {
      lookup(words).then(
        (found) => {
          if (current) setLine(found?.line ?? null);
        },
        () => {
          if (current) setLine(null);
        },
      );
    }, TASKS_LIKE_DEBOUNCE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [text, lookup]);
  return line;
}

/** The line itself: plain text in a polite live region that is there before it speaks. */
export function TasksLikeLine({ line }: { line: string | null }) {
  return (
    <p class="muted small tasks-like" aria-live="polite" aria-atomic="true" data-testid="tasks-like">
      {line ?? ''}
    </p>
  );
}
