// The hand-written message checks (src/protocol/messageShapes.ts, fieldChecks.ts) must give ajv's
// verdict, word for word, on every input. The reference here is the check as it was when ajv did
// it all: every message schema compiled from schemas/aicc.schema.json at test time, with the
// options and formats the generator uses, its first error worded by describeAjvError. fast-check
// feeds both valid messages of every type, the same messages mutated (fields missing, added,
// retyped, reordered, inherited; bad uuids, ids, enums, numbers; junk at any depth) and anything.

import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeAjvError } from '../../src/protocol/ajvError.js';
import { isToolId, isUuid } from '../../src/protocol/fieldChecks.js';
import type { Verdict } from '../../src/protocol/inbound.js';
import { checkMessage, type Sender } from '../../src/protocol/messageCheck.js';
import { ERROR_CODES, MESSAGE_TYPES, NIL_UUID, PROTOCOL, TOPICS, type MessageType } from '../../src/protocol/messages.js';
import { AJV_OPTIONS, FORMATS_MODE } from '../../src/validators/ajvOptions.js';

// ---- the reference: today's ajv path -------------------------------------------------------

const schema = JSON.parse(readFileSync(new URL('../../schemas/aicc.schema.json', import.meta.url), 'utf8')) as { $id: string };
const ajv = new Ajv2020({ ...AJV_OPTIONS });
addFormats(ajv, { mode: FORMATS_MODE });
ajv.addSchema(schema);
const validator = (def: string) => {
  const validate = ajv.getSchema(`${schema.$id}#/$defs/${def}`);
  if (validate === undefined) throw new Error(`no $defs/${def}`);
  return validate;
};
type Validator = ReturnType<typeof validator>;
const VALIDATORS: Record<Sender, Partial<Record<MessageType, Validator>>> = {
  agent: {
    session_resume: validator('sessionResume'),
    session_close: validator('sessionClose'),
    manifest_request: validator('manifestRequest'),
    tool_call: validator('toolCall'),
    heartbeat: validator('heartbeat'),
  },
  bridge: {
    session_init: validator('sessionInit'),
    session_close: validator('sessionClose'),
    tool_result: validator('toolResult'),
    event: validator('event'),
    error: validator('errorMessage'),
    heartbeat: validator('heartbeat'),
  },
};
const validateSessionInit = validator('sessionInit');
const validateModelDecl = validator('modelDecl');

/** src/protocol/messageCheck.ts as it was before the hand-written checks, with run-time ajv. */
function reference(value: unknown, sender: Sender): Verdict<unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, kind: 'schema_violation', message: 'message must be a JSON object' };
  const record = value as Record<string, unknown>;
  if (record['protocol'] !== PROTOCOL) {
    return { ok: false, kind: 'protocol_mismatch', message: `protocol must be "${PROTOCOL}", got ${JSON.stringify(record['protocol'] ?? null)?.slice(0, 40)}` };
  }
  const type = record['type'];
  if (typeof type !== 'string' || !(MESSAGE_TYPES as readonly string[]).includes(type)) {
    return { ok: false, kind: 'schema_violation', message: `type ${JSON.stringify(type ?? null)?.slice(0, 40)} is not an aicc/0.1 message type` };
  }
  const validate = VALIDATORS[sender][type as MessageType];
  if (validate === undefined)
    return { ok: false, kind: 'wrong_direction', message: `${type} is sent by the ${sender === 'agent' ? 'bridge' : 'agent'}, not the ${sender}` };
  if (!validate(value)) return { ok: false, kind: 'schema_violation', message: describeAjvError(type, validate.errors?.[0]) };
  if (type === 'heartbeat' && record['manifest_update'] !== undefined) {
    const refusal = sender === 'agent' ? agentManifestUpdate(record['manifest_update']) : bridgeManifestUpdate(record['manifest_update'], record);
    if (refusal !== undefined) return { ok: false, kind: 'schema_violation', message: refusal };
  }
  return { ok: true, value };
}

function bridgeManifestUpdate(update: unknown, heartbeat: Record<string, unknown>): string | undefined {
  if (update === null || typeof update !== 'object') return 'heartbeat.manifest_update must be object';
  if ('session_id' in update || 'message_id' in update) return 'heartbeat.manifest_update must not carry session_id or message_id';
  const asInit = { ...update, session_id: heartbeat['session_id'], message_id: heartbeat['message_id'] };
  if (!validateSessionInit(asInit)) return describeAjvError('heartbeat.manifest_update', validateSessionInit.errors?.[0]);
  return undefined;
}

