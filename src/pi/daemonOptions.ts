// What a DaemonClient is told (its options, a wake's options) and what it tells (its events, a
// wake's answer, the report of a reconnect). Types only.

import type { DaemonError } from './daemonError.js';
import type { DaemonEvent, SessionRef, WakeResult } from './daemonProtocol.js';
import type { StreamReport } from './daemonStream.js';
import type { RecordClientEvents, RecordClientOptions } from './recordClient.js';

/**
 * Besides what every record client is told (recordClient.ts): a request's timeout restarts on each
 * of its events, and `limits` bound lines both ways (default 1 MiB, pi-daemon's own limit).
 */
export interface DaemonClientOptions extends RecordClientOptions {
  /** The same as requestTimeoutMs, for a wake that waits for its turn to end (a model run). Default 600,000 ms. */
  wakeTimeoutMs?: number;
  /** Most sessions attached at once. Default 256. */
  maxAttachedSessions?: number;
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

export type DaemonClientEvents = RecordClientEvents & {
  /** An event of an attached session, in order, stale ones dropped. */
  event: DaemonEvent;
  /** Gaps, duplicates, late and stale events. */
  stream: StreamReport;
  /** A response named another hostInstanceId on the same link (a restart behind a relay). */
  host: { previousHostInstanceId: string; hostInstanceId: string };
  /** A new link is open, handshaken, and its sessions attached again (or lost). */
  reconnect: ReconnectReport;
};
