// What an AgentClient is told and what it tells: its options (each with its default), a call's
// options, and the events it emits.

import type { WireOptions } from '../protocol/wire.js';
import type { EventMessage, Manifest, Topic, WireError } from '../protocol/messages.js';
import type { Clock } from '../base/clock.js';
import type { EventPayloads } from '../runtime/events.js';
import type { RandomBytes } from '../protocol/ids.js';
import { HEARTBEAT_DEFAULTS } from '../runtime/sessionParts.js';
import type { InboundLimits } from '../protocol/inbound.js';

export interface AgentClientOptions extends WireOptions {
  /** Default: wall time. */
  clock?: Clock;
  /** Source of the bytes in message ids. Default: crypto; a seeded one makes runs reproducible. */
  randomBytes?: RandomBytes;
  /** How often the client sends a heartbeat. Default 5,000 ms. */
  heartbeatIntervalMs?: number;
  /** The bridge silent this long counts as gone: the link is dropped. Default 15,000 ms. */
  deadPeerTimeoutMs?: number;
  /** How long `call` waits for its result, and `requestManifest` or `declare` for the manifest. Default 30,000 ms. */
  callTimeoutMs?: number;
  /** How long `connect` waits for session_init. Default 10,000 ms. */
  connectTimeoutMs?: number;
  /** Most calls waiting for results at once. Default 256. */
  maxPendingCalls?: number;
  /**
   * The bounds the bridge reads this agent's frames with: its `limits` (ConnectOptions, AcceptOptions),
   * which aicc/0.1 has no message to declare. A call the bridge would refuse at its first gate — a
   * frame over `maxFrameBytes`, nesting over `maxDepth`, a `__proto__` key — is refused here before it
   * is sent, with the code the bridge would give (`invalid_input`). Default: the capsule's defaults,
   * 262,144 bytes and 32 levels; `connectInProcess` passes the capsule's own.
   */
  bridgeLimits?: Partial<InboundLimits>;
  /**
   * Take the bridge's messages without checking them against the schema. Only for a capsule in this
   * process, on a memory link (any other link throws AICC_INVALID_OPTION): what it sends it built
   * itself, and checking it again was about half of an in-process agent's cost. The bridge always
   * checks what agents send, and across a socket both sides check. Default false; the project's
   * own headless worlds (the village, the swarm, replays) set it.
   */
  trustBridge?: boolean;
  /** How long `resume` waits for the bridge to confirm. Default 10,000 ms. */
  resumeTimeoutMs?: number;
  /**
   * The largest step between two bridge message sequence numbers taken as genuine. A bridge numbers
   * its messages one by one; the only holes are the bare heartbeats a dropped link lost, which are
   * not replayed. A bigger jump would make every later message read as a duplicate, so that message
   * is dropped and reported as an `error` instead. Default 1,024.
   */
  maxSequenceJump?: number;
}

export interface CallOptions {
  /** Reuse an id to retry a call safely: the bridge answers a repeated call_id from its cache. */
  callId?: string;
  /** In hybrid mode, ask for evaluation at once instead of at the next tick. */
  immediate?: boolean;
  timeoutMs?: number;
}

export type AgentEvents = { [T in Topic]: EventPayloads[T] } & {
  event: EventMessage;
  manifest: Manifest;
  /** An `error` message from the bridge, or an inbound frame this client refused. */
  error: WireError;
  /** The link went down; call `resume(newLink)` within the bridge's grace period. */
  disconnect: { reason: string };
  close: { reason: string };
};

/** The client's timing and bounds, each option or its default (the defaults the options above name). */
export type ClientSettings = Required<Omit<AgentClientOptions, keyof WireOptions | 'clock' | 'randomBytes' | 'trustBridge' | 'bridgeLimits'>>;

export function clientSettings(options: AgentClientOptions): ClientSettings {
  return {
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? HEARTBEAT_DEFAULTS.intervalMs,
    deadPeerTimeoutMs: options.deadPeerTimeoutMs ?? HEARTBEAT_DEFAULTS.deadPeerTimeoutMs,
    callTimeoutMs: options.callTimeoutMs ?? 30_000,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    maxPendingCalls: options.maxPendingCalls ?? 256,
    resumeTimeoutMs: options.resumeTimeoutMs ?? 10_000,
    maxSequenceJump: options.maxSequenceJump ?? 1024,
  };
}
