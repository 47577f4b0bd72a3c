// Checks a decoded value against aicc/0.1: protocol string first (protocol_mismatch), then the
// type (unknown, or sent the wrong way), then the schema of that type (invalid_input naming the
// field). One checker per direction. The messages that flow all the time — everything an agent
// sends; tool_result, event, error, session_close and heartbeat from the bridge — are checked by
// hand (./messageShapes.ts), with ajv's verdicts and wording. The rare, deep session_init (and a
// bridge's manifest_update, which is one) keeps its precompiled ajv validator: only
// checkBridgeMessage refers to it, so a bundle of the bridge leaves it out.

import { validateSessionInit } from './generated/aicc-validators.js';
import { describeAjvError } from './ajvError.js';
import { isObject, type Fields, type SchemaError } from './fieldChecks.js';
import type { Verdict } from './inbound.js';
import {
  envelopeOnly,
  errorMessage,
  event,
  heartbeat,
  modelDecl,
  newIdMemo,
  sessionClose,
  toolCall,
  toolResult,
  type IdMemo,
  type MessageShape,
} from './messageShapes.js';
import { MESSAGE_TYPES, PROTOCOL, type AiccMessage } from './messages.js';

/** Who sent the message being checked. */
export type Sender = 'agent' | 'bridge';

/**
 * Checks one decoded value as a message from one side. `memo` is what the checker may remember of
 * this link's ids between messages (a Wire keeps one per link); without one, a shared one is used.
 */
export type MessageChecker = (value: unknown, memo?: IdMemo) => Verdict<AiccMessage>;

/** For checks made without a link's memo. */
const SHARED_MEMO: IdMemo = newIdMemo();

/** What a heartbeat's manifest_update must be beyond an object, by sender: a refusal, or undefined. */
type ManifestUpdateCheck = (update: Fields, heartbeat: Fields) => string | undefined;

/** Messages an agent sends, as the bridge checks them. */
export const checkAgentMessage: MessageChecker = (value, memo = SHARED_MEMO) => check(value, 'agent', agentShape, agentManifestUpdate, memo);

/** Messages the bridge sends, as an agent checks them. */
export const checkBridgeMessage: MessageChecker = (value, memo = SHARED_MEMO) => check(value, 'bridge', bridgeShape, bridgeManifestUpdate, memo);

/** Either direction, by sender (recordings; tools that see both sides). */
export function checkMessage(value: unknown, sender: Sender): Verdict<AiccMessage> {
  return sender === 'agent' ? checkAgentMessage(value) : checkBridgeMessage(value);
}

function agentShape(type: string): MessageShape | undefined {
  switch (type) {
    case 'tool_call':
      return toolCall;
    case 'heartbeat':
      return heartbeat;
    case 'session_resume':
    case 'manifest_request':
      return envelopeOnly;
    case 'session_close':
      return sessionClose;
    default:
      return undefined;
  }
}

function bridgeShape(type: string): MessageShape | undefined {
  switch (type) {
    case 'event':
      return event;
    case 'tool_result':
      return toolResult;
    case 'heartbeat':
      return heartbeat;
    case 'error':
      return errorMessage;
    case 'session_close':
      return sessionClose;
    case 'session_init':
      return sessionInit;
    default:
      return undefined;
  }
}

function sessionInit(message: Fields): SchemaError {
  return validateSessionInit(message) ? undefined : validateSessionInit.errors?.[0];
}

function check(
  value: unknown,
  sender: Sender,
  shapeOf: (type: string) => MessageShape | undefined,
  manifestUpdate: ManifestUpdateCheck,
  memo: IdMemo,
): Verdict<AiccMessage> {
  if (!isObject(value)) return { ok: false, kind: 'schema_violation', message: 'message must be a JSON object' };
  if (value['protocol'] !== PROTOCOL) {
    return {
      ok: false,
      kind: 'protocol_mismatch',
      message: `protocol must be "${PROTOCOL}", got ${JSON.stringify(value['protocol'] ?? null)?.slice(0, 40)}`,
    };
  }
  const type = value['type'];
  if (typeof type !== 'string') return notAType(type);
  const shape = shapeOf(type);
  if (shape === undefined) {
    if (!(MESSAGE_TYPES as readonly string[]).includes(type)) return notAType(type);
    return { ok: false, kind: 'wrong_direction', message: `${type} is sent by the ${sender === 'agent' ? 'bridge' : 'agent'}, not the ${sender}` };
  }
  const error = shape(value, memo);
  if (error !== undefined) return { ok: false, kind: 'schema_violation', message: describeAjvError(type, error) };
  // The heartbeat's shape made manifest_update, when present, an object.
  const update = type === 'heartbeat' ? value['manifest_update'] : undefined;
  if (update !== undefined) {
    const refusal = manifestUpdate(update as Fields, value);
    if (refusal !== undefined) return { ok: false, kind: 'schema_violation', message: refusal };
  }
  return { ok: true, value: value as unknown as AiccMessage };
}

function notAType(type: unknown): Verdict<never> {
  return { ok: false, kind: 'schema_violation', message: `type ${JSON.stringify(type ?? null)?.slice(0, 40)} is not an aicc/0.1 message type` };
}

/** manifest_update from the bridge is session_init without its two ids: checked as one with the heartbeat's ids. */
function bridgeManifestUpdate(update: Fields, heartbeat: Fields): string | undefined {
  if ('session_id' in update || 'message_id' in update) return 'heartbeat.manifest_update must not carry session_id or message_id';
  const asInit = { ...update, session_id: heartbeat['session_id'], message_id: heartbeat['message_id'] };
  if (!validateSessionInit(asInit)) return describeAjvError('heartbeat.manifest_update', validateSessionInit.errors?.[0]);
  return undefined;
}

/**
 * From an agent, the bridge reads only `agent_model` and `event_subscriptions` (an agent cannot
 * change the rest): those two are checked against the schema, the other fields are ignored.
 */
function agentManifestUpdate(update: Fields): string | undefined {
  const { agent_model: model, event_subscriptions: topics } = update;
  if (model === undefined) return 'heartbeat.manifest_update.agent_model is required';
  const error = modelDecl(model);
  if (error !== undefined) return describeAjvError('heartbeat.manifest_update.agent_model', error);
  if (topics !== undefined && !(Array.isArray(topics) && topics.every((topic) => typeof topic === 'string'))) {
    return 'heartbeat.manifest_update.event_subscriptions must be an array of strings';
  }
  return undefined;
}
