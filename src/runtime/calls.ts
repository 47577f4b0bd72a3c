// What the host hears of calls: each call's whole story for its `call` listeners, and the errors the
// game should know of (a handler that threw or answered late, an output that broke its schema).

import type { JsonObject, ToolCall } from '../protocol/messages.js';
import type { CallResult } from './resultCache.js';

/** A call's whole story, for the host's `call` listeners (an inspector, a recorder). */
export interface CallRecord {
  sessionId: string;
  character: string;
  tool: string;
  callId: string;
  input: JsonObject;
  result: CallResult;
}

/**
 * Something the game should hear about: a handler that threw or answered late, an output that broke
 * its schema, a tick listener that threw, or a failure inside the bridge (a bug of ours).
 */
export interface HostError {
  /** `clock_stalled`: calls wait for a tick, but nothing steps the capsule (see CapsuleOptions.tickMode). */
  code: 'handler_threw' | 'output_invalid' | 'handler_late' | 'listener_threw' | 'bridge_failed' | 'clock_stalled';
  tool?: string;
  sessionId?: string;
  message: string;
  cause?: unknown;
}

/** What a finished call tells its host, beside its result. */
export interface FinishedCall {
  readonly sessionId: string;
  readonly character: string;
  readonly callId: string;
  readonly call: ToolCall;
}