function agentManifestUpdate(update: unknown): string | undefined {
  if (update === null || typeof update !== 'object' || Array.isArray(update)) return 'heartbeat.manifest_update must be object';
  const { agent_model: model, event_subscriptions: topics } = update as Record<string, unknown>;
  if (model === undefined) return 'heartbeat.manifest_update.agent_model is required';
  if (!validateModelDecl(model)) return describeAjvError('heartbeat.manifest_update.agent_model', validateModelDecl.errors?.[0]);
  if (topics !== undefined && !(Array.isArray(topics) && topics.every((topic) => typeof topic === 'string'))) {
    return 'heartbeat.manifest_update.event_subscriptions must be an array of strings';
  }
  return undefined;
}

/** Both directions' verdicts agree, and an accepted message is handed back as the same object. */
function expectAgreement(value: unknown): void {
  for (const sender of ['agent', 'bridge'] as const) {
    const got = checkMessage(value, sender);
    const want = reference(value, sender);
    expect(got.ok ? { ok: true, same: got.value === value } : got, `${sender}: ${safeJson(value)}`).toEqual(want.ok ? { ok: true, same: true } : want);
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, 500) ?? String(value);
  } catch {
    return String(value);
  }
}

// ---- values --------------------------------------------------------------------------------

/** A few session ids used again and again, as a live session does (the checks keep the last good one). */
const SESSION_POOL = [
  '5a1d2c3b-4e5f-4a6b-8c7d-0e1f2a3b4c5d',
  NIL_UUID,
  'urn:uuid:0BADC0DE-1234-4ABC-9DEF-0123456789AB',
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
];
/** Characters next to the ones a uuid or tool id allows, and some that case-fold or look alike. */
const NEAR_CHARS = [
  'g',
  'G',
  'z',
  '-',
  '_',
  ' ',
  ':',
  ';',
  '/',
  '@',
  '`',
  '[',
  '{',
  '\n',
  '\u0000',
  '\u001a',
  '\u007f',
  'A',
  'F',
  'a',
  'f',
  '0',
  '9',
  'U',
  'R',
  'N',
  'I',
  'D',
  'ａ',
  'Ａ',
  '\u017f',
  '\u212a',
  '\u0130',
  '\u0131',
  'é',
  '😀',
  '\ud800',
];
const nearChar = fc.constantFrom(...NEAR_CHARS);

const prefix = fc.constantFrom('', '', 'urn:uuid:', 'URN:UUID:', 'Urn:Uuid:', 'uRn:uUiD:');
const goodUuid = fc.oneof(
  fc.constantFrom(...SESSION_POOL),
  fc.tuple(prefix, fc.uuid(), fc.boolean()).map(([p, id, upper]) => p + (upper ? id.toUpperCase() : id)),
);
/** A string `edit` made of `text`: a character replaced, dropped or added. */
const edited = (text: fc.Arbitrary<string>) =>
  fc.tuple(text, fc.nat(), nearChar, fc.constantFrom('replace', 'drop', 'insert')).map(([s, at, c, how]) => {
    const i = at % (s.length + 1);
    return how === 'replace' ? s.slice(0, i) + c + s.slice(i + 1) : how === 'drop' ? s.slice(0, i) + s.slice(i + 1) : s.slice(0, i) + c + s.slice(i);
  });
