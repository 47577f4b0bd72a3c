// The first step of reading a pi-peers or pi-daemon record: one JSON object, within the bounds; and
// the one shape both clients give a record they refuse (their `problem` event).

import type { Frame } from '../protocol/codec.js';
import { parseJsonFrame, type InboundLimits } from '../protocol/inbound.js';

export type RecordProblemKind = 'oversized_frame' | 'malformed_frame' | 'too_deep' | 'forbidden_key' | 'schema_violation';

/** A record that was refused: reported as a `problem` event on the client, then dropped. */
export interface RecordProblem {
  kind: RecordProblemKind;
  message: string;
  /** The refused record's id (pi-peers `id`, pi-daemon `requestId`), when it had a readable one. */
  requestId?: string;
}

/** `notText` refuses a frame that is not text (a message object on this text link). */
export function readJsonRecord(
  frame: Frame,
  limits: InboundLimits,
  notText: string,
): { ok: true; record: Record<string, unknown> } | { ok: false; kind: RecordProblemKind; message: string } {
  const read = parseJsonFrame(frame, limits, { what: 'record', notText, limitName: 'options.limits.maxFrameBytes' });
  if (!read.ok) {
    const kind = read.kind as RecordProblemKind;
    return { ok: false, kind, message: kind === 'too_deep' || kind === 'forbidden_key' ? `record refused: ${read.message}` : read.message };
  }
  const value = read.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, kind: 'schema_violation', message: 'record is not a JSON object' };
  return { ok: true, record: value as Record<string, unknown> };
}

/** A refused record's verdict. */
export function refuseRecord(kind: RecordProblemKind, message: string, requestId?: string): { ok: false; problem: RecordProblem } {
  return { ok: false, problem: requestId === undefined ? { kind, message } : { kind, message, requestId } };
}
