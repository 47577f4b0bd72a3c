// The schemas of the aicc/0.1 messages peers send all the time, written out by hand from
// schemas/aicc.schema.json: they run on every message, and ajv's generated code for them was the
// largest part of the browser core bundle. Each finds the error ajv would report first, so a
// refusal reads word for word as before (test/protocol/messageCheck.agreement.test.ts compares them
// with ajv on generated messages). ajv's order, which decides that first error:
//   1. `required`, in the schema's order (property reads: an inherited field counts, as in ajv);
//   2. `additionalProperties: false`, over the fields in for-in order (inherited enumerable ones too);
//   3. each declared property that is present, in the order of the schema's `properties`.
// The gate in ./messageCheck.ts has already made sure of `protocol` and `type`: they are present
// and right, so only the other fields are checked here.

import {
  boolean,
  count,
  isHexTail,
  isObject,
  missing,
  nonEmpty,
  object,
  oneOf,
  string,
  toolId,
  undeclared,
  uuid,
  wrongType,
  type Fields,
  type SchemaError,
} from './fieldChecks.js';
import { ERROR_CODES, NIL_UUID, TOPICS } from './messages.js';

/**
 * What a checker remembers of the ids that passed, to check the next message of the same peer by
 * what is new in it: the last session_id, and the 24-character prefix of the last message_id. Kept
 * per link (the Wire makes one): peers on other links have other ids. Only ids that passed are
 * kept, so a verdict never depends on it.
 */
export interface IdMemo {
  sessionId: string;
  messagePrefix: string;
}

export function newIdMemo(): IdMemo {
  return { sessionId: NIL_UUID, messagePrefix: NIL_UUID.slice(0, 24) };
}

/** The first schema error of one message whose protocol and type are known good. */
export type MessageShape = (message: Fields, memo: IdMemo) => SchemaError;

/** session_resume and manifest_request: the envelope alone. */
export function envelopeOnly(m: Fields, memo: IdMemo): SchemaError {
  const absent = absentId(m);
  if (absent !== undefined) return missing('', absent);
  const extra = undeclaredField(m);
  if (extra !== undefined) return undeclared('', extra);
  return ids(m, memo);
}

export function sessionClose(m: Fields, memo: IdMemo): SchemaError {
  const absent = absentId(m);
  if (absent !== undefined) return missing('', absent);
  const extra = undeclaredField(m, 'reason');
  if (extra !== undefined) return undeclared('', extra);
  return ids(m, memo) ?? string('/reason', m.reason);
}

/** A heartbeat's own schema: its manifest_update need only be an object (see ./messageCheck.ts). */
export function heartbeat(m: Fields, memo: IdMemo): SchemaError {
  const absent = absentId(m);
  if (absent !== undefined) return missing('', absent);
  const extra = undeclaredField(m, 'manifest_update');
  if (extra !== undefined) return undeclared('', extra);
  return ids(m, memo) ?? object('/manifest_update', m.manifest_update);
}

export function toolCall(m: Fields, memo: IdMemo): SchemaError {
  const absent = absentId(m) ?? (m.call_id === undefined ? 'call_id' : m.tool === undefined ? 'tool' : m.input === undefined ? 'input' : undefined);
  if (absent !== undefined) return missing('', absent);
  const extra = undeclaredField(m, 'call_id', 'tool', 'input');
  if (extra !== undefined) return undeclared('', extra);
  return ids(m, memo) ?? nonEmpty('/call_id', m.call_id) ?? toolId('/tool', m.tool) ?? object('/input', m.input);
}

export function toolResult(m: Fields, memo: IdMemo): SchemaError {
  const absent = absentId(m) ?? (m.call_id === undefined ? 'call_id' : m.ok === undefined ? 'ok' : undefined);
  if (absent !== undefined) return missing('', absent);
  const extra = undeclaredField(m, 'call_id', 'ok', 'output', 'error', 'meta');
  if (extra !== undefined) return undeclared('', extra);
  return ids(m, memo) ?? nonEmpty('/call_id', m.call_id) ?? boolean('/ok', m.ok) ?? object('/output', m.output) ?? wireError(m.error) ?? meta(m.meta);
}