const badUuid = fc.oneof(
  edited(goodUuid),
  goodUuid.map((id) => `${id}\n`),
  goodUuid.map((id) => id.replaceAll('-', '')),
  goodUuid.map((id) => id.slice(0, -1)),
  goodUuid.map((id) => `${id}0`),
  fc.constantFrom(
    '',
    'not-a-uuid',
    'urn:uuid:',
    `urn:uuid${NIL_UUID}`,
    `urn-uuid:${NIL_UUID}`,
    `urn:uuid:urn:uuid:${NIL_UUID}`,
    ` ${NIL_UUID}`,
    `{${NIL_UUID}}`,
    `\u001arn:uuid:${NIL_UUID}`,
    `urn\u001auuid:${NIL_UUID}`,
  ),
  fc.string({ minLength: 36, maxLength: 36 }),
  fc.string({ minLength: 45, maxLength: 45, unit: fc.constantFrom('a', 'F', '0', '-', ':', 'u', 'r', 'n', 'i', 'd', 'g') }),
);
const toolIdChars = fc.constantFrom(...'abcxyz019_');
const goodToolId = fc.tuple(fc.constantFrom(...'amz'), fc.string({ unit: toolIdChars, maxLength: 12 })).map(([a, b]) => a + b);
const badToolId = fc.oneof(edited(goodToolId), fc.constantFrom('', 'MoveTo', '1abc', '_a', 'a-b', 'a\n', 'a b', 'ａ', 'move_to\n'), fc.string());

const ENUM_WORDS = [
  ...TOPICS,
  ...ERROR_CODES,
  'edge_small',
  'edge_medium',
  'cloud_medium',
  'cloud_large',
  'fixed',
  'event',
  'hybrid',
  '2d',
  '3d',
  'text',
  'abstract',
  'sensor',
  'actuator',
  'generator',
];
const numbers = fc.oneof(
  fc.integer({ min: -3, max: 3 }),
  fc.nat(),
  fc.double(),
  fc.constantFrom(-0, 0.5, -1, 1e21, Number.MAX_SAFE_INTEGER + 2, NaN, Infinity, -Infinity),
);
const jsonObject = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
/** Anything a field could be given instead of what it should hold. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  goodUuid,
  badUuid,
  goodToolId,
  badToolId,
  fc.constantFrom(...ENUM_WORDS, 'tick ', 'TICK', '', 'x'.repeat(80), PROTOCOL, 'session_init'),
  numbers,
  fc.boolean(),
  fc.constantFrom(null, undefined, [], {}, [1], new String('x'), new Date(0), new Uint8Array(2), Object.create(null) as object),
  jsonObject,
  fc.anything({ maxDepth: 2, withNullPrototype: true, withBoxedValues: true, withTypedArray: true, withSparseArray: true }),
);

// ---- valid messages --------------------------------------------------------------------------

const envelope = (type: MessageType) => ({
  protocol: fc.constant(PROTOCOL),
  type: fc.constant(type),
  session_id: goodUuid,
  message_id: goodUuid,
});
const message = <T extends Record<string, fc.Arbitrary<unknown>>>(fields: T, optional: string[] = []) =>
  fc.record(fields, { requiredKeys: Object.keys(fields).filter((key) => !optional.includes(key)) as Array<keyof T & string> });

const callId = fc.oneof(fc.string({ minLength: 1 }), fc.constantFrom('c1', '!now', '😀', ' '));
const count = fc.oneof(fc.nat(), fc.constant(0));
const meta = message({ tick: count, latency_ms: count, source: fc.string(), extra: fc.jsonValue({ maxDepth: 1 }) }, ['tick', 'latency_ms', 'source', 'extra']);
const wireError = message({ code: fc.constantFrom(...ERROR_CODES), message: fc.string({ minLength: 1 }), retryable: fc.boolean() });
const modelDecl = message(
  { class: fc.constantFrom('edge_small', 'edge_medium', 'cloud_medium', 'cloud_large'), expected_first_token_ms: count, expected_full_response_ms: count },
  ['expected_first_token_ms', 'expected_full_response_ms'],
);
const strings = fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 });
const tool = message(
  {
    id: goodToolId,
    class: fc.constantFrom('sensor', 'actuator', 'generator'),
    description: fc.string({ minLength: 1 }),
    input_schema: jsonObject,
    output_schema: jsonObject,
    limits: message({ calls_per_minute: fc.integer({ min: 1, max: 600 }), calls_per_session: fc.integer({ min: 1, max: 1e6 }) }, [
      'calls_per_minute',
      'calls_per_session',
    ]),
    requires_capability: fc.string(),
    strict_input: fc.boolean(),
  },
  ['limits', 'requires_capability', 'strict_input'],
);
const manifest = {
  tick_rate_hz: fc.double({ min: 0.01, max: 1000, noNaN: true }),
  tick_mode: fc.constantFrom('fixed', 'event', 'hybrid'),
  world: message({ name: fc.string({ minLength: 1 }), kind: fc.constantFrom('2d', '3d', 'text', 'abstract') }),
  capabilities: message({ sensors: strings, actuators: strings, generators: strings }),
  tools: fc.array(tool, { maxLength: 2 }),
  agent_model: modelDecl,
  event_subscriptions: strings,
};
const bridgeUpdate = message({ protocol: fc.constant(PROTOCOL), type: fc.constant('session_init'), ...manifest }, ['event_subscriptions']);
const agentUpdate = message({ agent_model: modelDecl, event_subscriptions: strings, tick_mode: junk }, ['event_subscriptions', 'tick_mode']);

const VALID: Record<MessageType, fc.Arbitrary<Record<string, unknown>>> = {
  session_init: message({ ...envelope('session_init'), ...manifest }, ['event_subscriptions']),
  session_resume: message(envelope('session_resume')),
  session_close: message({ ...envelope('session_close'), reason: fc.string() }, ['reason']),
  manifest_request: message(envelope('manifest_request')),
  tool_call: message({ ...envelope('tool_call'), call_id: callId, tool: goodToolId, input: jsonObject }),
  tool_result: message({ ...envelope('tool_result'), call_id: callId, ok: fc.boolean(), output: jsonObject, error: wireError, meta }, [
    'output',
    'error',
    'meta',
  ]),
  event: message({ ...envelope('event'), topic: fc.constantFrom(...TOPICS), payload: jsonObject, meta }, ['meta']),
  error: message({ ...envelope('error'), error: wireError }),
  heartbeat: message({ ...envelope('heartbeat'), manifest_update: fc.oneof(agentUpdate, bridgeUpdate) }, ['manifest_update']),
};
const anyValid = fc.oneof(...Object.values(VALID));

// ---- mutations ---------------------------------------------------------------------------

const KEYS = [
  'protocol',
  'type',
  'session_id',
  'message_id',
  'call_id',
  'tool',
  'input',
  'ok',
  'output',
  'error',
  'meta',
  'topic',
  'payload',
  'reason',
  'manifest_update',
  'tick',
  'latency_ms',
  'source',
  'code',
  'message',
  'retryable',
  'class',
  'expected_first_token_ms',
  'expected_full_response_ms',
  'agent_model',
  'event_subscriptions',
  '__proto__',
  'constructor',
  'toString',
  '0',
  '10',
  '',
  'a/b',
  '~1',
  'x'.repeat(70),
];
const key = fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 4 }));

/** A value close to what the field named so should hold: right, or wrong in the way that field can be. */
const nearValues = fc.record({
  uuid: fc.oneof(goodUuid, badUuid),
  toolId: fc.oneof(goodToolId, badToolId),
  number: numbers,
  text: fc.oneof(fc.constant(''), fc.string({ maxLength: 4 }), fc.constantFrom(...ENUM_WORDS)),
});
type NearValues = typeof nearValues extends fc.Arbitrary<infer V> ? V : never;

