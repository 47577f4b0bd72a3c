// Runs a capsule headless, as fast as the machine allows: simulated time moves one tick at a time on
// the capsule's ManualClock, and between ticks the in-process agents get to react. Wall time is read
// only to report speed; it never reaches the simulation, so a run is reproducible from its seed.

import type { Capsule } from '../../runtime/capsule.js';
import { isSteppedClock } from '../../base/clock.js';
import { CapsuleError } from '../../base/errors.js';

export interface HeadlessOptions {
  /** A capsule created with `clock: new ManualClock()`, in 'fixed' or 'hybrid' tick mode. */
  capsule: Capsule;
  /** Most ticks to run. */
  ticks: number;
  /** Checked after each tick (and its onTick); true ends the run early. */
  stopWhen?: (tick: number) => boolean;
  /** Called after each tick once the agents have reacted; awaited when it returns a promise. */
  onTick?: (tick: number) => void | Promise<void>;
  /** Told how far the run is, at most about ten times a second of wall time, and once at the end. */
  progress?: (done: number, total: number) => void;
  /** Wall time in ms, for the report only. Default `performance.now`. */
  now?: () => number;
}

export interface HeadlessResult {
  /** Ticks this run stepped. */
  ticks: number;
  /** Wall time the run took: varies run to run, so keep it out of reproducibility checks. */
  wallMs: number;
  /** `ticks` per second of wall time; 0 when no wall time was measured. */
  ticksPerSecond: number;
  stoppedBy: 'ticks' | 'condition';
}

/** Wall time between two progress reports: about ten a second is smooth and costs nothing. */
const PROGRESS_INTERVAL_MS = 100;

/**
 * Steps the capsule `1000 / tickRateHz` ms at a time. After each step it waits for the agents
 * (`yieldToAgents`), then calls `onTick(capsule.tick)` and `stopWhen(capsule.tick)`.
 */
export async function runHeadless(options: HeadlessOptions): Promise<HeadlessResult> {
  const { capsule, ticks, stopWhen, onTick, progress } = options;
  checkRunnable(capsule, ticks);
  const now = options.now ?? (() => globalThis.performance.now());
  const intervalMs = 1000 / capsule.tickRateHz;
  const started = now();
  let lastReport = started;
  let done = 0;
  let stoppedBy: HeadlessResult['stoppedBy'] = 'ticks';
  // Agents connected just before the run get their session_init before the first tick.
  await yieldToAgents();
  while (done < ticks) {
    capsule.step(intervalMs);
    done++;
    await yieldToAgents();
    if (onTick !== undefined) await onTick(capsule.tick);
    if (progress !== undefined) {
      const time = now();
      if (time - lastReport >= PROGRESS_INTERVAL_MS) {
        lastReport = time;
        progress(done, ticks);
      }
    }
    if (stopWhen?.(capsule.tick) === true) {
      stoppedBy = 'condition';
      break;
    }
  }
  progress?.(done, ticks);
  const wallMs = now() - started;
  return { ticks: done, wallMs, ticksPerSecond: wallMs > 0 ? (done * 1000) / wallMs : 0, stoppedBy };
}

function checkRunnable(capsule: Capsule, ticks: number): void {
  if (!isSteppedClock(capsule.clock)) {
    throw new CapsuleError(
      'AICC_INVALID_OPTION',
      'runHeadless: the capsule runs on wall time; a headless run moves simulated time itself, tick by tick, as fast as it can. Create the capsule with `clock: new ManualClock()` (or any clock with `advance`).',
    );
  }
  if (capsule.tickMode === 'event') {
    throw new CapsuleError(
      'AICC_INVALID_OPTION',
      "runHeadless: the capsule is in 'event' tick mode, where ticks come only from actions and capsule.trigger(); there is nothing to step. Use tickMode 'fixed' or 'hybrid', or drive an event-mode world with trigger().",
    );
  }
  if (!Number.isInteger(ticks) || ticks < 0) {
    throw new CapsuleError('AICC_INVALID_OPTION', `runHeadless: ticks must be a whole number >= 0, got ${ticks}`);
  }
}

/** The scheduling functions `yieldTo` may use; the global ones unless a test passes its own. */
export interface YieldGlobals {
  setImmediate?: (callback: () => void) => unknown;
  MessageChannel?: new () => { port1: { onmessage: ((event: unknown) => void) | null }; port2: { postMessage(message: unknown): void } };
  setTimeout?: (callback: () => void, ms: number) => unknown;
}

/**
 * A function that resolves once every queued microtask has run — and with them every memory-link
 * delivery and every agent reaction they set off, however deep the chain. A macrotask is the one
 * thing that runs only after the microtask queue is empty: `setImmediate` where it exists (Node),
 * else a `MessageChannel` message (browsers, workers; not clamped like timers), else `setTimeout(0)`.
 */
export function createYield(globals: YieldGlobals = globalThis as YieldGlobals): () => Promise<void> {
  const immediate = globals.setImmediate;
  if (typeof immediate === 'function') return () => new Promise((resolve) => void immediate(resolve));
  const Channel = globals.MessageChannel;
  if (typeof Channel === 'function') {
    // One channel for the whole run; each message wakes the oldest waiter.
    let channel: InstanceType<typeof Channel> | undefined;
    const waiting: Array<() => void> = [];
    return () =>
      new Promise((resolve) => {
        if (channel === undefined) {
          channel = new Channel();
          channel.port1.onmessage = () => waiting.shift()?.();
        }
        waiting.push(resolve);
        channel.port2.postMessage(0);
      });
  }
  const timeout = globals.setTimeout;
  if (typeof timeout === 'function') return () => new Promise((resolve) => void timeout(resolve, 0));
  throw new CapsuleError('AICC_INVALID_OPTION', 'yieldToAgents: this platform has no setImmediate, MessageChannel or setTimeout to wait for agents with');
}

let sharedYield: (() => Promise<void>) | undefined;

/** Lets in-process agents react: resolves after all microtasks and link deliveries have settled. */
export function yieldToAgents(): Promise<void> {
  sharedYield ??= createYield();
  return sharedYield();
}
