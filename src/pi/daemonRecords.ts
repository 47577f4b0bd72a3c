// The gate for every record a pi-daemon host sends: line size, UTF-8, JSON, depth and
// prototype-polluting keys (src/protocol/inbound.ts), then the schema through the generated
// validators; and readers for the response `data` this client uses, which the schema leaves open.
// Nothing here throws on bad input; every failure is a verdict naming what was wrong.

import type { Frame } from '../protocol/codec.js';
import type { InboundLimits } from '../protocol/inbound.js';
import { readJsonRecord, refuseRecord as refuse, type RecordProblem } from './jsonRecord.js';
import { describeAjvError } from '../protocol/ajvError.js';
import { validateDaemonCommand, validateDaemonEvent, validateDaemonResponse } from './generated/daemon-validators.js';
import {
  DAEMON_PROTOCOL_VERSION,
  negotiateDaemonVersion,
  type AttachResult,
  type DaemonCommand,
  type DaemonEvent,
  type DaemonHostInfo,
  type DaemonResponse,
  type OpenResult,
  type WakeResult,
} from './daemonProtocol.js';

/** Bounds for inbound records: pi-daemon's own line limit is 1 MiB. */
export const DEFAULT_DAEMON_LIMITS: Readonly<InboundLimits> = Object.freeze({ maxFrameBytes: 1024 * 1024, maxDepth: 32 });

export type DaemonInbound = { kind: 'response'; response: DaemonResponse } | { kind: 'event'; event: DaemonEvent };

export type DaemonRecordVerdict = { ok: true; record: DaemonInbound } | { ok: false; problem: RecordProblem };

/** One inbound line → a response, an event, or a problem. */
export function readDaemonRecord(frame: Frame, limits: InboundLimits): DaemonRecordVerdict {
  const read = readJsonRecord(frame, limits, 'a pi-daemon link carries JSON text lines, not message objects');
  if (!read.ok) return refuse(read.kind, read.message);
  const record = read.record;
  const requestId = typeof record['requestId'] === 'string' ? record['requestId'] : undefined;
  if (record['kind'] === 'response') {
    if (!validateDaemonResponse(asV2Refusal(record)))
      return refuse('schema_violation', `response refused: ${describeAjvError('response', validateDaemonResponse.errors?.[0])}`, requestId);
    const response = record as unknown as DaemonResponse;
    // ok:false without an error object could not be reported as a typed error: the schema allows it, this client does not.
    if (!response.ok && response.error === undefined) return refuse('schema_violation', 'response refused: ok is false but there is no error', requestId);
    return { ok: true, record: { kind: 'response', response } };
  }
  if (record['kind'] === 'event') {
    if (!validateDaemonEvent(record))
      return refuse('schema_violation', `event refused: ${describeAjvError('event', validateDaemonEvent.errors?.[0])}`, requestId);
    return { ok: true, record: { kind: 'event', event: record as unknown as DaemonEvent } };
  }
  return refuse('schema_violation', 'record has no "kind" of "response" or "event"', requestId);
}

/**
 * An error response marked 1.x, read as the 2.x record it answers. pi-daemon 0.3.3 marks with its
 * default "1.0" the refusals it makes before it has read the command's own version: the line's
 * (invalid_json, line_too_large) and the connection's (duplicate_request_id, connection_busy, the
 * latter retryable). Refused as off-schema, a retryable connection_busy became a non-retryable
 * invalid_response. Only refusals: a success marked 1.x would be a v1 answer, which stays refused.
 */
function asV2Refusal(record: Record<string, unknown>): Record<string, unknown> {
  const version = record['protocolVersion'];
  if (record['ok'] !== false || typeof version !== 'string' || !V1.test(version)) return record;
  return { ...record, protocolVersion: DAEMON_PROTOCOL_VERSION };
}

const V1 = /^1\.\d+$/;

/** Why an outbound command fails the schema, or undefined when it passes. */
export function checkCommand(command: DaemonCommand): string | undefined {
  if (validateDaemonCommand(command)) return undefined;
  const errors = validateDaemonCommand.errors ?? [];
  // oneOf reports every branch: the deepest error is the one about this command's own fields.
  const deepest = [...errors].sort((a, b) => b.instancePath.length - a.instancePath.length)[0];
  return describeAjvError(command.operation, deepest);
}

type Read<T> = { ok: true; value: T } | { ok: false; message: string };

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** handshake data → what the client keeps of the host, or why it cannot be used. */
export function readHandshake(data: unknown): Read<DaemonHostInfo> | { ok: false; incompatible: string[]; message: string } {
  if (!isObject(data)) return { ok: false, message: 'handshake data is not an object' };
  const supported = data['supportedProtocolVersions'];
  if (!Array.isArray(supported) || !supported.every((v) => typeof v === 'string'))
    return { ok: false, message: 'handshake data.supportedProtocolVersions is not a list of strings' };
  const host = isObject(data['host']) ? data['host'] : {};
  const hostInstanceId = host['hostInstanceId'];
  if (typeof hostInstanceId !== 'string' || hostInstanceId === '') return { ok: false, message: 'handshake data.host.hostInstanceId is missing' };
  const version = negotiateDaemonVersion(supported as string[]);
  if (version === undefined)
    return { ok: false, incompatible: supported as string[], message: `the host speaks ${supported.join(', ') || 'no version'}, this client 2.x` };
  return {
    ok: true,
    value: {
      hostInstanceId,
      protocolVersion: version,
      supportedProtocolVersions: [...(supported as string[])],
      ready: host['ready'] !== false,
      capabilities: isObject(data['capabilities']) ? data['capabilities'] : {},
      limits: isObject(data['limits']) ? data['limits'] : {},
      host,
    },
  };
}

export function readOpen(data: unknown): Read<OpenResult> {
  if (!isObject(data) || typeof data['created'] !== 'boolean' || !isObject(data['session']))
    return { ok: false, message: 'open data must be { created: boolean, session: {…} }' };
  return { ok: true, value: data as unknown as OpenResult };
}

export function readAttach(data: unknown): Read<AttachResult> {
  if (!isObject(data) || !isCount(data['generation']) || !isCount(data['sequence']))
    return { ok: false, message: 'attach data must be { attached, generation, sequence } with whole numbers up to 2^53 − 1' };
  return { ok: true, value: { attached: data['attached'] !== false, generation: data['generation'] as number, sequence: data['sequence'] as number } };
}

/**
 * wake data (waitForTerminal true): `{ result: { text, … }, session }`. A turn aborted before the
 * model wrote any text answers with no `text` at all (pi-daemon 0.3.3): read as "".
 */
export function readWake(data: unknown): Read<{ result: WakeResult; session?: unknown }> {
  const result = isObject(data) ? data['result'] : undefined;
  const text = isObject(result) ? (result['text'] ?? '') : undefined;
  if (!isObject(result) || typeof text !== 'string') return { ok: false, message: 'wake data must be { result: { text: string, … }, session }' };
  return { ok: true, value: { ...(data as { session?: unknown }), result: { ...result, text } as WakeResult } };
}

/** A data field that must be a boolean (`{queued}`, `{aborted}`, `{closed}`). */
export function readFlag(data: unknown, field: string): Read<boolean> {
  const value = isObject(data) ? data[field] : undefined;
  return typeof value === 'boolean' ? { ok: true, value } : { ok: false, message: `data.${field} must be a boolean` };
}

function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
