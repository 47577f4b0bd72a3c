// What the docs allow DaemonClient to say: its error codes (the ones pi-daemon sends and its own),
// the kinds of its problem events and stream reports, the close reasons of its own, what a failed
// call must carry, and the names problem lines give the client, its peer and its greeting.

import { DAEMON_WIRE_ERROR_CODES, DaemonError, type DaemonLocalErrorCode, type RecordProblemKind, type StreamReport } from '../../../src/pi/index.js';
import type { ErrorDocs } from './clientChecks.js';
import type { ClientDocs } from './clientRun.js';

const LOCAL_CODES: Record<DaemonLocalErrorCode, true> = {
  timeout: true,
  closed: true,
  invalid_response: true,
  invalid_request: true,
  too_many_pending: true,
  unknown_error: true,
};
/** The codes pi-daemon sends (docs: DAEMON_WIRE_ERROR_CODES) and the client's own. */
const DAEMON_CODES: ReadonlySet<string> = new Set([...DAEMON_WIRE_ERROR_CODES, ...Object.keys(LOCAL_CODES)]);
export const PROBLEM_KINDS: ReadonlySet<string> = new Set(
  Object.keys({ oversized_frame: true, malformed_frame: true, too_deep: true, forbidden_key: true, schema_violation: true } satisfies Record<
    RecordProblemKind,
    true
  >),
);
export const STREAM_KINDS: ReadonlySet<string> = new Set(
  Object.keys({ gap: true, duplicate: true, late: true, stale: true, invalid: true } satisfies Record<StreamReport['kind'], true>),
);
export const STALE_REASONS: ReadonlySet<string> = new Set(
  Object.keys({ host: true, generation: true, unattached: true } satisfies Record<Extract<StreamReport, { kind: 'stale' }>['reason'], true>),
);
/** The close reasons a reconnecting client gives of its own. */
export const RECONNECT_REASON = /^DaemonClient: (reconnect refused: |gave up reconnecting after \d+ attempts \(last: )/;

/** Once the command went out, a failure names the key to retry it with. */
const DAEMON_ERROR: ErrorDocs<DaemonError> = {
  name: 'DaemonError',
  is: (error) => error instanceof DaemonError,
  code: (error) => error.code,
  codes: DAEMON_CODES,
  names: (error, key) => error.details.local === true || error.details.idempotencyKey === key,
  unnamed: 'a failure does not name its idempotencyKey',
};
/** How the docs name DaemonClient, what it talks to and its greeting. */
export const DAEMON_DOCS: ClientDocs<DaemonError> = { client: 'DaemonClient', peer: 'host', greeting: 'handshake', error: DAEMON_ERROR };
