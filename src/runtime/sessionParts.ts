// What a session is made of besides itself: the parts its capsule gives it, as values — its
// surroundings (clock, ids, bounds, the event log, deferred work), the call pipeline, the heartbeat
// timer, the manifest source, and the sink it reports to. Each a small port; none is the capsule.
// Generic in the session type `S` so that this module imports nothing of the session's.

import type { HostError } from './calls.js';
import type { CallPipeline } from './callPipeline.js';
import type { Clock } from '../base/clock.js';
import type { RandomBytes } from '../protocol/ids.js';
import type { AiccMessage, ManifestUpdate } from '../protocol/messages.js';
import type { EventLog } from './eventLog.js';
import type { Heartbeats } from './heartbeats.js';

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

/** A session's surroundings, one for all the sessions of a capsule (and their deliveries' DeliveryHost). */
export interface SessionRuntime {
  readonly clock: Clock;
  readonly randomBytes: RandomBytes;
  readonly settings: SessionSettings;
  /** The capsule's broadcast events, which its sessions read from their cursors. */
  readonly log: EventLog;
  /** Runs `task` after the current work, with the rest of the capsule's deferred work (deliveries). */
  soon(task: () => void): void;
}

/** What a session reports, and where it goes (the capsule's `session`, `error` and `message` events). */
export interface SessionReports<S> {
  changed(session: S, change: 'detached' | 'resumed' | 'closed', reason: string): void;
  subscriptionsChanged(session: S, before: ReadonlySet<string>): void;
  hostError(error: HostError): void;
  /** Whether anyone listens to every message (`capsule.on('message')`): nothing is built for nobody. */
  readonly tapping: boolean;
  /** Every message the session takes in or sends out, for recorders and inspectors. */
  tap(session: S, direction: 'in' | 'out', message: AiccMessage): void;
}

/** The manifest a session's agent is sent: the capsule's tools and world, the session's own grants. */
export interface ManifestSource<S> {
  manifestFor(session: S): ManifestUpdate;
}

/** The parts a capsule gives each of its sessions (the same values for all of them). */
export interface SessionParts<S> {
  readonly runtime: SessionRuntime;
  /** Where the session hands every tool_call it takes in. */
  readonly calls: CallPipeline;
  /** Beats every linked session of the capsule (one timer for them all). */
  readonly heartbeats: Heartbeats;
  readonly manifests: ManifestSource<S>;
  readonly reports: SessionReports<S>;
}
