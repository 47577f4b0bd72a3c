// Every way a pi-daemon request can fail, as one error class with a stable `code`: the codes the
// host sends (those pi-daemon 0.3.3 was seen to send, each provoked against the real daemon in
// test/e2e/daemon/client.test.ts, and the aicc gateway's own two), and the ones this client decides
// on its own side (timeout, closed, …). `retryable` is always the host's when it answers; the table's
// flag is for local failures, and agrees with what the host says for its codes.

import type { DaemonResponse } from './daemonProtocol.js';

/** Codes the host sends in `error.code`. */
export const DAEMON_WIRE_ERROR_CODES = [
  // The line and the command.
  'invalid_json',
  'invalid_utf8',
  'line_too_large',
  'incompatible_protocol',
  'invalid_protocol_version',
  'unknown_operation',
  'invalid_field',
  'duplicate_request_id',
  'connection_busy',
  // Sessions and generations.
  'session_not_found',
  'stale_generation',
  'session_policy_conflict',
  'session_busy',
  'session_queue_full',
  'session_not_running',
  'session_capacity',
  'session_name_conflict',
  'ephemeral_session_unavailable',
  // Opening: where the session works, where it keeps its files, which model it talks to.
  'cwd_not_allowed',
  'cwd_not_directory',
  'authority_root_overlap',
  'model_unavailable',
  'model_auth_unavailable',
  'open_failed',
  // Wakes.
  'idempotency_conflict',
  'durable_admission_unavailable',
  'aborted',
  // The host.
  'host_not_ready',
  'host_draining',
  'internal_error',
  // The aicc gateway's own refusals (src/node/gateway/daemonRecords.ts), between a page and the host.
  'denied_by_gateway',
  'daemon_unavailable',
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
  invalid_utf8: { retryable: false, fix: 'every line must be UTF-8; the host closed the connection' },
  line_too_large: { retryable: false, fix: 'keep each record under the host limit (1 MiB); the host closed the connection' },
  incompatible_protocol: { retryable: false, fix: 'this client speaks pi-daemon protocol 2.x: update the client or the host' },
  invalid_protocol_version: { retryable: false, fix: 'protocolVersion must be "major.minor": this client writes "2.0"' },
  unknown_operation: { retryable: false, fix: 'the host does not know this operation: update the host' },
  invalid_field: { retryable: false, fix: 'the command must match schemas/pi-daemon-protocol-v2.schema.json' },
  duplicate_request_id: { retryable: false, fix: 'a request with this requestId is still running on this connection: use a fresh id' },
  connection_busy: {
    retryable: true,
    fix: "too many requests run on this connection (the host's maxInFlightRequestsPerConnection): wait for answers, then retry",
  },
  session_not_found: { retryable: false, fix: 'open the session first (or again: after a host restart, an idle eviction or a close)' },
  stale_generation: { retryable: false, fix: 'the session is open at another generation: use the one open now (status), or open a higher one' },
  session_policy_conflict: { retryable: false, fix: 'the session is open with another policy at this generation: open with a higher generation' },
  session_busy: { retryable: true, fix: 'the session has turns running or queued: wait for them before you close or replace it' },
  session_queue_full: { retryable: true, fix: "too many wakes wait on this session (the host's maxSessionQueueDepth): wait for them to run" },
  session_not_running: { retryable: true, fix: 'steer and followUp need a running wake: wake the session instead, or retry while one runs' },
  session_capacity: { retryable: true, fix: 'the host holds as many sessions as it may (its maxSessions): close one, or retry when one is evicted' },
  session_name_conflict: { retryable: false, fix: 'another session has this name (or this id as its name): choose another name' },
  ephemeral_session_unavailable: {
    retryable: false,
    fix: 'a memory session closed, evicted or lost in a restart cannot be opened again at its generation: open a higher one',
  },
  cwd_not_allowed: { retryable: false, fix: "the session's cwd must be inside one of the host's --allow-root folders" },
  cwd_not_directory: { retryable: false, fix: "the session's cwd must be a folder" },
  authority_root_overlap: {
    retryable: false,
    fix: "the session's cwd and sessionDir must not contain, or lie inside, each other or the host's state and agent folders",
  },
  model_unavailable: { retryable: false, fix: "name a provider and model the host's models.json (or pi's catalog) knows, or none for the host's default" },
  model_auth_unavailable: {
    retryable: false,
    fix: "the host has no key for this model's provider: configure it in the host's agent folder, or pick another model",
  },
  open_failed: { retryable: false, fix: 'the host could not open the session (details.cause says why: a cwd that does not exist, say)' },
  idempotency_conflict: { retryable: false, fix: 'this idempotencyKey was used for another request: use a fresh key' },
  durable_admission_unavailable: {
    retryable: false,
    fix: 'a wake without waitForTerminal needs a durable session (mode new, open or continue), not a memory one',
  },
  aborted: { retryable: true, fix: 'the wake was aborted before its turn ran (an abort or a drain): wake again' },
  host_not_ready: { retryable: true, fix: 'the host is starting: retry shortly' },
  host_draining: { retryable: true, fix: 'the host is draining for shutdown and admits no new work: retry on its successor (the restarted host)' },
  internal_error: { retryable: false, fix: "the host failed: see the host's log" },
  denied_by_gateway: { retryable: false, fix: "the aicc gateway's policy refused this command (details.source is aicc-gateway): see the message" },
  daemon_unavailable: { retryable: true, fix: "the aicc gateway reaches no pi daemon: start pi-daemon serve on the gateway's --daemon socket, then reconnect" },
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
  // The host's flag wins over the table (the schema makes it required; the table is the fallback).
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
