// What a Pilot takes and tells: its options, its status, why it pauses, and its events. Apart from
// pilot.ts so that file holds the pilot's behaviour alone.

import type { AgentClient } from '../agentClient.js';
import type { Clock } from '../../base/clock.js';
import type { ChatBackend, SendKind } from './backend.js';
import type { DecisionCost } from './costs.js';
import type { CharacterBrief } from './briefing.js';
import type { CadenceOptions } from './cadence.js';
import type { DigestOptions } from './digest.js';
import type { GuardOptions } from './guards.js';
import type { ParsedCall } from './replyParser.js';

export interface PilotOptions extends GuardOptions, CadenceOptions {
  client: AgentClient;
  backend: ChatBackend;
  /** Who the model plays; `id` is the session's character. */
  character: CharacterBrief;
  /** Times every delay and guard. Default: wall time. Pass the capsule's in headless runs. */
  clock?: Clock;
  /** Most calls taken from one reply; the rest are told as skipped. Default 8. */
  maxCallsPerReply?: number;
  /** Follow-ups sent during one run, at most: a model mid-answer is not flooded. Default 1. */
  maxFollowUpsPerRun?: number;
  /** The game's own words for the model, added to the briefing. */
  notes?: string;
  /** How digests are written (bounds, the game's view of tool outputs). */
  digest?: Omit<DigestOptions, 'self'>;
  /** Decision cost records kept in `stats.costs.recent`, the newest; the totals count them all. Default DECISION_COSTS_KEPT (256). */
  maxDecisionCosts?: number;
  /**
   * The model calls the character's tools natively (pi 1.x with its MCP server): no calls are read
   * out of replies. Default: the backend is asked before the briefing (`callsToolsNatively`; the
   * gateway hosting pi with the character's tools says yes), and without an answer, false.
   */
  nativeTools?: boolean;
}

export type PilotStatus = 'new' | 'idle' | 'thinking' | 'acting' | 'paused' | 'stopped';

/** Why a pilot paused: `rate` lifts itself when the minute's window allows; the others need resume(). */
export type PauseReason = 'rate' | 'failures' | 'aborted';

export type PilotEvents = {
  /** Every text sent to the model. */
  sent: { kind: SendKind; text: string };
  /** A reply was read. */
  decision: { reply: string | null; calls: ParsedCall[]; notes: string[]; latencyMs: number };
  /** A decision is over (its calls answered, or it failed, or was aborted): what it cost. */
  cost: DecisionCost;
  pause: { reason: PauseReason; message: string };
  resume: { reason: PauseReason };
  /** The backend failed (refused a send, or its reply threw). */
  error: { message: string };
  stop: { reason: string };
};
