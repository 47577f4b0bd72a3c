// What the docs allow PeersClient to say: its error codes (the schema's ErrorCode enum and its own
// local codes), the kinds of its problem events, the close reasons of its own, what a failed
// call must carry, and the names problem lines give the client, its peer and its greeting.

import peersSchema from '../../../schemas/pi-peers-1.0.schema.json';
import { PeersError, type PeersLocalErrorCode, type RecordProblemKind } from '../../../src/pi/index.js';
import type { ErrorDocs } from './clientChecks.js';
import type { ClientDocs } from './clientRun.js';

const LOCAL_CODES: Record<PeersLocalErrorCode, true> = {
  timeout: true,
  closed: true,
  invalid_response: true,
  too_many_pending: true,
  aborted: true,
  unknown_error: true,
};
/** The schema's ErrorCode enum and the client's own local codes. */
const PEERS_CODES: ReadonlySet<string> = new Set([...peersSchema.$defs.ErrorCode.enum, ...Object.keys(LOCAL_CODES)]);
export const PROBLEM_KINDS: ReadonlySet<string> = new Set(
  Object.keys({ oversized_frame: true, malformed_frame: true, too_deep: true, forbidden_key: true, schema_violation: true } satisfies Record<
    RecordProblemKind,
    true
  >),
);
/** The close reasons a reconnecting client gives of its own (docs: reconnect.maxAttempts, a hello refused for good). */
export const RECONNECT_REASON = /^PeersClient: (reconnect refused: |gave up reconnecting after \d+ attempts \(last: )/;

/** A failed delivery names its id in details.requestId. */
const PEERS_ERROR: ErrorDocs<PeersError> = {
  name: 'PeersError',
  is: (error) => error instanceof PeersError,
  code: (error) => error.code,
  codes: PEERS_CODES,
  names: (error, id) => error.details?.requestId === id,
  unnamed: 'a failed delivery does not name its id in details.requestId',
};
/** How the docs name PeersClient, what it talks to and its greeting. */
export const PEERS_DOCS: ClientDocs<PeersError> = { client: 'PeersClient', peer: 'agent', greeting: 'hello', error: PEERS_ERROR };
