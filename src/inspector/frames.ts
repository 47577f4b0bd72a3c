// When the panel redraws: at most once per animation frame, however many messages arrived since.

/** Asks for `callback` to run once before the next paint; returns a function that cancels the request. */
export type FrameScheduler = (callback: () => void) => () => void;

/** Fallback frame length where requestAnimationFrame is missing (a worker-less test DOM, an old page). */
export const FALLBACK_FRAME_MS = 16;

/** requestAnimationFrame where the page has it, else a timer of FALLBACK_FRAME_MS. */
export function animationFrames(): FrameScheduler {
  const raf = globalThis.requestAnimationFrame;
  const caf = globalThis.cancelAnimationFrame;
  if (typeof raf === 'function' && typeof caf === 'function') {
    return (callback) => {
      const id = raf.call(globalThis, () => callback());
      return () => caf.call(globalThis, id);
    };
  }
  return (callback) => {
    const id = globalThis.setTimeout(callback, FALLBACK_FRAME_MS);
    return () => globalThis.clearTimeout(id);
  };
}

/** Coalesces `request()` calls into one `draw` per frame; `cancel()` drops a pending one. */
export class FrameBatch {
  private cancelPending: (() => void) | undefined;

  constructor(
    private readonly schedule: FrameScheduler,
    private readonly draw: () => void,
  ) {}

  get pending(): boolean {
    return this.cancelPending !== undefined;
  }

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
