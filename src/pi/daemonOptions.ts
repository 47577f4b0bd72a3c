// What a DaemonClient is told (its options, a wake's options) and what it tells (its events, a
// wake's answer, the report of a reconnect). Types only.

import type { Clock } from '../runtime/clock.js';
import type { InboundLimits } from '../protocol/inbound.js';
import type { DaemonError } from './daemonError.js';
import type { DaemonEvent, SessionRef, WakeResult } from './daemonProtocol.js';
import type { DaemonRecordProblem } from './daemonRecords.js';
import type { StreamReport } from './daemonStream.js';
import type { PeersReconnectOptions } from './peersReconnect.js';

/** How a DaemonClient gets a new link after a drop (the same shape as PeersClient's). */
export type DaemonReconnectOptions = PeersReconnectOptions;

export interface DaemonClientOptions {
  /** Default: wall time. Timeouts and reconnect backoff read it. */
  clock?: Clock;
  /** How long a request waits for its answer; restarts on each of its events. Default 30,000 ms. */
  requestTimeoutMs?: number;
  /** The same for a wake that waits for its turn to end (a model run). Default 600,000 ms. */
  wakeTimeoutMs?: number;
  /** Most requests waiting for answers at once. Default 64. */
  maxPendingRequests?: number;
  /** Most sessions attached at once. Default 256. */
  maxAttachedSessions?: number;
  /** Line bounds, both ways. Default 1 MiB lines (pi-daemon's own limit), depth 32. */
  limits?: Partial<InboundLimits>;
  /** Reconnect after a drop. Without it a drop closes the client. */
  reconnect?: DaemonReconnectOptions;
  /** Idempotency keys when the caller gives none. Default: random UUIDs. */
  newIdempotencyKey?: () => string;
}

export interface WakeOptions {
  prompt: string;
  /** The retry key: the same key is the same wake. Default: a fresh one (returned in the answer). */
  idempotencyKey?: string;
  /** Answer after the turn ends (default true), or as soon as the wake is admitted. */
  waitForTerminal?: boolean;
  /** Who woke the session (shown in the host's records). */
  source?: string;
}

export type WakeAnswer =
  | { terminal: true; requestId: string; idempotencyKey: string; result: WakeResult; session?: unknown }
  | { terminal: false; requestId: string; idempotencyKey: string; data: unknown };

export interface ReconnectReport {
  attempt: number;
  hostInstanceId: string;
  previousHostInstanceId: string;
  /** The host restarted: its memory sessions are gone, and every stream starts again. */
  hostChanged: boolean;
  /** Sessions attached again, as before the drop. */
  reattached: SessionRef[];
  /** Sessions that could not be attached again (session_not_found after a restart, say). */
  lost: Array<SessionRef & { error: DaemonError }>;
}

export type DaemonClientEvents = {
  /** An event of an attached session, in order, stale ones dropped. */
  event: DaemonEvent;
  /** Gaps, duplicates, late and stale events. */
  stream: StreamReport;
  /** An inbound record was refused (bounds or schema) and dropped. */
  problem: DaemonRecordProblem;
  /** A response named another hostInstanceId on the same link (a restart behind a relay). */
  host: { previousHostInstanceId: string; hostInstanceId: string };
  /** The link dropped; waiting requests failed with a retryable `closed`; reconnecting. */
  disconnect: { reason: string };
  reconnect: ReconnectReport;
  /** The client is closed for good. */
  close: { reason: string };
};

export type DaemonClientState = 'connecting' | 'open' | 'reconnecting' | 'closed';
