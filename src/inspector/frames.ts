// When the panel redraws: at most once per REDRAW_INTERVAL_MS, in an animation frame, however many
// messages arrived since. A person reads the panel at a few updates a second; drawing it every
// frame of a busy game would spend the frame budget on text nobody can read yet.

/** Asks for `callback` to run once, later; returns a function that cancels the request. */
export type FrameScheduler = (callback: () => void) => () => void;

/** Least time between two redraws of the default scheduler, in ms. */
export const REDRAW_INTERVAL_MS = 100;

/**
 * Waits `intervalMs`, then the next requestAnimationFrame (where the page has none, the wait
 * alone). Since a redraw is asked for only once something changed, and requests are coalesced
 * until the redraw runs, this caps redraws at about 1000 / intervalMs a second.
 */
export function animationFrames(intervalMs: number = REDRAW_INTERVAL_MS): FrameScheduler {
  const raf = globalThis.requestAnimationFrame;
  const caf = globalThis.cancelAnimationFrame;
  const hasFrames = typeof raf === 'function' && typeof caf === 'function';
  return (callback) => {
    let frame: number | undefined;
    const timer = globalThis.setTimeout(() => {
      if (hasFrames) frame = raf.call(globalThis, () => callback());
      else callback();
    }, intervalMs);
    return () => {
      globalThis.clearTimeout(timer);
      if (frame !== undefined) caf.call(globalThis, frame);
    };
  };
}

/** Coalesces `request()` calls into one `draw` per scheduled callback; `cancel()` drops a pending one. */
export class FrameBatch {
  private cancelPending: (() => void) | undefined;

  constructor(
    private readonly schedule: FrameScheduler,
    private readonly draw: () => void,
  ) {}

  request(): void {
    if (this.cancelPending !== undefined) return;
    this.cancelPending = this.schedule(() => {
      this.cancelPending = undefined;
      this.draw();
    });
  }

  cancel(): void {
    this.cancelPending?.();
    this.cancelPending = undefined;
  }
}
