// Fixed ticks from elapsed time: an accumulator that turns any sequence of `advance(dt)` into ticks
// of exactly 1000 / tickRateHz ms, with a cap on catch-up so a stalled page does not spiral.

/** Float slack when comparing elapsed time with the interval: 1000 / 30 summed 30 times is not 1000. */
const EPSILON_MS = 1e-6;

export class TickLoop {
  readonly intervalMs: number;
  private accumulated = 0;
  /** Ticks skipped because one advance covered more than `maxCatchUpTicks` of them. */
  skipped = 0;

  constructor(
    tickRateHz: number,
    private readonly maxCatchUpTicks: number,
  ) {
    this.intervalMs = 1000 / tickRateHz;
  }

  /**
   * Splits `dtMs` into the time before each tick that falls due and the time left after the last,
   * calling `wait(ms)` and `tick()` in order. Returns the number of ticks run.
   */
  advance(dtMs: number, wait: (ms: number) => void, tick: () => void): number {
    let remaining = dtMs;
    let ticks = 0;
    while (this.accumulated + remaining >= this.intervalMs - EPSILON_MS) {
      const before = Math.max(0, Math.min(remaining, this.intervalMs - this.accumulated));
      wait(before);
      remaining -= before;
      this.accumulated = 0;
      if (ticks === this.maxCatchUpTicks) {
        // Too far behind: drop whole ticks rather than run an unbounded burst.
        const behind = Math.floor(remaining / this.intervalMs) + 1;
        this.skipped += behind;
        wait(remaining);
        this.accumulated = remaining % this.intervalMs;
        return ticks;
      }
      tick();
      ticks++;
    }
    wait(remaining);
    this.accumulated += remaining;
    return ticks;
  }
}