export function event(m: Fields, memo: IdMemo): SchemaError {
  const absent = absentId(m) ?? (m.topic === undefined ? 'topic' : m.payload === undefined ? 'payload' : undefined);
  if (absent !== undefined) return missing('', absent);
  const extra = undeclaredField(m, 'topic', 'payload', 'meta');
  if (extra !== undefined) return undeclared('', extra);
  return ids(m, memo) ?? oneOf('/topic', m.topic, TOPICS) ?? object('/payload', m.payload) ?? meta(m.meta);
}

export function errorMessage(m: Fields, memo: IdMemo): SchemaError {
  const absent = absentId(m) ?? (m.error === undefined ? 'error' : undefined);
  if (absent !== undefined) return missing('', absent);
  const extra = undeclaredField(m, 'error');
  if (extra !== undefined) return undeclared('', extra);
  return ids(m, memo) ?? wireError(m.error);
}

const MODEL_CLASSES = ['edge_small', 'edge_medium', 'cloud_medium', 'cloud_large'];

/**
 * `$defs/modelDecl`, checked at its own root: an agent's manifest_update.agent_model, which is rare,
 * but written out here so that checking what agents send needs no generated code at all.
 */
export function modelDecl(value: unknown): SchemaError {
  if (!isObject(value)) return wrongType('', 'object');
  if (value.class === undefined) return missing('', 'class');
  for (const key in value) {
    if (key !== 'class' && key !== 'expected_first_token_ms' && key !== 'expected_full_response_ms') return undeclared('', key);
  }
  return (
    oneOf('/class', value.class, MODEL_CLASSES) ??
    count('/expected_first_token_ms', value.expected_first_token_ms) ??
    count('/expected_full_response_ms', value.expected_full_response_ms)
  );
}

/** The first envelope id the message lacks (protocol and type are known present). */
function absentId(m: Fields): string | undefined {
  return m.session_id === undefined ? 'session_id' : m.message_id === undefined ? 'message_id' : undefined;
}

function ids(m: Fields, memo: IdMemo): SchemaError {
  const sessionId = m.session_id;
  // Every message of a session carries its one session_id: comparing two strings is several times
  // cheaper than reading one character by character.
  if (sessionId !== memo.sessionId) {
    const error = uuid('/session_id', sessionId);
    if (error !== undefined) return error;
    memo.sessionId = sessionId as string;
  }
  const messageId = m.message_id;
  // A peer numbers its messages under one prefix: past its first message, only the last 12 digits are new.
  if (typeof messageId === 'string' && messageId.length === 36 && messageId.startsWith(memo.messagePrefix) && isHexTail(messageId)) return undefined;
  const error = uuid('/message_id', messageId);
  if (error === undefined) memo.messagePrefix = (messageId as string).slice(0, 24);
  return error;
}

/** The first field, in for-in order, that is neither the envelope's nor one of the message's own. */
function undeclaredField(m: Fields, a?: string, b?: string, c?: string, d?: string, e?: string): string | undefined {
  for (const key in m) {
    if (key === 'protocol' || key === 'type' || key === 'session_id' || key === 'message_id') continue;
    if (key === a || key === b || key === c || key === d || key === e) continue;
    return key;
  }
  return undefined;
}

/** `$defs/error` at `/error`: the `error` of a tool_result or of an error message. */
function wireError(value: unknown): SchemaError {
  if (value === undefined) return undefined;
  if (!isObject(value)) return wrongType('/error', 'object');
  const absent = value.code === undefined ? 'code' : value.message === undefined ? 'message' : value.retryable === undefined ? 'retryable' : undefined;
  if (absent !== undefined) return missing('/error', absent);
  for (const key in value) {
    if (key !== 'code' && key !== 'message' && key !== 'retryable') return undeclared('/error', key);
  }
  return oneOf('/error/code', value.code, ERROR_CODES) ?? nonEmpty('/error/message', value.message) ?? boolean('/error/retryable', value.retryable);
}

/** `$defs/meta` at `/meta`: known fields checked, any others allowed. */
function meta(value: unknown): SchemaError {
  if (value === undefined) return undefined;
  if (!isObject(value)) return wrongType('/meta', 'object');
  return count('/meta/tick', value.tick) ?? count('/meta/latency_ms', value.latency_ms) ?? string('/meta/source', value.source);
}
