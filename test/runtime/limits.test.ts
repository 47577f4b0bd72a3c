import { describe, expect, it } from 'vitest';
import { MINUTE_MS, SlidingWindow, ToolUsage } from '../../src/runtime/limits.js';

function windowWith(limit: number, times: number[]): SlidingWindow {
  const window = new SlidingWindow(limit);
  for (const time of times) window.record(time);
  return window;
}

describe('SlidingWindow', () => {
  it('is a minute long', () => {
    expect(MINUTE_MS).toBe(60_000);
  });

  it('lets calls go while fewer than `limit` were recorded', () => {
    const window = windowWith(2, [0]);
    expect(window.waitMs(0)).toBe(0);
    expect(new SlidingWindow(2).waitMs(0)).toBe(0);
  });

  it('with limit 2 and calls at 0 and 10, refuses a third until 60,000: waitMs(59,999) is 1, waitMs(60,000) is 0', () => {
    const window = windowWith(2, [0, 10]);
    expect(window.waitMs(10)).toBe(59_990);
    expect(window.waitMs(59_999)).toBe(1);
    expect(window.waitMs(60_000)).toBe(0);
    expect(window.waitMs(70_000)).toBe(0);
  });

  it('after a third call at 60,000 the call at 10 is the oldest: waitMs(60,009) is 1, waitMs(60,010) is 0', () => {
    const window = windowWith(2, [0, 10, 60_000]);
    expect(window.waitMs(60_009)).toBe(1);
    expect(window.waitMs(60_010)).toBe(0);
  });

  it('keeps sliding as the ring wraps several times', () => {
    const window = windowWith(2, [0, 10, 60_000, 60_010, 120_000]);
    // Held: 60,010 and 120,000; the oldest is 60,010.
    expect(window.waitMs(120_009)).toBe(1);
    expect(window.waitMs(120_010)).toBe(0);
  });

  it('with limit 1 waits a full minute after each call', () => {
    const window = windowWith(1, [500]);
    expect(window.waitMs(500)).toBe(60_000);
    expect(window.waitMs(60_499)).toBe(1);
    expect(window.waitMs(60_500)).toBe(0);
  });

  it('resized to a smaller limit keeps the newest calls', () => {
    const smaller = windowWith(3, [0, 10, 20]).resized(2);
    expect(smaller.limit).toBe(2);
    // Calls at 10 and 20 kept: the wait is measured from 10, not 0.
    expect(smaller.waitMs(60_009)).toBe(1);
    expect(smaller.waitMs(60_010)).toBe(0);
  });

  it('resized after the ring wrapped still keeps the newest calls in order', () => {
    const wrapped = windowWith(2, [0, 10, 20]); // ring holds 20 and 10
    const one = wrapped.resized(1);
    expect(one.waitMs(60_019)).toBe(1);
    expect(one.waitMs(60_020)).toBe(0);
  });

  it('resized to a larger limit keeps every call and has room for more', () => {
    const larger = windowWith(2, [0, 10]).resized(3);
    expect(larger.waitMs(20)).toBe(0);
    larger.record(20);
    expect(larger.waitMs(59_999)).toBe(1);
    expect(larger.waitMs(60_000)).toBe(0);
  });

  it('resized leaves the original window unchanged', () => {
    const original = windowWith(3, [0, 10, 20]);
    original.resized(1);
    expect(original.limit).toBe(3);
    expect(original.waitMs(59_999)).toBe(1);
  });
});

