// The default redraw scheduler: a wait of the interval, then an animation frame. Driven by vitest's
// fake timers and a hand-run requestAnimationFrame, never by wall time.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { animationFrames, FrameBatch, REDRAW_INTERVAL_MS } from '../../src/inspector/frames.js';

const frames: Array<FrameRequestCallback | undefined> = [];
function runFrames(): void {
  const due = frames.splice(0);
  for (const callback of due) callback?.(0);
}

beforeEach(() => {
  vi.useFakeTimers();
  frames.length = 0;
  vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => frames.push(callback));
  vi.stubGlobal('cancelAnimationFrame', (id: number) => {
    frames[id - 1] = undefined;
  });
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('animationFrames', () => {
  it('waits REDRAW_INTERVAL_MS (100), then draws in the next animation frame', () => {
    expect(REDRAW_INTERVAL_MS).toBe(100);
    let drawn = 0;
    animationFrames()(() => drawn++);
    vi.advanceTimersByTime(99);
    runFrames();
    expect(drawn).toBe(0);
    vi.advanceTimersByTime(1);
    expect(drawn).toBe(0);
    runFrames();
    expect(drawn).toBe(1);
  });

  it('cancels in either phase: during the wait, or once the frame was asked for', () => {
    let drawn = 0;
    const schedule = animationFrames(50);
    schedule(() => drawn++)();
    vi.advanceTimersByTime(50);
    const cancel = schedule(() => drawn++);
    vi.advanceTimersByTime(50);
    cancel();
    runFrames();
    expect(drawn).toBe(0);
  });

  it('uses the wait alone where the page has no requestAnimationFrame', () => {
    vi.stubGlobal('requestAnimationFrame', undefined);
    let drawn = 0;
    animationFrames(30)(() => drawn++);
    vi.advanceTimersByTime(30);
    expect(drawn).toBe(1);
  });
});

describe('FrameBatch', () => {
  it('turns any number of requests before the callback into one draw, and a request after it into another', () => {
    let drawn = 0;
    const batch = new FrameBatch(animationFrames(10), () => drawn++);
    for (let i = 0; i < 100; i++) batch.request();
    vi.advanceTimersByTime(10);
    runFrames();
    expect(drawn).toBe(1);
    batch.request();
    vi.advanceTimersByTime(10);
    runFrames();
    expect(drawn).toBe(2);
    batch.request();
    batch.cancel();
    vi.advanceTimersByTime(10);
    runFrames();
    expect(drawn).toBe(2);
  });
});