function nearValue(name: string, near: NearValues): unknown {
  if (name === 'session_id' || name === 'message_id') return near.uuid;
  if (name === 'tool' || name === 'id') return near.toolId;
  if (['tick', 'latency_ms', 'expected_first_token_ms', 'expected_full_response_ms', 'tick_rate_hz', 'calls_per_minute', 'calls_per_session'].includes(name))
    return near.number;
  return near.text;
}

/**
 * One change somewhere in a value: `path` picks the way down (modulo what is there), `op` the
 * change. Mostly it spares `protocol` and `type`, which the gate checks before any schema.
 */
const mutation = fc.record({
  path: fc.array(fc.nat(), { maxLength: 3 }),
  op: fc.constantFrom('delete', 'add', 'replace', 'replace', 'replace', 'reorder', 'inherit'),
  pick: fc.nat(),
  gate: fc.nat(4).map((n) => n === 0),
  key,
  value: fc.oneof(
    junk.map((junk) => ({ junk })),
    nearValues.map((near) => ({ near })),
  ),
});
type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

const isContainer = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object';

/** A copy of an object or array with the same own fields in the same order (`__proto__` as a field). */
function copy(value: Record<string, unknown>): Record<string, unknown> {
  const out = (Array.isArray(value) ? [] : {}) as Record<string, unknown>;
  for (const name of Object.keys(value)) set(out, name, value[name]);
  return out;
}

