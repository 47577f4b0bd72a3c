// What is left of each tool's limits, counted on this side from the results the pilot has seen, so
// a digest can tell the model before it wastes a call on a refusal. The bridge's own count is the
// authority; this one follows its rules (docs/PROTOCOL.md): only calls that reached their handler
// cost quota, and `calls_per_minute` is a sliding window of 60,000 ms.

import type { Clock } from '../../base/clock.js';
import type { Limits, ToolDescriptor } from '../../protocol/messages.js';

const WINDOW_MS = 60_000;

export interface QuotaLeft {
  tool: string;
  limits: Limits;
  perMinute?: number;
  perSession?: number;
}

export class Quotas {
  private limits = new Map<string, Limits>();
  /** Per tool: when its recent calls were made, oldest first, at most its per-minute limit. */
  private readonly recent = new Map<string, number[]>();
  private readonly total = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  /** The catalog's limits; called again whenever the manifest changes. */
  setTools(tools: readonly ToolDescriptor[]): void {
    this.limits = new Map(tools.filter((tool) => tool.limits !== undefined).map((tool) => [tool.id, tool.limits!]));
  }

  /** A call that reached its handler (the only kind that costs quota). */
  used(tool: string): void {
    this.total.set(tool, (this.total.get(tool) ?? 0) + 1);
    const perMinute = this.limits.get(tool)?.calls_per_minute;
    if (perMinute === undefined) return;
    const times = this.recent.get(tool) ?? [];
    times.push(this.clock.now());
    if (times.length > perMinute) times.splice(0, times.length - perMinute);
    this.recent.set(tool, times);
  }

  left(tool: string): QuotaLeft | undefined {
    const limits = this.limits.get(tool);
    if (limits === undefined) return undefined;
    const out: QuotaLeft = { tool, limits };
    if (limits.calls_per_minute !== undefined) {
      const since = this.clock.now() - WINDOW_MS;
      const inWindow = (this.recent.get(tool) ?? []).filter((at) => at > since).length;
      out.perMinute = Math.max(0, limits.calls_per_minute - inWindow);
    }
    if (limits.calls_per_session !== undefined) out.perSession = Math.max(0, limits.calls_per_session - (this.total.get(tool) ?? 0));
    return out;
  }

  /**
   * `go 28/30 per min; compose 9/10 per min, 99/100 per session` for the tools just `called`, and
   * for any tool whose quota has run low (a quarter or less left): the briefing gave the full
   * limits, so a line for every tool every time would say nothing new.
   */
  summary(called: ReadonlySet<string> = new Set()): string {
    const parts: string[] = [];
    for (const tool of this.limits.keys()) {
      const left = this.left(tool);
      if (left === undefined) continue;
      const { calls_per_minute: perMinute, calls_per_session: perSession } = left.limits;
      const low = (remaining: number | undefined, limit: number | undefined): boolean =>
        remaining !== undefined && limit !== undefined && remaining <= limit / 4;
      if (!called.has(tool) && !low(left.perMinute, perMinute) && !low(left.perSession, perSession)) continue;
      const shown: string[] = [];
      if (left.perMinute !== undefined) shown.push(`${left.perMinute}/${perMinute} per min`);
      if (left.perSession !== undefined) shown.push(`${left.perSession}/${perSession} per session`);
      parts.push(`${tool} ${shown.join(', ')}`);
    }
    return parts.join('; ');
  }
}
