// What a session needs from the capsule that owns it: the clock, the shared settings, and the
// callbacks through which it hands over tool calls and reports on itself.

import type { HostError } from './calls.js';
import type { CallPipeline } from './callPipeline.js';
import type { Clock } from './clock.js';
import type { RandomBytes } from '../protocol/ids.js';
import type { AiccMessage, ManifestUpdate } from '../protocol/messages.js';
import type { EventLog } from './eventLog.js';
import type { Heartbeats } from './heartbeats.js';
import type { ReplayStore } from './resumeReplay.js';
import type { Session } from './session.js';

/** Heartbeat timings both sides use unless told otherwise (docs/PROTOCOL.md, "heartbeat"). */
export const HEARTBEAT_DEFAULTS = { intervalMs: 5000, deadPeerTimeoutMs: 15_000 } as const;

/** Bounds and timings every session of a capsule shares (CapsuleOptions, resolved). */
export interface SessionSettings {
  heartbeatIntervalMs: number;
  deadPeerTimeoutMs: number;
  resumeGraceMs: number;
  replayBufferSize: number;
  eventQueueSize: number;
  eventLogSize: number;
  resultCacheSize: number;
  maxBufferedBytes: number;
  tickIntervalMs: number;
}

/** What a session needs from its capsule. */
export interface SessionServices {
  readonly clock: Clock;
  readonly randomBytes: RandomBytes;
  readonly settings: SessionSettings;
  /** The capsule's broadcast events, which its sessions read from their cursors. */
  readonly log: EventLog;
  /** Whether anyone listens to every message (`capsule.on('message')`): nothing is built for nobody. */
  readonly tapping: boolean;
  /** Where the session hands every tool_call it takes in. */
  readonly calls: CallPipeline;
  /** Beats every linked session of the capsule (one timer for them all). */
  readonly heartbeats: Heartbeats;
  manifestFor(session: Session): ManifestUpdate;
  /** The replay store of a new session (CapsuleOptions.replayStore, or a ReplayBuffer). */
  replayStore(sessionId: string): ReplayStore;
  changed(session: Session, change: 'detached' | 'resumed' | 'closed', reason: string): void;
  subscriptionsChanged(session: Session, before: ReadonlySet<string>): void;
  hostError(error: HostError): void;
  /** Runs `task` after the current work, with the rest of the capsule's deferred work (deliveries). */
  soon(task: () => void): void;
  /** Every message the session takes in or sends out, for recorders and inspectors. */
  tap(session: Session, direction: 'in' | 'out', message: AiccMessage): void;
}
