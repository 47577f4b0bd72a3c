// "Run this after the current work": one microtask for every task asked for in the same turn, where
// each caller queueing its own would cost a microtask apiece — a capsule with fifty sessions asks for
// fifty deliveries and fifty link drains per tick, and a browser's queueMicrotask is not cheap.

/**
 * A task: a function, or an object that runs itself — so that something with a task of its own to
 * queue again and again (a link's drain) need not keep a closure for it.
 */
export type Task = (() => void) | { run(): void };

/**
 * A queue of tasks run together in one microtask. Tasks asked for while a batch runs go into the next
 * batch, a microtask of its own queued behind whatever the current tasks queued: the order is what
 * one queueMicrotask per task would give. `around`, when given, runs each batch (a host timing the
 * work, say).
 */
export function microtaskBatch(around?: (run: () => void) => void): (task: Task) => void {
  let tasks: Task[] = [];
  const run = (): void => {
    const due = tasks;
    tasks = [];
    for (const task of due) {
      try {
        if (typeof task === 'function') task();
        else task.run();
      } catch (error) {
        // One task's failure must not cost the others: reported on its own, as its own microtask would be.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  };
  const start = around === undefined ? run : (): void => runAround(around, run);
  return (task) => {
    if (tasks.push(task) === 1) queueMicrotask(start);
  };
}

/**
 * Runs `work` through `around` (a host timing it, say) exactly once: a wrapper that throws or forgets
 * to call it must not cost the work, which then runs right after it; a second call does nothing.
 */
export function runAround(around: (work: () => void) => void, work: () => void): void {
  let ran = false;
  try {
    around(() => {
      if (ran) return;
      ran = true;
      work();
    });
  } finally {
    if (!ran) work();
  }
}

let shared: ((task: Task) => void) | undefined;

/** Runs `task` in a microtask shared with every other task asked for in this turn, in the order asked. */
export function soon(task: Task): void {
  (shared ??= microtaskBatch())(task);
}
