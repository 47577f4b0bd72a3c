// The shapes a session is seen through: its state, its statistics, its use of each tool, and a
// message it sends before its envelope is added.

import type { AiccMessage } from '../protocol/messages.js';

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
