// Time in the pi-client targets: a ManualClock the run moves itself, so that every timeout,
// backoff and poll fires when the run says, the same way for the same seed.

import type { ManualClock } from '../../../src/base/clock.js';

/** The request timeout both clients are given: every deadline of a run is a multiple of it. */
export const TIMEOUT_MS = 1_000;

/** Lets queued link deliveries and promise continuations run. */
export const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Moves the clock in steps until `done()`, at most `maxMs`: what time does on its own (timeouts,
 * backoff, polls). True when done.
 */
export async function runClock(clock: ManualClock, done: () => boolean, stepMs: number, maxMs: number): Promise<boolean> {
  for (let ran = 0; ran < maxMs; ran += stepMs) {
    await settle();
    if (done()) return true;
    clock.advance(stepMs);
  }
  await settle();
  return done();
}
