// Drivers turn some source of time into `capsule.step(dt)`. An engine with its own loop calls
// step itself from its update; these serve pages and processes without one.

/** What a driver needs of a capsule. */
export interface Steppable {
  step(dtMs: number): void;
  readonly tickRateHz: number;
}

export type StopDriver = () => void;

/** Steps on a timer at the tick rate (Node, workers, background pages). */
export function startIntervalDriver(capsule: Steppable, now: () => number = () => globalThis.performance.now()): StopDriver {
  let last = now();
  const handle = globalThis.setInterval(() => {
    const time = now();
    capsule.step(time - last);
    last = time;
  }, 1000 / capsule.tickRateHz);
  return () => globalThis.clearInterval(handle);
}

/** Steps once per animation frame with the frame's own timestamp (visible pages). */
export function startAnimationFrameDriver(capsule: Steppable): StopDriver {
  const raf = globalThis.requestAnimationFrame;
  if (typeof raf !== 'function') {
    throw new TypeError(
      'startAnimationFrameDriver: requestAnimationFrame is not available here; use startIntervalDriver or call capsule.step() from your loop',
    );
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