describe('ToolUsage', () => {
  it('lets every call go when the tool has no limits', () => {
    const usage = new ToolUsage();
    for (let i = 0; i < 100; i++) usage.record(undefined, i);
    expect(usage.check('look', undefined, 100)).toEqual({ ok: true });
    expect(usage.check('look', {}, 100)).toEqual({ ok: true });
    expect(usage.used).toBe(100);
  });

  it('counts every recorded call in `used`', () => {
    const usage = new ToolUsage();
    usage.record({ calls_per_minute: 5 }, 0);
    usage.record(undefined, 1);
    usage.record({ calls_per_session: 9 }, 2);
    expect(usage.used).toBe(3);
  });

  it('refuses with quota_exhausted once calls_per_session calls were made', () => {
    const usage = new ToolUsage();
    const limits = { calls_per_session: 2 };
    expect(usage.check('jump', limits, 0)).toEqual({ ok: true });
    usage.record(limits, 0);
    expect(usage.check('jump', limits, 1)).toEqual({ ok: true });
    usage.record(limits, 1);
    expect(usage.check('jump', limits, 2)).toEqual({
      ok: false,
      kind: 'quota_exhausted',
      message: "jump: the session's quota of 2 calls is used up",
    });
  });

  it('never lets an exhausted quota recover with time', () => {
    const usage = new ToolUsage();
    usage.record({ calls_per_session: 1 }, 0);
    expect(usage.check('jump', { calls_per_session: 1 }, 10 * MINUTE_MS)).toMatchObject({ ok: false, kind: 'quota_exhausted' });
  });

  it('refuses with rate_limited, naming the limit and the retry time in ms', () => {
    const usage = new ToolUsage();
    const limits = { calls_per_minute: 2 };
    usage.record(limits, 0);
    usage.record(limits, 10);
    expect(usage.check('shoot', limits, 1000)).toEqual({
      ok: false,
      kind: 'rate_limited',
      message: 'shoot: at most 2 calls per minute; retry in 59000 ms',
    });
    expect(usage.check('shoot', limits, 60_000)).toEqual({ ok: true });
  });

  it('rounds a fractional retry time up to whole ms', () => {
    const usage = new ToolUsage();
    const limits = { calls_per_minute: 1 };
    usage.record(limits, 0);
    expect(usage.check('shoot', limits, 59_998.5)).toEqual({
      ok: false,
      kind: 'rate_limited',
      message: 'shoot: at most 1 calls per minute; retry in 2 ms',
    });
  });

  it('reports quota_exhausted before rate_limited when both apply', () => {
    const usage = new ToolUsage();
    const limits = { calls_per_minute: 1, calls_per_session: 1 };
    usage.record(limits, 0);
    expect(usage.check('shoot', limits, 1)).toMatchObject({ ok: false, kind: 'quota_exhausted' });
  });

  it('keeps the call history when calls_per_minute is raised', () => {
    const usage = new ToolUsage();
    usage.record({ calls_per_minute: 2 }, 0);
    usage.record({ calls_per_minute: 2 }, 10);
    const raised = { calls_per_minute: 3 };
    expect(usage.check('shoot', raised, 20)).toEqual({ ok: true });
    usage.record(raised, 20);
    // Three calls held (0, 10, 20): the fourth waits for the one at 0 to leave.
    expect(usage.check('shoot', raised, 30)).toEqual({
      ok: false,
      kind: 'rate_limited',
      message: 'shoot: at most 3 calls per minute; retry in 59970 ms',
    });
  });

  it('keeps the newest calls when calls_per_minute is lowered', () => {
    const usage = new ToolUsage();
    const before = { calls_per_minute: 3 };
    for (const t of [0, 10, 20]) usage.record(before, t);
    expect(usage.check('shoot', { calls_per_minute: 1 }, 30)).toEqual({
      ok: false,
      kind: 'rate_limited',
      message: 'shoot: at most 1 calls per minute; retry in 59990 ms',
    });
  });

  it('does not count calls made while the tool had no per-minute limit against a later one', () => {
    const usage = new ToolUsage();
    usage.record(undefined, 0);
    usage.record({}, 1);
    expect(usage.check('shoot', { calls_per_minute: 1 }, 2)).toEqual({ ok: true });
  });
});

describe('reading usage (for inspectors)', () => {
  it('countAt counts the calls still inside the minute: calls at 0 and 10 count 2 at 59,999, 1 at 60,000, 0 at 60,010', () => {
    const window = windowWith(3, [0, 10]);
    expect(window.countAt(59_999)).toBe(2);
    expect(window.countAt(60_000)).toBe(1);
    expect(window.countAt(60_010)).toBe(0);
  });

  it('ToolUsage.inWindow reads the per-minute window without changing what check allows', () => {
    const usage = new ToolUsage();
    const limits = { calls_per_minute: 2 };
    usage.record(limits, 0);
    usage.record(limits, 10);
    expect(usage.inWindow(30)).toBe(2);
    expect(usage.inWindow(60_005)).toBe(1);
    expect(usage.check('shoot', limits, 30)).toMatchObject({ ok: false, kind: 'rate_limited' });
    expect(usage.used).toBe(2);
  });

  it('ToolUsage.inWindow is 0 for a tool without calls_per_minute', () => {
    const usage = new ToolUsage();
    usage.record({ calls_per_session: 5 }, 0);
    expect(usage.inWindow(1)).toBe(0);
    expect(usage.used).toBe(1);
  });
});