function set(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

/** `value` with `m` applied, copied along the way down: the generated value itself is left alone. */
function mutate(value: unknown, m: Mutation, depth = 0): unknown {
  if (!isContainer(value)) return value;
  const names = Object.keys(value);
  const inner = names.filter((n) => isContainer(value[n]));
  const step = m.path[depth];
  const into = step === undefined || inner.length === 0 ? undefined : inner[step % inner.length]!;
  if (into !== undefined) {
    const out = copy(value);
    set(out, into, mutate(value[into], m, depth + 1));
    return out;
  }
  const choices = m.gate ? names : names.filter((n) => n !== 'protocol' && n !== 'type');
  const name = choices.length === 0 ? m.key : choices[m.pick % choices.length]!;
  const replacement = 'near' in m.value ? nearValue(m.op === 'add' ? m.key : name, m.value.near) : m.value.junk;
  const out = copy(value);
  switch (m.op) {
    case 'delete':
      delete out[name];
      return out;
    case 'add':
      set(out, m.key, replacement);
      return out;
    case 'replace':
      set(out, name, replacement);
      return out;
    case 'reorder': {
      const turned = {} as Record<string, unknown>;
      const shift = m.pick % Math.max(1, names.length);
      for (const n of [...names.slice(shift), ...names.slice(0, shift)]) set(turned, n, value[n]);
      return turned;
    }
    default: {
      // The field moves to the prototype: read like an own field, and enumerated by for-in.
      const own = copy(value);
      delete own[name];
      return Object.assign(Object.create({ [name]: value[name] }) as object, own);
    }
  }
}

const mutated = fc.tuple(anyValid, fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([value, ms]) => ms.reduce<unknown>((v, m) => mutate(v, m), value));

// ---- properties ----------------------------------------------------------------------------

describe('the hand-written message checks agree with ajv', () => {
  it('on valid messages of every type, from either side', () => {
    fc.assert(
      fc.property(anyValid, (value) => expectAgreement(value)),
      { numRuns: 2000 },
    );
  });

  it('on valid messages mutated: fields missing, added, retyped, reordered, inherited, at any depth', () => {
    fc.assert(
      fc.property(mutated, (value) => expectAgreement(value)),
      { numRuns: 10000 },
    );
  });

  it('on ids: uuids in any case, with or without urn:uuid:, and near misses of every kind', () => {
    const uuidField = fc.oneof(goodUuid, badUuid, badUuid);
    const withIds = fc
      .tuple(anyValid, uuidField, uuidField)
      .map(([value, sessionId, messageId]) => ({ ...value, session_id: sessionId, message_id: messageId }));
    fc.assert(
      fc.property(withIds, (value) => expectAgreement(value)),
      { numRuns: 4000 },
    );
  });

  it('on objects that claim aicc/0.1 and a type but hold anything', () => {
    const claim = fc.tuple(fc.constantFrom(...MESSAGE_TYPES, 'nope', 'toString'), fc.dictionary(key, junk, { maxKeys: 8 })).map(([type, fields]) => {
      const value = copy(fields);
      set(value, 'protocol', PROTOCOL);
      set(value, 'type', type);
      return value;
    });
    fc.assert(
      fc.property(claim, (value) => expectAgreement(value)),
      { numRuns: 3000 },
    );
  });

  it('on anything at all', () => {
    fc.assert(
      fc.property(fc.oneof(junk, fc.anything({ withNullPrototype: true })), (value) => expectAgreement(value)),
      { numRuns: 1000 },
    );
  });

  it('on the uuid format and the tool id pattern, character by character', () => {
    // The regexes themselves: ajv-formats' "fast" uuid and the schema's tool id pattern (ajv adds "u").
    const uuidFormat = (createRequire(import.meta.url)('ajv-formats/dist/formats') as { fastFormats: { uuid: RegExp } }).fastFormats.uuid;
    const toolPattern = /^[a-z][a-z0-9_]*$/u;
    fc.assert(
      fc.property(fc.oneof(goodUuid, badUuid, goodToolId, badToolId, fc.string()), (text) => {
        expect(isUuid(text), text).toBe(uuidFormat.test(text));
        expect(isToolId(text), text).toBe(toolPattern.test(text));
      }),
      { numRuns: 10000 },
    );
  });
});
