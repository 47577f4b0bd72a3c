// pi-peers 1.0 records as the gateway reads and writes them (schemas/pi-peers-1.0.schema.json):
// parsing a browser's record, the hello check and the response shape. The wire model itself —
// versions, their negotiation, records, error codes — is src/pi/peersProtocol.ts, the one the
// clients speak; nothing of it is declared again here.

import type { HelloRecord, Peer, PeersResponse, PeersWireErrorCode, VersionRange } from '../../pi/peersProtocol.js';
import { parseVersion } from '../../pi/peersProtocol.js';
import { checkStructure } from '../../protocol/inbound.js';
import { clip } from './access.js';

export type { Peer } from '../../pi/peersProtocol.js';

/**
 * A response the gateway writes: a pi-peers response whose errorCode is one of the schema's, and
 * whose `id` is absent only when the request had no usable one (unparseable JSON).
 */
export type Response = Omit<PeersResponse, 'id' | 'errorCode'> & { id?: string; errorCode?: PeersWireErrorCode };

/** A record from a browser: a JSON object with a `type`, and (for requests) an `id`. */
export type BrowserRecord = { type: string; id?: string } & Record<string, unknown>;

export function success(id: string, command: string, data?: unknown): Response {
  return data === undefined ? { type: 'response', id, command, success: true } : { type: 'response', id, command, success: true, data };
}

export function failure(id: string | undefined, command: string, errorCode: PeersWireErrorCode, error: string, retryable = false): Response {
  const response: Response = { type: 'response', command, success: false, error, errorCode, retryable };
  if (id !== undefined) response.id = id;
  return response;
}

/** A frame read as a record, or the response refusing it. */
export type Parsed = { ok: true; record: BrowserRecord } | { ok: false; refusal: Response };

/**
 * Parses one text frame into a record, or a response refusing it. Binary frames and anything but a
 * JSON object with a string `type` are refused; an `id` that is not a string is refused too.
 */
export function parseRecord(frame: unknown): Parsed {
  const refuse = (id: string | undefined, command: string, error: string): Parsed => ({ ok: false, refusal: failure(id, command, 'invalid_request', error) });
  if (typeof frame !== 'string') return refuse(undefined, 'parse', 'pi-peers records are JSON text; send a text frame, not a binary one');
  let value: unknown;
  try {
    value = JSON.parse(frame);
  } catch {
    // JSON.parse's message quotes the text, which may hold anything (a pasted key): never repeated.
    return refuse(undefined, 'parse', 'not JSON; send one JSON object per text frame');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return refuse(undefined, 'parse', 'a record must be a JSON object');
  const record = value as Record<string, unknown>;
  const id = typeof record.id === 'string' ? record.id : undefined;
  if (typeof record.type !== 'string') return refuse(id, 'parse', 'a record needs a string "type"');
  if (id === undefined) return refuse(undefined, clip(record.type, 40), `a "${clip(record.type, 40)}" record needs a string "id" to answer to`);
  const structure = checkStructure(record, MAX_RECORD_DEPTH);
  if (!structure.ok)
    return refuse(
      id,
      clip(record.type, 40),
      structure.kind === 'too_deep'
        ? `a record may nest objects and arrays at most ${MAX_RECORD_DEPTH} levels deep`
        : `${structure.message}; such a key could pollute a prototype where the record is merged`,
    );
  return { ok: true, record: record as BrowserRecord };
}

/**
 * Deepest nesting of objects and arrays a browser's record may have. The relay re-serializes every
 * record, and JSON.stringify recurses: a few thousand levels (a 10 KB frame) overflow the stack
 * and would throw out of the WebSocket's message handler, taking the gateway down. The check is
 * the runtime's checkStructure, which also refuses `__proto__` keys.
 */
export const MAX_RECORD_DEPTH = 32;

export function isResponse(value: { type: string }): value is Response {
  return value.type === 'response';
}

/**
 * Checks a browser's hello. A browser never holds an agent's token (the gateway adds it, or has
 * none to add), so a hello that carries one is refused rather than forwarded or ignored.
 */
export function checkHello(record: BrowserRecord): HelloRecord | Response {
  const id = record.id ?? '';
  if (record.type !== 'hello') return failure(id, record.type, 'hello_required', 'the first record must be a hello');
  if ('token' in record) {
    return failure(id, 'hello', 'auth_failed', 'a browser must not send a token; the gateway authenticates to the agent itself');
  }
  const protocol = record.protocol as Partial<VersionRange> | undefined;
  if (!protocol || !isVersion(protocol.version) || !isVersion(protocol.minVersion)) {
    return failure(id, 'hello', 'invalid_request', 'hello.protocol needs "version" and "minVersion", each MAJOR.MINOR');
  }
  const hello: HelloRecord = { id, type: 'hello', protocol: { version: protocol.version, minVersion: protocol.minVersion } };
  if (record.from !== undefined) {
    const from = record.from as Partial<Peer> | null;
    if (!from || typeof from.id !== 'string' || typeof from.label !== 'string' || typeof from.host !== 'string') {
      return failure(id, 'hello', 'invalid_request', 'hello.from needs string "id", "label" and "host"');
    }
    hello.from = { id: from.id, label: from.label, host: from.host };
  }
  return hello;
}

function isVersion(value: unknown): value is string {
  return typeof value === 'string' && parseVersion(value) !== undefined;
}
