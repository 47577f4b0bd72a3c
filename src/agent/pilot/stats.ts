// What a pilot has done, for the host's summary and for tests: decisions, calls, what could not be
// read, how much text the model was sent (the briefing apart from the digests, since the briefing is
// paid once and the digests every decision), how long decisions take, and what they cost
// (costs.ts).

import type { SendKind } from './backend.js';
import { copyCostTotals, emptyCostTotals, type DecisionCostTotals } from './costs.js';
import { isUsable, type ParsedReply } from './replyParser.js';

export interface PilotStats {
  /** Replies asked for: the briefing, then every digest sent as a prompt. */
  decisions: number;
  /** Tool calls sent to the capsule. */
  callsSent: number;
  /** Of those, refused or failed (`ok: false`). */
  callsRefused: number;
  /** Calls the model asked for that were not sent (after a refusal, over the per-reply cap, aborted). */
  callsSkipped: number;
  /** Replies with nothing usable: empty, or not one readable call. */
  failedReplies: number;
  /** Lines (or values) of replies that could not be read. */
  parseFailures: number;
  /** Replies whose calls were read despite a slip (another fence, single quotes, …). */
  forgivenReplies: number;
  steers: number;
  followUps: number;
  /** Characters of text sent to the model. */
  promptChars: { briefing: number; digests: number };
  /** From sending a prompt to having its reply, on the pilot's clock. */
  latencyMs: { last?: number; mean?: number; max?: number; samples: number };
  pauses: number;
  /** Per-decision costs: the last records and the totals (time to first token, first call, tokens, cost). */
  costs: DecisionCostTotals;
}

export function emptyStats(): PilotStats {
  return {
    decisions: 0,
    callsSent: 0,
    callsRefused: 0,
    callsSkipped: 0,
    failedReplies: 0,
    parseFailures: 0,
    forgivenReplies: 0,
    steers: 0,
    followUps: 0,
    promptChars: { briefing: 0, digests: 0 },
    latencyMs: { samples: 0 },
    pauses: 0,
    costs: emptyCostTotals(),
  };
}

/** Counts one message sent to the model. */
export function countSent(stats: PilotStats, kind: SendKind, text: string, isBriefing: boolean): void {
  if (isBriefing) stats.promptChars.briefing += text.length;
  else stats.promptChars.digests += text.length;
  if (kind === 'steer') stats.steers++;
  else if (kind === 'follow_up') stats.followUps++;
}

/** Counts what one reply held. */
export function countReply(stats: PilotStats, parsed: ParsedReply): void {
  stats.parseFailures += parsed.unreadable.length;
  if (parsed.slips.length > 0 && parsed.calls.length > 0) stats.forgivenReplies++;
  if (!isUsable(parsed)) stats.failedReplies++;
}

/** Counts one decision's latency: the mean is plain, over every decision of the session. */
export function countLatency(stats: PilotStats, ms: number): void {
  const latency = stats.latencyMs;
  latency.mean = ((latency.mean ?? 0) * latency.samples + ms) / (latency.samples + 1);
  latency.samples++;
  latency.last = ms;
  latency.max = Math.max(latency.max ?? 0, ms);
}

/** A deep copy, so a caller's snapshot does not move under it. */
export function snapshot(stats: PilotStats): PilotStats {
  return { ...stats, promptChars: { ...stats.promptChars }, latencyMs: { ...stats.latencyMs }, costs: copyCostTotals(stats.costs) };
}
