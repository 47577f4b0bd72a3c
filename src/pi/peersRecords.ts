// The gate for every record a pi-peers agent sends: frame size, UTF-8, JSON, depth and
// prototype-polluting keys (src/protocol/inbound.ts), then the schema through the generated
// validators. Nothing here throws on bad input; every failure is a verdict naming what was wrong.

import type { Frame } from '../protocol/codec.js';
import type { InboundLimits } from '../protocol/inbound.js';
import { readJsonRecord, refuseRecord as refuse, type RecordProblem } from './jsonRecord.js';
import { describeAjvError, type AjvErrorLike } from '../protocol/ajvError.js';
import { validateAgentState, validateRequest, validateResponse, validateVersionRange } from './generated/peers-validators.js';
import { isPeersWireErrorCode, type AgentState, type PeersRequest, type PeersResponse, type VersionRange } from './peersProtocol.js';

/**
 * Bounds for inbound records. Frames are larger than AICC's default: an agent's last assistant
 * text travels in one record (pi-daemon also allows 1 MiB lines).
 */
export const DEFAULT_PEERS_LIMITS: Readonly<InboundLimits> = Object.freeze({ maxFrameBytes: 1024 * 1024, maxDepth: 32 });

export type InboundRecord =
  | { kind: 'response'; response: PeersResponse }
  /** A record type this client does not know (a later 1.x event, say): ignored, but its id counts as progress. */
  | { kind: 'other'; type: string; id: string | undefined };

export type RecordVerdict = { ok: true; record: InboundRecord } | { ok: false; problem: RecordProblem };

/** One inbound frame → a response, a record to ignore, or a problem. */
export function readRecord(frame: Frame, limits: InboundLimits): RecordVerdict {
  const read = readJsonRecord(frame, limits, 'a pi-peers link carries JSON text frames, not message objects');
  if (!read.ok) return refuse(read.kind, read.message);
  const record = read.record;
  const id = typeof record['id'] === 'string' ? record['id'] : undefined;
  const type = record['type'];
  if (typeof type !== 'string') return refuse('schema_violation', 'record has no string "type"', id);
  if (type !== 'response') return { ok: true, record: { kind: 'other', type, id } };
  // Minor versions add error codes: an unknown one is checked as absent, and kept for the caller.
  const code = record['errorCode'];
  const checked = typeof code === 'string' && !isPeersWireErrorCode(code) ? withoutKey(record, 'errorCode') : record;
  if (!validateResponse(checked)) return refuse('schema_violation', `response refused: ${describeAjvError('response', validateResponse.errors?.[0])}`, id);
  return { ok: true, record: { kind: 'response', response: record as unknown as PeersResponse } };
}

/** get_state data as an AgentState, or why it is not one. */
export function readAgentState(data: unknown): { ok: true; state: AgentState } | { ok: false; message: string } {
  if (validateAgentState(data)) return { ok: true, state: data as AgentState };
  const error = validateAgentState.errors?.[0];
  // The schema's only `not`: a state must never carry the agent's secret.
  if (error?.keyword === 'not') return { ok: false, message: 'get_state data carries a "token", which AgentState forbids' };
  return { ok: false, message: describeAjvError('get_state data', error) };
}

/** get_last_assistant_text data (pi's `{ text: string | null }`), or undefined when it is not that. */
export function readLastText(data: unknown): { ok: true; text: string | null } | { ok: false } {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return { ok: false };
  const text = (data as Record<string, unknown>)['text'];
  return typeof text === 'string' || text === null ? { ok: true, text } : { ok: false };
}

/**
 * `{id, type: 'abort'}` stops the agent's run. It is not in pi-peers 1.0: the aicc gateway serves it
 * when it hosts pi (its RPC has `abort`); an agent without it answers with an unknown-command error.
 */
export function isAbortRequest(record: unknown): boolean {
  const r = record as Record<string, unknown>;
  return r['type'] === 'abort' && typeof r['id'] === 'string' && r['id'].length > 0 && Object.keys(r).length === 2;
}

/** Why an outbound record fails the schema, or undefined when it passes. */
export function checkRequest(record: PeersRequest): string | undefined {
  if (isAbortRequest(record)) return undefined;
  if (validateRequest(record)) return undefined;
  return describeAjvError('request', branchError(record.type, validateRequest.errors ?? []));
}

/** The schema $defs entry each request type is checked against inside Request's oneOf. */
const BRANCH: Record<string, string> = {
  hello: 'Hello',
  get_state: 'GetState',
  get_last_assistant_text: 'GetLastAssistantText',
  prompt: 'Delivery',
  follow_up: 'Delivery',
  steer: 'Delivery',
};

/**
 * oneOf reports every branch's first failure: the useful one is the branch of the record's own
 * type (a prompt with an empty message should not read "protocol is required").
 */
function branchError(type: string, errors: ReadonlyArray<AjvErrorLike & { schemaPath?: string }>): AjvErrorLike | undefined {
  const branch = Object.hasOwn(BRANCH, type) ? BRANCH[type] : undefined;
  const own = branch === undefined ? undefined : errors.find((error) => error.schemaPath?.includes(`/${branch}/`) === true);
  return own ?? errors.at(-1);
}

function withoutKey(record: Record<string, unknown>, key: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([name]) => name !== key));
}

/**
 * The server's range from a hello answer's `data.protocol`. The schema says nothing of the hello
 * answer's data: a range there is checked; none means the server accepted ours as it is.
 */
export function readHelloProtocol(data: unknown): { ok: true; range: VersionRange | undefined } | { ok: false; message: string } {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return { ok: true, range: undefined };
  const protocol = (data as Record<string, unknown>)['protocol'];
  if (protocol === undefined) return { ok: true, range: undefined };
  if (validateVersionRange(protocol)) return { ok: true, range: protocol as VersionRange };
  return { ok: false, message: describeAjvError('hello data.protocol', validateVersionRange.errors?.[0]) };
}
