// Checks a decoded value against aicc/0.1 with the precompiled validators: protocol string first
// (protocol_mismatch), then the schema of its declared type (invalid_input naming the field).
// One checker per direction, so a bundle carries only the validators of the messages it receives:
// the capsule those agents send, an agent those the bridge sends.

import {
  validateErrorMessage,
  validateEvent,
  validateHeartbeat,
  validateManifestRequest,
  validateModelDecl,
  validateSessionClose,
  validateSessionInit,
  validateSessionResume,
  validateToolCall,
  validateToolResult,
  type GeneratedValidator,
} from './generated/aicc-validators.js';
import type { Verdict } from './inbound.js';
import { MESSAGE_TYPES, PROTOCOL, type AiccMessage, type MessageType } from './messages.js';
import { describeAjvError } from './ajvError.js';

/** Who sent the message being checked. */
export type Sender = 'agent' | 'bridge';

/** Checks one decoded value as a message from one side. */
export type MessageChecker = (value: unknown) => Verdict<AiccMessage>;

type Validators = Partial<Record<MessageType, GeneratedValidator>>;

/** Messages an agent sends, as the bridge checks them. */
export const checkAgentMessage: MessageChecker = (value) =>
  check(value, 'agent', { session_resume: validateSessionResume, session_close: validateSessionClose, manifest_request: validateManifestRequest, tool_call: validateToolCall, heartbeat: validateHeartbeat }, agentManifestUpdate);

/** Messages the bridge sends, as an agent checks them. */
export const checkBridgeMessage: MessageChecker = (value) =>
  check(value, 'bridge', { session_init: validateSessionInit, session_close: validateSessionClose, tool_result: validateToolResult, event: validateEvent, error: validateErrorMessage, heartbeat: validateHeartbeat }, bridgeManifestUpdate);

/** Either direction, by sender (recordings; tools that see both sides). */
export function checkMessage(value: unknown, sender: Sender): Verdict<AiccMessage> {
  return sender === 'agent' ? checkAgentMessage(value) : checkBridgeMessage(value);
}

function check(value: unknown, sender: Sender, validators: Validators, manifestUpdate: (update: unknown, heartbeat: Record<string, unknown>) => Verdict<unknown>): Verdict<AiccMessage> {
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
  if (typeof type !== 'string' || !(MESSAGE_TYPES as readonly string[]).includes(type)) {
    return { ok: false, kind: 'schema_violation', message: `type ${JSON.stringify(type ?? null)?.slice(0, 40)} is not an aicc/0.1 message type` };
  }
  const validate = validators[type as MessageType];
  if (validate === undefined) {
    return { ok: false, kind: 'wrong_direction', message: `${type} is sent by the ${sender === 'agent' ? 'bridge' : 'agent'}, not the ${sender}` };
  }
  if (!validate(value)) {
    return { ok: false, kind: 'schema_violation', message: describeAjvError(type, validate.errors?.[0]) };
  }
  if (type === 'heartbeat' && record['manifest_update'] !== undefined) {
    const update = manifestUpdate(record['manifest_update'], record);
    if (!update.ok) return update;
  }
  return { ok: true, value: value as AiccMessage };
}

function refuseUpdate(message: string): Verdict<never> {
  return { ok: false, kind: 'schema_violation', message };
}

/** manifest_update from the bridge is session_init without its two ids: checked as one with the heartbeat's ids. */
function bridgeManifestUpdate(update: unknown, heartbeat: Record<string, unknown>): Verdict<unknown> {
  if (update === null || typeof update !== 'object') return refuseUpdate('heartbeat.manifest_update must be object');
  if ('session_id' in update || 'message_id' in update) return refuseUpdate('heartbeat.manifest_update must not carry session_id or message_id');
  const asInit = { ...update, session_id: heartbeat['session_id'], message_id: heartbeat['message_id'] };
  if (!validateSessionInit(asInit)) return refuseUpdate(describeAjvError('heartbeat.manifest_update', validateSessionInit.errors?.[0]));
  return { ok: true, value: update };
}

/**
 * From an agent, the bridge reads only `agent_model` and `event_subscriptions` (an agent cannot
 * change the rest): those two are checked against the schema, the other fields are ignored.
 */
function agentManifestUpdate(update: unknown): Verdict<unknown> {
  if (update === null || typeof update !== 'object' || Array.isArray(update)) return refuseUpdate('heartbeat.manifest_update must be object');
  const { agent_model: model, event_subscriptions: topics } = update as Record<string, unknown>;
  if (model === undefined) return refuseUpdate('heartbeat.manifest_update.agent_model is required');
  if (!validateModelDecl(model)) return refuseUpdate(describeAjvError('heartbeat.manifest_update.agent_model', validateModelDecl.errors?.[0]));
  if (topics !== undefined && !(Array.isArray(topics) && topics.every((topic) => typeof topic === 'string'))) {
    return refuseUpdate('heartbeat.manifest_update.event_subscriptions must be an array of strings');
  }
  return { ok: true, value: update };
}
