// Time for the capsule: every limit window, heartbeat, timeout and grace period reads this clock,
// so tests drive all of them by hand with a ManualClock.

export type TimerId = number;

export interface Clock {
  /** Milliseconds on a monotonic scale; only differences matter. */
  now(): number;
  setTimeout(callback: () => void, delayMs: number): TimerId;
  clearTimeout(id: TimerId): void;
}

/** Wall time: `performance.now()` and the platform's timers. */
export function realClock(): Clock {
  const timers = new Map<TimerId, ReturnType<typeof setTimeout>>();
  let nextId = 1;
  return {
    now: () => globalThis.performance.now(),
    setTimeout(callback, delayMs) {
      const id = nextId++;
      timers.set(
        id,
        globalThis.setTimeout(() => {
          timers.delete(id);
          callback();
        }, delayMs),
      );
      return id;
    },
    clearTimeout(id) {
      const handle = timers.get(id);
      if (handle !== undefined) globalThis.clearTimeout(handle);
      timers.delete(id);
    },
  };
}

interface Timer {
  id: TimerId;
  at: number;
  callback: () => void;
}

/** A clock that moves only when told to; timers fire in time order as it passes them. */
export class ManualClock implements Clock {
  private time: number;
  private timers: Timer[] = [];
  private nextId = 1;

  constructor(startMs = 0) {
    this.time = startMs;
  }

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, delayMs: number): TimerId {
    const id = this.nextId++;
    // Like platform timers, a negative or non-numeric delay means "as soon as possible".
    const timer = { id, at: this.time + (delayMs > 0 && Number.isFinite(delayMs) ? delayMs : 0), callback };
    // Keep the list sorted by due time, first-set first among equals.
    let index = this.timers.length;
    while (index > 0 && this.timers[index - 1]!.at > timer.at) index--;
    this.timers.splice(index, 0, timer);
    return id;
  }

  clearTimeout(id: TimerId): void {
    const index = this.timers.findIndex((timer) => timer.id === id);
    if (index >= 0) this.timers.splice(index, 1);
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way, in order. */
  advance(ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) {
      throw new RangeError(`ManualClock.advance: expected a finite number >= 0, got ${ms}`);
    }
    const target = this.time + ms;
    for (;;) {
      const next = this.timers[0];
      if (next === undefined || next.at > target) break;
      this.timers.shift();
      this.time = Math.max(this.time, next.at);
      next.callback();
    }
    this.time = target;
  }

  /** How many timers are waiting. */
  get pendingTimers(): number {
    return this.timers.length;
  }
}

export function isManualClock(clock: Clock): clock is ManualClock {
  return clock instanceof ManualClock;
}
