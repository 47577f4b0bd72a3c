// Checks a decoded value against aicc/0.1 with the precompiled validators: protocol string first
// (protocol_mismatch), then the schema of its declared type (invalid_input naming the field).

import * as generated from './generated/aicc-validators.js';
import type { GeneratedValidator } from './generated/aicc-validators.js';
import type { Verdict } from './inbound.js';
import { AGENT_ONLY, BRIDGE_ONLY, PROTOCOL, type AiccMessage, type MessageType } from './protocol.js';
import { describeAjvError } from './validator.js';

const VALIDATORS: Record<MessageType, GeneratedValidator> = {
  session_init: generated.validateSessionInit,
  session_resume: generated.validateSessionResume,
  session_close: generated.validateSessionClose,
  manifest_request: generated.validateManifestRequest,
  tool_call: generated.validateToolCall,
  tool_result: generated.validateToolResult,
  event: generated.validateEvent,
  error: generated.validateErrorMessage,
  heartbeat: generated.validateHeartbeat,
};

/** Who sent the message being checked. */
export type Sender = 'agent' | 'bridge';

export function checkMessage(value: unknown, sender: Sender): Verdict<AiccMessage> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, kind: 'schema_violation', message: 'message must be a JSON object' };
  }
  const record = value as Record<string, unknown>;
  if (record['protocol'] !== PROTOCOL) {
    return {
      ok: false,
      kind: 'protocol_mismatch',
      message: `protocol must be "${PROTOCOL}", got ${JSON.stringify(record['protocol'] ?? null)?.slice(0, 40)}`,
    };
  }
  const type = record['type'];
  const validate = typeof type === 'string' ? VALIDATORS[type as MessageType] : undefined;
  if (validate === undefined || !Object.hasOwn(VALIDATORS, type as string)) {
    return { ok: false, kind: 'schema_violation', message: `type ${JSON.stringify(type ?? null)?.slice(0, 40)} is not an aicc/0.1 message type` };
  }
  const wrongWay = sender === 'agent' ? BRIDGE_ONLY : AGENT_ONLY;
  if (wrongWay.has(type as MessageType)) {
    return { ok: false, kind: 'wrong_direction', message: `${String(type)} is sent by the ${sender === 'agent' ? 'bridge' : 'agent'}, not the ${sender}` };
  }
  if (!validate(value)) {
    return { ok: false, kind: 'schema_violation', message: describeAjvError(String(type), validate.errors?.[0]) };
  }
  if (type === 'heartbeat' && record['manifest_update'] !== undefined) {
    const update = checkManifestUpdate(record['manifest_update'], record);
    if (!update.ok) return update;
  }
  return { ok: true, value: value as AiccMessage };
}

/** manifest_update is session_init without its two ids: checked as one with the heartbeat's ids. */
function checkManifestUpdate(update: unknown, heartbeat: Record<string, unknown>): Verdict<unknown> {
  if (update === null || typeof update !== 'object') return { ok: false, kind: 'schema_violation', message: 'heartbeat.manifest_update must be object' };
  if ('session_id' in update || 'message_id' in update) {
    return { ok: false, kind: 'schema_violation', message: 'heartbeat.manifest_update must not carry session_id or message_id' };
  }
  const asInit = { ...update, session_id: heartbeat['session_id'], message_id: heartbeat['message_id'] };
  if (!generated.validateSessionInit(asInit)) {
    return {
      ok: false,
      kind: 'schema_violation',
      message: describeAjvError('heartbeat.manifest_update', generated.validateSessionInit.errors?.[0]),
    };
  }
  return { ok: true, value: update };
}
