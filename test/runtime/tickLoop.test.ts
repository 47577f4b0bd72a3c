import { describe, expect, it } from 'vitest';
import { TickLoop } from '../../src/runtime/tickLoop.js';

/** Runs one advance and records what it did: 'w:<ms>' for a wait, 'T' for a tick. */
function record(loop: TickLoop, dtMs: number): { ticks: number; log: string[]; waited: number } {
  const log: string[] = [];
  let waited = 0;
  const ticks = loop.advance(
    dtMs,
    (ms) => {
      log.push(`w:${ms}`);
      waited += ms;
    },
    () => log.push('T'),
  );
  return { ticks, log, waited };
}

describe('TickLoop', () => {
  it('has an interval of 1000 / tickRateHz ms', () => {
    expect(new TickLoop(10, 5).intervalMs).toBe(100);
    expect(new TickLoop(4, 5).intervalMs).toBe(250);
    expect(new TickLoop(0.5, 5).intervalMs).toBe(2000);
  });

  it('at 10 Hz turns 250 ms into 2 ticks with 50 ms left, then 50 ms more into 1 tick', () => {
    const loop = new TickLoop(10, 5);
    expect(record(loop, 250).ticks).toBe(2);
    expect(record(loop, 50).ticks).toBe(1);
    expect(loop.skipped).toBe(0);
  });

  it('runs no tick before a whole interval has passed', () => {
    const loop = new TickLoop(10, 5);
    expect(record(loop, 99).ticks).toBe(0);
    expect(record(loop, 0).ticks).toBe(0);
    expect(record(loop, 1).ticks).toBe(1);
  });

  it('carries the remainder across many small advances: 30 × 10 ms at 10 Hz is 3 ticks', () => {
    const loop = new TickLoop(10, 5);
    const perAdvance = Array.from({ length: 30 }, () => record(loop, 10).ticks);
    expect(perAdvance.reduce((a, b) => a + b, 0)).toBe(3);
    expect(perAdvance.flatMap((n, i) => (n === 1 ? [i] : []))).toEqual([9, 19, 29]);
  });

  it('runs a tick for an advance that lands exactly on a boundary', () => {
    const loop = new TickLoop(10, 5);
    expect(record(loop, 100).ticks).toBe(1);
    expect(record(loop, 300).ticks).toBe(3);
  });

  it('splits an advance into waits that end exactly at tick boundaries, each followed by its tick', () => {
    const loop = new TickLoop(10, 5);
    expect(record(loop, 250).log).toEqual(['w:100', 'T', 'w:100', 'T', 'w:50']);
    // 50 ms were already accumulated, so the next boundary is 50 ms away.
    expect(record(loop, 130).log).toEqual(['w:50', 'T', 'w:80']);
    expect(record(loop, 30).log).toEqual(['w:20', 'T', 'w:10']);
    expect(record(loop, 90).log).toEqual(['w:90', 'T', 'w:0']);
  });

  it('waits, in total, exactly the time it was given', () => {
    const loop = new TickLoop(10, 5);
    for (const dt of [250, 50, 0, 1, 99, 333, 17]) expect(record(loop, dt).waited).toBe(dt);
  });

  it('caps catch-up: one advance of 1000 ms at 10 Hz with maxCatchUpTicks 5 runs 5 ticks and skips 5', () => {
    const loop = new TickLoop(10, 5);
    const run = record(loop, 1000);
    expect(run.ticks).toBe(5);
    expect(run.log.filter((entry) => entry === 'T')).toHaveLength(5);
    expect(loop.skipped).toBe(5);
    expect(run.waited).toBe(1000);
  });

  it('after skipping keeps the sub-interval remainder: 1030 ms, then 70 ms, gives one more tick', () => {
    const loop = new TickLoop(10, 5);
    expect(record(loop, 1030).ticks).toBe(5);
    expect(loop.skipped).toBe(5);
    expect(record(loop, 69).ticks).toBe(0);
    expect(record(loop, 1).ticks).toBe(1);
  });

  it('counts a single tick over the cap as skipped', () => {
    const loop = new TickLoop(10, 5);
    expect(record(loop, 600).ticks).toBe(5);
    expect(loop.skipped).toBe(1);
  });

  it('does not skip when an advance covers exactly maxCatchUpTicks ticks', () => {
    const loop = new TickLoop(10, 5);
    expect(record(loop, 599).ticks).toBe(5);
    expect(loop.skipped).toBe(0);
  });

  it('accumulates skipped ticks over several stalls', () => {
    const loop = new TickLoop(10, 2);
    record(loop, 500); // 2 run, 3 skipped
    record(loop, 1000); // 2 run, 8 skipped
    expect(loop.skipped).toBe(11);
  });

  // Intervals that are not exact binary fractions (1000 / 30, 1000 / 60) must not lose the tick
  // that falls due exactly at the end of an advance to rounding.
  it('at 30 Hz, 1000 ms run 30 ticks', () => {
    const loop = new TickLoop(30, 100);
    expect(record(loop, 1000).ticks).toBe(30);
  });

  it('at 60 Hz, 1000 advances of 1 ms run 60 ticks', () => {
    const loop = new TickLoop(60, 100);
    let ticks = 0;
    for (let i = 0; i < 1000; i++) ticks += record(loop, 1).ticks;
    expect(ticks).toBe(60);
  });
});
