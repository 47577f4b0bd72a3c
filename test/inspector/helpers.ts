// Shared set-up for the inspector tests: frames that run only when the test says, and short ways to
// read the panel.

import type { FrameScheduler } from '../../src/inspector/frames.js';

/** A FrameScheduler driven by hand: `flush()` runs the frames requested so far. */
export class ManualFrames {
  private queue: Array<(() => void) | undefined> = [];
  requested = 0;

  readonly schedule: FrameScheduler = (callback) => {
    this.requested++;
    const index = this.queue.push(callback) - 1;
    return () => {
      this.queue[index] = undefined;
    };
  };

  get pending(): number {
    return this.queue.filter((callback) => callback !== undefined).length;
  }

  flush(): void {
    const due = this.queue;
    this.queue = [];
    for (const callback of due) callback?.();
  }
}

export function rows(root: Element, selector: string): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(selector));
}

/** The text of one named cell of a row. */
export function cell(row: Element, name: string): string {
  return row.querySelector(`[data-cell="${name}"]`)?.textContent ?? '';
}
