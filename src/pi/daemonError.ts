// Every way a pi-daemon request can fail, as one error class with a stable `code`: the codes the
// host sends (pi-daemon 0.3.3 was seen to send these, "and more"), and the ones this client
// decides on its own side (timeout, closed, …). `retryable` comes from the host when it says.

import type { DaemonResponse } from './daemonProtocol.js';

/** Codes the host sends in `error.code`. */
export const DAEMON_WIRE_ERROR_CODES = [
  'invalid_json',
  'line_too_large',
  'incompatible_protocol',
  'unknown_operation',
  'invalid_field',
  'duplicate_request_id',
  'connection_busy',
  'session_not_found',
  'stale_generation',
  'session_policy_conflict',
  'session_busy',
  'session_queue_full',
  'session_not_running',
  'idempotency_conflict',
  'host_not_ready',
  'host_draining',
  'internal_error',
] as const;

export type DaemonWireErrorCode = (typeof DAEMON_WIRE_ERROR_CODES)[number];

/** Failures decided by this client, not sent by the host. */
export type DaemonLocalErrorCode =
  /** No answer within the request's timeout (which restarts on the request's events). */
  | 'timeout'
  /** The link went down, or the client was closed, before the answer came. */
  | 'closed'
  /** The host answered with something the schema or the operation does not allow. */
  | 'invalid_response'
  /** This client's own command broke the schema (a bad argument): nothing was sent. */
  | 'invalid_request'
  /** Too many requests already wait for answers (options.maxPendingRequests). */
  | 'too_many_pending'
  /** A code this client does not know (a later host): see details.wireCode. */
  | 'unknown_error';

export type DaemonErrorCode = DaemonWireErrorCode | DaemonLocalErrorCode;

export interface DaemonErrorDetails {
  requestId?: string;
  operation?: string;
  sessionId?: string;
  /** For wake, steer and followUp: the key to retry with (the same key is the same request). */
  idempotencyKey?: string;
  /** For `unknown_error`: the code the host sent. */
  wireCode?: string;
  /** The host's own `error.details`. */
  host?: Record<string, unknown>;
  /** True when this client refused before anything was sent. */
  local?: boolean;
}

/** A failed pi-daemon request. `retryable` says whether the same request may succeed later. */
export class DaemonError extends Error {
  override readonly name = 'DaemonError';
  readonly details: DaemonErrorDetails;

  constructor(
    readonly code: DaemonErrorCode,
    message: string,
    readonly retryable: boolean,
    details: DaemonErrorDetails = {},
  ) {
    super(message);
    this.details = details;
  }
}

/** `retryable` when the host does not say (local codes), and what to do about each code. */
export const DAEMON_ERRORS: Readonly<Record<DaemonErrorCode, { retryable: boolean; fix: string }>> = {
  invalid_json: { retryable: false, fix: 'every line must be one UTF-8 JSON record; the host closed the connection' },
  line_too_large: { retryable: false, fix: 'keep each record under the host limit (1 MiB); the host closed the connection' },
  incompatible_protocol: { retryable: false, fix: 'this client speaks pi-daemon protocol 2.x: update the client or the host' },
  unknown_operation: { retryable: false, fix: 'the host does not know this operation: update the host' },
  invalid_field: { retryable: false, fix: 'the command must match schemas/pi-daemon-protocol-v2.schema.json' },
  duplicate_request_id: { retryable: false, fix: 'a request with this requestId is still running on this connection: use a fresh id' },
  connection_busy: { retryable: true, fix: 'too many requests run on this connection: wait for answers, then retry' },
  session_not_found: { retryable: false, fix: 'open the session first (or again, after a host restart)' },
  stale_generation: { retryable: false, fix: 'a newer incarnation of the session exists: open it with a higher generation' },
  session_policy_conflict: { retryable: false, fix: 'the session is open with another policy at this generation: open with a higher generation' },
  session_busy: { retryable: true, fix: 'the session is running a wake: wait for it, or steer/followUp instead' },
  session_queue_full: { retryable: true, fix: 'too many steer/followUp messages are queued: wait for the wake to take them' },
  session_not_running: { retryable: false, fix: 'steer and followUp need a running wake: wake the session instead' },
  idempotency_conflict: { retryable: false, fix: 'this idempotencyKey was used for another request: use a fresh key' },
  host_not_ready: { retryable: true, fix: 'the host is starting: retry shortly' },
  host_draining: { retryable: false, fix: 'the host is draining for shutdown: connect to its successor' },
  internal_error: { retryable: false, fix: "the host failed: see the host's log" },
  timeout: { retryable: true, fix: 'retry with the same idempotencyKey, or raise options.requestTimeoutMs / options.wakeTimeoutMs' },
  closed: { retryable: true, fix: 'retry with the same idempotencyKey once connected again' },
  invalid_response: { retryable: false, fix: 'the host broke schemas/pi-daemon-protocol-v2.schema.json: update it' },
  invalid_request: { retryable: false, fix: 'check the arguments against schemas/pi-daemon-protocol-v2.schema.json' },
  too_many_pending: { retryable: true, fix: 'wait for answers, or raise options.maxPendingRequests' },
  unknown_error: { retryable: false, fix: 'see details.wireCode and the error text' },
};

const WIRE_CODES: ReadonlySet<string> = new Set(DAEMON_WIRE_ERROR_CODES);

export function isDaemonWireErrorCode(code: unknown): code is DaemonWireErrorCode {
  return typeof code === 'string' && WIRE_CODES.has(code);
}

/** The error a failed response becomes; `place` names the method (`DaemonClient.wake`). */
export function errorFromResponse(response: DaemonResponse, operation: string, place: string, sessionId?: string): DaemonError {
  const wire = response.error;
  const sent = wire?.code ?? 'no error code';
  const code: DaemonErrorCode = isDaemonWireErrorCode(sent) ? sent : 'unknown_error';
  const retryable = wire?.retryable ?? DAEMON_ERRORS[code].retryable;
  const details: DaemonErrorDetails = { requestId: response.requestId, operation };
  const session = response.sessionId ?? sessionId;
  if (session !== undefined) details.sessionId = session;
  if (code === 'unknown_error') details.wireCode = sent;
  if (wire?.details !== undefined) details.host = wire.details;
  const text = wire?.message === undefined || wire.message === '' ? '' : `: ${wire.message}`;
  return new DaemonError(code, `${place}: the host refused ${operation} with ${sent}${text} (${DAEMON_ERRORS[code].fix})`, retryable, details);
}

/** A local failure with the standard retryable flag and fix. */
export function daemonError(code: DaemonErrorCode, message: string, details: DaemonErrorDetails = {}, retryable = DAEMON_ERRORS[code].retryable): DaemonError {
  return new DaemonError(code, `${message} (${DAEMON_ERRORS[code].fix})`, retryable, details);
}
