// "Run this after the current work": one microtask for every task asked for in the same turn, where
// each caller queueing its own would cost a microtask apiece — a capsule with fifty sessions asks for
// fifty deliveries and fifty link drains per tick, and a browser's queueMicrotask is not cheap.

/**
 * A queue of tasks run together in one microtask. Tasks asked for while a batch runs go into the next
 * batch, a microtask of its own queued behind whatever the current tasks queued: the order is what
 * one queueMicrotask per task would give. `around`, when given, runs each batch (a host timing the
 * work, say).
 */
export function microtaskBatch(around?: (run: () => void) => void): (task: () => void) => void {
  let tasks: Array<() => void> = [];
  const run = (): void => {
    const due = tasks;
    tasks = [];
    for (const task of due) {
      try {
        task();
      } catch (error) {
        // One task's failure must not cost the others: reported on its own, as its own microtask would be.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  };
  // A wrapper that throws or forgets to call `run` must not cost the batch its tasks: they run anyway.
  const start =
    around === undefined
      ? run
      : (): void => {
          let ran = false;
          try {
            around(() => {
              ran = true;
              run();
            });
          } finally {
            if (!ran) run();
          }
        };
  return (task) => {
    if (tasks.push(task) === 1) queueMicrotask(start);
  };
}

let shared: ((task: () => void) => void) | undefined;

/** Runs `task` in a microtask shared with every other task asked for in this turn, in the order asked. */
export function soon(task: () => void): void {
  (shared ??= microtaskBatch())(task);
}
