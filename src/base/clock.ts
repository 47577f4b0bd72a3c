// Time for the capsule: every limit window, heartbeat, timeout and grace period reads this clock,
// so tests drive all of them by hand with a ManualClock.

export type TimerId = number;

/** What a timer is for. */
export interface TimerOptions {
  /**
   * Upkeep (heartbeats, deadlines, grace periods) rather than work: on wall time in Node such a
   * timer does not keep the process alive by itself, so a script whose work is done ends even with
   * a session still open. Default false.
   */
  background?: boolean;
}

/** The options of an upkeep timer, shared. */
export const UPKEEP: TimerOptions = Object.freeze({ background: true });

export interface Clock {
  /** Milliseconds on a monotonic scale; only differences matter. */
  now(): number;
  setTimeout(callback: () => void, delayMs: number, options?: TimerOptions): TimerId;
  clearTimeout(id: TimerId): void;
  /**
   * Moves time on by `ms`, firing the timers it passes — for clocks that move only when told
   * (ManualClock, a test's or a simulation's own). `capsule.step` calls it between ticks; wall
   * time has none.
   */
  advance?(ms: number): void;
}

/** Wall time: `performance.now()` and the platform's timers. */
export function realClock(): Clock {
  const timers = new Map<TimerId, ReturnType<typeof setTimeout>>();
  let nextId = 1;
  // Read once: in Node, globalThis.performance is a getter, and the capsule reads the time per message.
  const performance = globalThis.performance;
  return {
    now: () => performance.now(),
    setTimeout(callback, delayMs, options) {
      const id = nextId++;
      const handle = globalThis.setTimeout(() => {
        timers.delete(id);
        callback();
      }, delayMs);
      // Browsers have no unref: there, nothing holds a page open anyway.
      if (options?.background === true) (handle as { unref?: () => void }).unref?.();
      timers.set(id, handle);
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

/** Earlier first; among timers due together, the first set first. */
const before = (a: Timer, b: Timer): boolean => a.at < b.at || (a.at === b.at && a.id < b.id);

/**
 * A clock that moves only when told to; timers fire in time order as it passes them. Timers sit in
 * a binary heap, and a cleared one is only forgotten (dropped when it surfaces), so a run with
 * thousands of timers set and cleared per tick stays cheap.
 */
export class ManualClock implements Clock {
  private time: number;
  private readonly heap: Timer[] = [];
  private readonly live = new Map<TimerId, Timer>();
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
    this.live.set(id, timer);
    this.push(timer);
    return id;
  }

  clearTimeout(id: TimerId): void {
    if (!this.live.delete(id)) return;
    // Forgotten timers are dropped as they surface; rebuild when they would crowd the heap.
    if (this.heap.length > 2 * this.live.size + 64) this.rebuild();
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way, in order. */
  advance(ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) {
      throw new RangeError(`ManualClock.advance: expected a finite number >= 0, got ${ms}`);
    }
    const target = this.time + ms;
    for (;;) {
      const next = this.heap[0];
      if (next === undefined || next.at > target) break;
      this.pop();
      if (!this.live.delete(next.id)) continue;
      this.time = Math.max(this.time, next.at);
      next.callback();
    }
    this.time = target;
  }

  /** How many timers are waiting. */
  get pendingTimers(): number {
    return this.live.size;
  }

  private push(timer: Timer): void {
    const heap = this.heap;
    let i = heap.push(timer) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(timer, heap[parent]!)) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = timer;
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && before(heap[right]!, heap[left]!) ? right : left;
      if (!before(heap[child]!, last)) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
  }

  private rebuild(): void {
    this.heap.length = 0;
    for (const timer of this.live.values()) this.push(timer);
  }
}

export function isManualClock(clock: Clock): clock is ManualClock {
  return clock instanceof ManualClock;
}

/** Whether time on `clock` moves only when told (it has `advance`), as headless runs need. */
export function isSteppedClock(clock: Clock): clock is Clock & { advance(ms: number): void } {
  return typeof clock.advance === 'function';
}
