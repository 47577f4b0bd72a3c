// A driver turns some source of time into `capsule.step(dt)`. An engine with its own loop calls
// step itself from its update; a driver serves pages and processes without one.

/** What a driver needs of a capsule. */
export interface Steppable {
  step(dtMs: number): void;
  readonly tickRateHz: number;
}

export type StopDriver = () => void;

export interface DriverOptions {
  /**
   * What paces the steps: `frames`, once per animation frame with the frame's own timestamp (a
   * visible page; a hidden one gets none), or `timer`, an interval at the tick rate (Node, workers,
   * pages that must go on in the background). Default: frames where requestAnimationFrame exists.
   */
  pace?: 'frames' | 'timer';
  /** The time a timer-paced driver reads. Default performance.now. */
  now?: () => number;
}

/**
 * Steps `capsule` on the pace given until the returned function is called.
 *
 * @example
 * const stop = startDriver(capsule); // frames on a page, a timer in Node
 * // …later, before capsule.dispose():
 * stop();
 */
export function startDriver(capsule: Steppable, options: DriverOptions = {}): StopDriver {
  const raf = globalThis.requestAnimationFrame;
  const pace = options.pace ?? (typeof raf === 'function' ? 'frames' : 'timer');
  if (pace === 'timer') return timerDriver(capsule, options.now ?? (() => globalThis.performance.now()));
  if (typeof raf !== 'function') {
    throw new TypeError("startDriver: requestAnimationFrame is not available here; use { pace: 'timer' } or call capsule.step() from your loop");
  }
  let last: number | undefined;
  let handle = 0;
  const frame = (time: number): void => {
    if (last !== undefined) capsule.step(Math.max(0, time - last));
    last = time;
    handle = raf(frame);
  };
  handle = raf(frame);
  return () => globalThis.cancelAnimationFrame(handle);
}

function timerDriver(capsule: Steppable, now: () => number): StopDriver {
  let last = now();
  const handle = globalThis.setInterval(() => {
    const time = now();
    capsule.step(time - last);
    last = time;
  }, 1000 / capsule.tickRateHz);
  return () => globalThis.clearInterval(handle);
}
