// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startDriver } from '../../src/runtime/drivers.js';

describe('drivers (in a DOM)', () => {
  afterEach(() => vi.useRealTimers());

  it('steps once per animation frame by the time between frames, on a page by default', () => {
    const frames: FrameRequestCallback[] = [];
    vi.spyOn(window, 'requestAnimationFrame').mockImplementation((callback) => frames.push(callback));
    const cancel = vi.spyOn(window, 'cancelAnimationFrame').mockImplementation(() => {});
    const steps: number[] = [];
    const stop = startDriver({ tickRateHz: 60, step: (dt) => steps.push(dt) });
    frames.shift()!(1000);
    frames.shift()!(1016);
    frames.shift()!(1050);
    expect(steps).toEqual([16, 34]);
    stop();
    expect(cancel).toHaveBeenCalledOnce();
  });

  it('steps on an interval at the tick rate', () => {
    vi.useFakeTimers();
    let now = 0;
    const steps: number[] = [];
    const stop = startDriver({ tickRateHz: 10, step: (dt) => steps.push(dt) }, { pace: 'timer', now: () => now });
    for (let i = 0; i < 3; i++) {
      now += 100;
      vi.advanceTimersByTime(100);
    }
    stop();
    vi.advanceTimersByTime(1000);
    expect(steps).toEqual([100, 100, 100]);
  });

  it('paces by a timer where there is no requestAnimationFrame, and says what to use when frames are asked for', () => {
    vi.useFakeTimers();
    const original = globalThis.requestAnimationFrame;
    // @ts-expect-error: removed to stand for a worker or Node
    delete globalThis.requestAnimationFrame;
    try {
      const steps: number[] = [];
      const stop = startDriver({ tickRateHz: 10, step: (dt) => steps.push(dt) });
      vi.advanceTimersByTime(300);
      stop();
      expect(steps).toHaveLength(3);
      expect(() => startDriver({ tickRateHz: 60, step: () => {} }, { pace: 'frames' })).toThrow(/use \{ pace: 'timer' \} or call capsule.step/);
    } finally {
      globalThis.requestAnimationFrame = original;
    }
  });
});
