// The shapes a session is seen through: the game's read-only view of it, its state, its
// statistics, its use of each tool, its decision counts, and a message it sends before its envelope
// is added. Shared by the session's parts: this module imports nothing of theirs.

import type { AgentModel, AiccMessage, Capabilities } from '../protocol/messages.js';

/** A session's decisions judged against its budget (session.stats.decisions). */
export interface DecisionCounts {
  /** The agent acted before the budget passed. */
  inBudget: number;
  /** The budget passed first (counted the moment it passes, or when a late action beats its timer). */
  overBudget: number;
}

/** Told by a session's delivery when a decision starts (news reached the agent) and ends (its next tool_call). */
export interface DecisionObserver {
  started(at: number): void;
  ended(at: number): void;
}

/**
 * A session as the game sees it (capsule.connect, capsule.sessions(), the `session` event): who it
 * is, how it stands, what it has used. Read-only: capabilities change through
 * capsule.setCapabilities, subscriptions through the agent; the pipeline stays the capsule's.
 */
export interface SessionView {
  readonly id: string;
  readonly character: string;
  readonly state: SessionState;
  readonly capabilities: Readonly<Capabilities>;
  readonly agentModel: Readonly<AgentModel>;
  /** The topics the agent subscribed to. */
  readonly subscriptions: ReadonlySet<string>;
  /** `decisions`: the decisions judged against the session's budget; undefined without one. */
  readonly stats: SessionStats & { decisions: DecisionCounts | undefined };
  /** This session's use of every tool it has called (for inspectors), at time `now` of the capsule's clock. */
  toolUsage(now: number): ToolUsageSnapshot[];
  /** Ends the session: the agent gets session_close with `reason`. */
  close(reason: string): void;
}

export type SessionState = 'open' | 'detached' | 'closed';

export interface SessionStats {
  /** Mean time from a delivery of news to the agent's next call (EWMA), in ms. */
  decisionLatencyMs: number | undefined;
  calls: number;
  refusals: number;
  eventsQueued: number;
  eventsDropped: number;
  sent: number;
}

export interface ToolUsageSnapshot {
  tool: string;
  /** Calls that reached the handler in this session (what calls_per_session counts). */
  used: number;
  /** Of those, the ones inside the calls_per_minute window now (0 when the tool has no such limit). */
  inWindow: number;
}

/** A bridge message before its envelope (protocol, session_id, message_id) is added. */
export type OutboundBody = DistributiveOmit<AiccMessage, 'protocol' | 'session_id' | 'message_id'>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
