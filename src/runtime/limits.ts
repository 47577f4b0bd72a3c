// Per-session, per-tool limits: calls_per_minute as a sliding window on the capsule's clock, and
// calls_per_session as a plain count. Only calls that reach their handler use quota.

import type { Limits } from '../protocol/messages.js';

export const MINUTE_MS = 60_000;

/**
 * The last `limit` call times in a ring. A call made at time s counts while `now - s < 60,000`:
 * with a limit of 2, calls at 0 and 10 refuse a third until 60,000, when the first leaves the window.
 */
export class SlidingWindow {
  private readonly times: number[] = [];
  private next = 0;

  constructor(readonly limit: number) {}

  /** 0 when a call may go now, otherwise the milliseconds until one may. */
  waitMs(now: number): number {
    if (this.times.length < this.limit) return 0;
    const oldest = this.times[this.next]!;
    return Math.max(0, oldest + MINUTE_MS - now);
  }

  /** The same history under another limit (a tool's limits were updated), newest calls kept. */
  resized(limit: number): SlidingWindow {
    const chronological = [...this.times.slice(this.next), ...this.times.slice(0, this.next)];
    const window = new SlidingWindow(limit);
    for (const time of chronological.slice(-limit)) window.record(time);
    return window;
  }

  /** How many recorded calls still count against the limit at `now` (read-only, for inspectors). */
  countAt(now: number): number {
    let count = 0;
    for (const time of this.times) if (now - time < MINUTE_MS) count++;
    return count;
  }

  record(now: number): void {
    if (this.times.length < this.limit) this.times.push(now);
    else this.times[this.next] = now;
    this.next = (this.next + 1) % this.limit;
  }
}

export type LimitVerdict = { ok: true } | { ok: false; kind: 'rate_limited' | 'quota_exhausted'; message: string };

/** Every call checks its limits: one shared verdict for the calls that may go. */
const WITHIN_LIMITS: LimitVerdict = Object.freeze({ ok: true });

/** One session's use of one tool. */
export class ToolUsage {
  used = 0;
  private window: SlidingWindow | undefined;

  check(tool: string, limits: Limits | undefined, now: number): LimitVerdict {
    if (limits === undefined) return WITHIN_LIMITS;
    const perSession = limits.calls_per_session;
    if (perSession !== undefined && this.used >= perSession) {
      return { ok: false, kind: 'quota_exhausted', message: `${tool}: the session's quota of ${perSession} calls is used up` };
    }
    const perMinute = limits.calls_per_minute;
    if (perMinute !== undefined) {
      const window = this.windowFor(perMinute);
      const wait = window.waitMs(now);
      if (wait > 0) {
        return { ok: false, kind: 'rate_limited', message: `${tool}: at most ${perMinute} calls per minute; retry in ${Math.ceil(wait)} ms` };
      }
    }
    return WITHIN_LIMITS;
  }

  record(limits: Limits | undefined, now: number): void {
    this.used++;
    if (limits?.calls_per_minute !== undefined) {
      this.windowFor(limits.calls_per_minute).record(now);
    }
  }

  /** Calls inside the current calls_per_minute window at `now`; 0 when the tool has no such limit. */
  inWindow(now: number): number {
    return this.window?.countAt(now) ?? 0;
  }

  private windowFor(limit: number): SlidingWindow {
    if (this.window === undefined) this.window = new SlidingWindow(limit);
    else if (this.window.limit !== limit) this.window = this.window.resized(limit);
    return this.window;
  }
}
