// Every way a pi-peers request can fail, as one error class with a stable `code` (the field
// DaemonError has too): the schema's wire codes, and the codes this client decides on its own side
// (timeout, closed, …).

import { isPeersWireErrorCode, type PeersResponse, type PeersWireErrorCode } from './peersProtocol.js';

/** Failures decided by this client, not sent by the agent. */
export type PeersLocalErrorCode =
  /** No answer within the request's timeout (which restarts on progress). */
  | 'timeout'
  /** The link went down, or the client was closed, before the answer came. */
  | 'closed'
  /** The agent answered with something the schema or the command does not allow. */
  | 'invalid_response'
  /** Too many requests already wait for answers (options.maxPendingRequests). */
  | 'too_many_pending'
  /** The caller's AbortSignal fired. */
  | 'aborted'
  /** The agent failed without an errorCode, or with one this client does not know (a later 1.x). */
  | 'unknown_error';

export type PeersErrorCode = PeersWireErrorCode | PeersLocalErrorCode;

export interface PeersErrorDetails {
  /** The request's id: for a delivery, the dedupe key to retry with. */
  requestId?: string;
  /** The command the agent named in its answer (or the one sent). */
  command?: string;
  /** For `unknown_error`: the errorCode the agent sent, if any. */
  wireCode?: string;
  /** The answer's `data`, if it had any (e.g. the server's protocol range on incompatible_version). */
  data?: unknown;
  /** True when this client refused before anything was sent. */
  local?: boolean;
}

/** A failed pi-peers request. `retryable` says whether the same request may succeed later. */
export class PeersError extends Error {
  override readonly name = 'PeersError';
  readonly details?: PeersErrorDetails;

  constructor(
    readonly code: PeersErrorCode,
    message: string,
    readonly retryable: boolean,
    details?: PeersErrorDetails,
  ) {
    super(message);
    if (details !== undefined) this.details = details;
  }
}

/**
 * `retryable` when the agent does not say, and what to do about each code. A delivery retried
 * with the same id is never delivered twice (the agent dedupes it), so "retry" is always safe.
 */
export const PEERS_ERRORS: Readonly<Record<PeersErrorCode, { retryable: boolean; fix: string }>> = {
  hello_required: { retryable: false, fix: 'the first record on a connection must be hello (PeersClient.connect sends it)' },
  auth_failed: { retryable: false, fix: "pass the token from the agent's discovery file as options.token, or connect through the gateway that adds it" },
  incompatible_version: { retryable: false, fix: 'this client speaks pi-peers 1.0: update the client or the agent' },
  invalid_request: { retryable: false, fix: 'the record must match schemas/pi-peers-1.0.schema.json' },
  unsupported_command: { retryable: false, fix: 'this agent does not support the command' },
  denied: { retryable: false, fix: "the receiving agent's user refused the message" },
  approval_timeout: { retryable: true, fix: "the receiving agent's user did not approve in time: retry later with the same id" },
  no_ui: { retryable: false, fix: 'the receiving agent has no UI to approve the message' },
  steer_not_allowed: { retryable: false, fix: 'send follow_up instead of steer' },
  hop_limit: { retryable: false, fix: 'the chain already holds 3 peer messages: answer instead of forwarding' },
  ambiguous_target: { retryable: false, fix: 'name the agent by its id' },
  agent_not_found: { retryable: false, fix: 'check the agent id (pi-peers list)' },
  agent_unavailable: { retryable: true, fix: 'the agent is not running now: retry later with the same id' },
  connection_lost: { retryable: true, fix: 'reconnect and retry with the same id' },
  ssh_failed: { retryable: true, fix: 'check the ssh link to the agent host, then retry' },
  internal_error: { retryable: false, fix: "the agent failed: see the agent's log" },
  timeout: { retryable: true, fix: 'retry with the same id, or raise options.requestTimeoutMs' },
  closed: { retryable: true, fix: 'retry with the same id once connected again' },
  invalid_response: { retryable: false, fix: 'the agent broke schemas/pi-peers-1.0.schema.json: update it' },
  too_many_pending: { retryable: true, fix: 'wait for answers, or raise options.maxPendingRequests' },
  aborted: { retryable: false, fix: 'the caller aborted the wait' },
  unknown_error: { retryable: false, fix: 'see details.wireCode and the error text' },
};

/** Removes a secret from text before it leaves the client (messages, events, reasons). */
export type Redact = (text: string) => string;

export function redactor(secret: string | undefined): Redact {
  if (secret === undefined || secret === '') return (text) => text;
  return (text) => text.split(secret).join('[redacted]');
}

/**
 * The error a failed response becomes. `place` names the method (`PeersClient.deliver`). Text the
 * agent wrote goes through `redact`, and `data` is kept only if it does not contain the secret.
 */
export function errorFromResponse(response: PeersResponse, place: string, redact: Redact): PeersError {
  const wire = response.errorCode === undefined ? undefined : redact(response.errorCode);
  const code: PeersErrorCode = isPeersWireErrorCode(wire) ? wire : 'unknown_error';
  const retryable = response.retryable ?? PEERS_ERRORS[code].retryable;
  const command = redact(response.command);
  const text = response.error === undefined ? '' : `: ${redact(response.error)}`;
  const details: PeersErrorDetails = { requestId: response.id, command };
  if (code === 'unknown_error' && wire !== undefined) details.wireCode = wire;
  if (response.data !== undefined && isClean(response.data, redact)) details.data = response.data;
  return new PeersError(code, `${place}: the agent refused ${command} with ${wire ?? 'no errorCode'}${text} (${PEERS_ERRORS[code].fix})`, retryable, details);
}

/** A local failure with the standard retryable flag and fix. */
export function localError(code: PeersErrorCode, message: string, details: PeersErrorDetails = {}, retryable = PEERS_ERRORS[code].retryable): PeersError {
  return new PeersError(code, `${message} (${PEERS_ERRORS[code].fix})`, retryable, details);
}

/**
 * Every string and key of `data` as it is: a JSON text would escape quotes, backslashes and control
 * characters, and hide a secret holding one. `data` comes from a record that passed the depth bound.
 */
function isClean(data: unknown, redact: Redact): boolean {
  const stack: unknown[] = [data];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') {
      if (redact(item) !== item) return false;
    } else if (item !== null && typeof item === 'object') {
      for (const [key, inner] of Object.entries(item)) {
        if (redact(key) !== key) return false;
        stack.push(inner);
      }
    }
  }
  return true;
}
