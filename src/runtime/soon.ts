// "Run this after the current work": one microtask for every task asked for in the same turn, where
// each caller queueing its own would cost a microtask apiece — a capsule with fifty sessions asks for
// fifty deliveries and fifty link drains per tick, and a browser's queueMicrotask is not cheap.

/**
 * Tasks asked for while a batch runs go into the next batch, a microtask of their own queued behind
 * whatever the current tasks queued: the order is what one queueMicrotask per task would give.
 * `around`, when given, runs each batch (a host timing the work, say).
 */
export class MicrotaskBatch {
  private tasks: Array<() => void> = [];
  private queued = false;

  constructor(private readonly around?: (run: () => void) => void) {}

  add(task: () => void): void {
    this.tasks.push(task);
    if (this.queued) return;
    this.queued = true;
    queueMicrotask(this.run);
  }

  private readonly run = (): void => {
    if (this.around === undefined) this.runTasks();
    else this.around(this.runTasks);
  };

  private readonly runTasks = (): void => {
    const tasks = this.tasks;
    this.tasks = [];
    this.queued = false;
    for (const task of tasks) {
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
}

let batch: MicrotaskBatch | undefined;

/** Runs `task` in a microtask shared with every other task asked for in this turn, in the order asked. */
export function soon(task: () => void): void {
  (batch ??= new MicrotaskBatch()).add(task);
}
