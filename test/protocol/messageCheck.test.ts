import { describe, expect, it } from 'vitest';
import { checkMessage, type Sender } from '../../src/protocol/messageCheck.js';
import type { JsonObject, MessageType } from '../../src/protocol/messages.js';

const SESSION = '5a1d2c3b-4e5f-4a6b-8c7d-0e1f2a3b4c5d';
const MESSAGE = '0badc0de-1234-4abc-9def-0123456789ab';
const envelope = (type: MessageType) => ({ protocol: 'aicc/0.1', type, session_id: SESSION, message_id: MESSAGE });

const manifest = {
  tick_rate_hz: 10,
  tick_mode: 'fixed',
  world: { name: 'Testland', kind: '2d' },
  capabilities: { sensors: ['vision'], actuators: ['locomotion'], generators: [] },
  tools: [
    {
      id: 'move_to',
      class: 'actuator',
      description: 'Walks to a point.',
      input_schema: { type: 'object' },
      output_schema: { type: 'object' },
      limits: { calls_per_minute: 30 },
      requires_capability: 'locomotion',
    },
  ],
  agent_model: { class: 'cloud_medium', expected_full_response_ms: 1200 },
  event_subscriptions: ['tick'],
};

/** session_init minus session_id and message_id: what a heartbeat's manifest_update carries. */
const manifestUpdate = { protocol: 'aicc/0.1', type: 'session_init', ...manifest };

const EXAMPLES: Record<MessageType, JsonObject> = {
  session_init: { ...envelope('session_init'), ...manifest },
  session_resume: envelope('session_resume'),
  session_close: { ...envelope('session_close'), reason: 'done' },
  manifest_request: envelope('manifest_request'),
  tool_call: { ...envelope('tool_call'), call_id: 'c1', tool: 'move_to', input: { x: 1, y: 2 } },
  tool_result: { ...envelope('tool_result'), call_id: 'c1', ok: true, output: { arrived: true }, meta: { tick: 3, latency_ms: 12, source: 'bridge' } },
  event: { ...envelope('event'), topic: 'collision', payload: { a: 'hero', b: 'wall' }, meta: { tick: 4 } },
  error: { ...envelope('error'), error: { code: 'invalid_input', message: 'bad', retryable: false } },
  heartbeat: envelope('heartbeat'),
};

const SENT_BY: Record<MessageType, readonly Sender[]> = {
  session_init: ['bridge'],
  tool_result: ['bridge'],
  event: ['bridge'],
  error: ['bridge'],
  session_resume: ['agent'],
  manifest_request: ['agent'],
  tool_call: ['agent'],
  session_close: ['agent', 'bridge'],
  heartbeat: ['agent', 'bridge'],
};

const proper = Object.entries(SENT_BY).flatMap(([type, senders]) => senders.map((sender) => [type as MessageType, sender] as const));
const wrong = Object.entries(SENT_BY).flatMap(([type, senders]) =>
  (['agent', 'bridge'] as const).filter((sender) => !senders.includes(sender)).map((sender) => [type as MessageType, sender] as const),
);

describe('checkMessage', () => {
  it.each(proper)('accepts a valid %s from the %s, handing back the same object', (type, sender) => {
    const message = EXAMPLES[type];
    const verdict = checkMessage(message, sender);
    expect(verdict).toEqual({ ok: true, value: message });
    expect(verdict.ok && verdict.value).toBe(message);
  });

  it.each(wrong)("refuses a %s from the %s as 'wrong_direction'", (type, sender) => {
    const other = sender === 'agent' ? 'bridge' : 'agent';
    expect(checkMessage(EXAMPLES[type], sender)).toEqual({
      ok: false,
      kind: 'wrong_direction',
      message: `${type} is sent by the ${other}, not the ${sender}`,
    });
  });

  it('covers all nine message types, each both ways', () => {
    expect(Object.keys(EXAMPLES)).toHaveLength(9);
    expect(proper.length + wrong.length).toBe(18);
  });

  it("refuses another protocol version as 'protocol_mismatch'", () => {
    expect(checkMessage({ ...EXAMPLES.tool_call, protocol: 'aicc/0.2' }, 'agent')).toEqual({
      ok: false,
      kind: 'protocol_mismatch',
      message: 'protocol must be "aicc/0.1", got "aicc/0.2"',
    });
  });

  it("refuses a missing protocol as 'protocol_mismatch', reporting null", () => {
    const { protocol: _protocol, ...rest } = EXAMPLES.heartbeat;
    expect(checkMessage(rest, 'agent')).toEqual({ ok: false, kind: 'protocol_mismatch', message: 'protocol must be "aicc/0.1", got null' });
  });

  it('checks the protocol before the schema: a wrong protocol and a missing field is still protocol_mismatch', () => {
    const { call_id: _callId, ...rest } = EXAMPLES.tool_call;
    expect(checkMessage({ ...rest, protocol: 'aicc/9' }, 'agent')).toMatchObject({ ok: false, kind: 'protocol_mismatch' });
  });

  it('checks the protocol before the direction', () => {
    expect(checkMessage({ ...EXAMPLES.session_init, protocol: 'x' }, 'agent')).toMatchObject({ ok: false, kind: 'protocol_mismatch' });
  });

  it('cuts a long wrong protocol short in the message', () => {
    const verdict = checkMessage({ ...EXAMPLES.heartbeat, protocol: 'p'.repeat(500) }, 'agent');
    expect(verdict).toEqual({ ok: false, kind: 'protocol_mismatch', message: `protocol must be "aicc/0.1", got "${'p'.repeat(39)}` });
  });

  it.each([null, 42, 'text', true, [EXAMPLES.heartbeat], undefined])("refuses %j, which is not an object, as 'schema_violation'", (value) => {
    expect(checkMessage(value, 'agent')).toEqual({ ok: false, kind: 'schema_violation', message: 'message must be a JSON object' });
  });

  it("refuses an unknown type as 'schema_violation'", () => {
    expect(checkMessage({ ...EXAMPLES.heartbeat, type: 'hello' }, 'agent')).toEqual({
      ok: false,
      kind: 'schema_violation',
      message: 'type "hello" is not an aicc/0.1 message type',
    });
  });

  it('refuses a missing type', () => {
    const { type: _type, ...rest } = EXAMPLES.heartbeat;
    expect(checkMessage(rest, 'agent')).toEqual({ ok: false, kind: 'schema_violation', message: 'type null is not an aicc/0.1 message type' });
  });

  it('refuses type names inherited from Object.prototype', () => {
    for (const type of ['toString', 'constructor', 'hasOwnProperty', '__proto__']) {
      expect(checkMessage({ ...EXAMPLES.heartbeat, type }, 'agent')).toEqual({
        ok: false,
        kind: 'schema_violation',
        message: `type ${JSON.stringify(type)} is not an aicc/0.1 message type`,
      });
    }
  });

  it('refuses a missing required field, naming it', () => {
    const { call_id: _callId, ...rest } = EXAMPLES.tool_call;
    expect(checkMessage(rest, 'agent')).toEqual({ ok: false, kind: 'schema_violation', message: 'tool_call.call_id is required' });
  });

  it('refuses a missing envelope field, naming it', () => {
    const { session_id: _sessionId, ...rest } = EXAMPLES.event;
    expect(checkMessage(rest, 'bridge')).toEqual({ ok: false, kind: 'schema_violation', message: 'event.session_id is required' });
  });

  it('refuses an extra field, naming it', () => {
    expect(checkMessage({ ...EXAMPLES.tool_call, extra: 1 }, 'agent')).toEqual({
      ok: false,
      kind: 'schema_violation',
      message: 'tool_call.extra is not a declared field',
    });
  });

  it('refuses a field of the wrong type, naming the path', () => {
    expect(checkMessage({ ...EXAMPLES.tool_call, input: [] }, 'agent')).toEqual({
      ok: false,
      kind: 'schema_violation',
      message: 'tool_call.input must be object',
    });
  });

  it('refuses a nested field, naming its full path', () => {
    const bad = { ...EXAMPLES.error, error: { code: 'oops', message: 'bad', retryable: false } };
    expect(checkMessage(bad, 'bridge')).toEqual({
      ok: false,
      kind: 'schema_violation',
      message:
        'error.error.code must be one of ["protocol_mismatch","session_expired","tool_unknown","tool_unavailable","invalid_input","execution_failed","timeout","internal_error"]',
    });
  });

  it('refuses a session_id that is not a UUID', () => {
    expect(checkMessage({ ...EXAMPLES.heartbeat, session_id: 'not-a-uuid' }, 'agent')).toEqual({
      ok: false,
      kind: 'schema_violation',
      message: 'heartbeat.session_id must match format "uuid"',
    });
  });

  // ajv-formats' uuid: any case, an optional urn:uuid: prefix, nothing after the last digit.
  it.each([SESSION.toUpperCase(), `urn:uuid:${SESSION}`, `URN:UUID:${SESSION.toUpperCase()}`])("accepts the id %s, as the schema's uuid format does", (id) => {
    expect(checkMessage({ ...EXAMPLES.heartbeat, session_id: id, message_id: id }, 'agent').ok).toBe(true);
  });

  it.each([
    `${SESSION}\n`,
    SESSION.slice(1),
    `${SESSION}0`,
    SESSION.replaceAll('-', ''),
    `urn:uuid${SESSION}`,
    `uuid:${SESSION}`,
    SESSION.replace('5', 'g'),
    SESSION.replace('5', 'ａ'),
  ])('refuses the message_id %j', (id) => {
    expect(checkMessage({ ...EXAMPLES.tool_call, message_id: id }, 'agent')).toEqual({
      ok: false,
      kind: 'schema_violation',
      message: 'tool_call.message_id must match format "uuid"',
    });
  });

  it('checks every message_id whole, whatever the ids that passed before it share with it', () => {
    const prefix = '5d1c9a0e-72b4-8a31-9c4e-';
    expect(checkMessage({ ...EXAMPLES.tool_call, message_id: `${prefix}000000000001` }, 'agent').ok).toBe(true);
    for (const tail of ['00000000000g', '0000000000', '0000000000001', '00000000000-', '00000000000Ａ']) {
      expect(checkMessage({ ...EXAMPLES.tool_call, message_id: `${prefix}${tail}` }, 'agent'), tail).toEqual({
        ok: false,
        kind: 'schema_violation',
        message: 'tool_call.message_id must match format "uuid"',
      });
    }
    expect(checkMessage({ ...EXAMPLES.tool_call, message_id: `${prefix}00000000ABCD` }, 'agent').ok).toBe(true);
    expect(checkMessage({ ...EXAMPLES.tool_call, message_id: `urn:uuid:${prefix}000000000002` }, 'agent').ok).toBe(true);
  });

  it("checks required fields, then undeclared ones, then each field in the schema's order", () => {
    const { call_id: _callId, ...noCallId } = EXAMPLES.tool_call;
    expect(checkMessage({ ...noCallId, extra: 1, session_id: 'x' }, 'agent')).toMatchObject({ message: 'tool_call.call_id is required' });
    expect(checkMessage({ ...EXAMPLES.tool_call, extra: 1, session_id: 'x' }, 'agent')).toMatchObject({ message: 'tool_call.extra is not a declared field' });
    expect(checkMessage({ ...EXAMPLES.tool_call, tool: 'X', session_id: 'x' }, 'agent')).toMatchObject({
      message: 'tool_call.session_id must match format "uuid"',
    });
  });

  it('refuses a meta number that is not a whole count, naming it', () => {
    expect(checkMessage({ ...EXAMPLES.event, meta: { tick: 1.5 } }, 'bridge')).toMatchObject({ message: 'event.meta.tick must be integer' });
    expect(checkMessage({ ...EXAMPLES.tool_result, meta: { latency_ms: -1 } }, 'bridge')).toMatchObject({
      message: 'tool_result.meta.latency_ms must be >= 0',
    });
  });

  it('refuses an empty call_id', () => {
    expect(checkMessage({ ...EXAMPLES.tool_call, call_id: '' }, 'agent')).toMatchObject({ ok: false, kind: 'schema_violation' });
  });

  it('refuses a tool id that is not snake_case', () => {
    expect(checkMessage({ ...EXAMPLES.tool_call, tool: 'MoveTo' }, 'agent')).toEqual({
      ok: false,
      kind: 'schema_violation',
      message: 'tool_call.tool must match pattern "^[a-z][a-z0-9_]*$"',
    });
  });

  it('accepts a tool_result that failed, with its error', () => {
    const failed = { ...envelope('tool_result'), call_id: 'c1', ok: false, error: { code: 'timeout', message: 'slow', retryable: true } };
    expect(checkMessage(failed, 'bridge')).toEqual({ ok: true, value: failed });
  });

  describe('heartbeat.manifest_update', () => {
    it.each(['agent', 'bridge'] as const)('accepts a valid manifest_update from the %s', (sender) => {
      const heartbeat = { ...envelope('heartbeat'), manifest_update: manifestUpdate };
      expect(checkMessage(heartbeat, sender)).toEqual({ ok: true, value: heartbeat });
    });

    it('from an agent, checks only what the bridge reads: agent_model and event_subscriptions', () => {
      const heartbeat = (update: unknown) => ({ ...envelope('heartbeat'), manifest_update: update });
      expect(checkMessage(heartbeat({ agent_model: { class: 'edge_small' }, event_subscriptions: ['audio'] }), 'agent').ok).toBe(true);
      expect(checkMessage(heartbeat({ agent_model: { class: 'tiny' } }), 'agent')).toEqual({
        ok: false,
        kind: 'schema_violation',
        message: 'heartbeat.manifest_update.agent_model.class must be one of ["edge_small","edge_medium","cloud_medium","cloud_large"]',
      });
      expect(checkMessage(heartbeat({ event_subscriptions: ['audio'] }), 'agent')).toMatchObject({
        ok: false,
        message: 'heartbeat.manifest_update.agent_model is required',
      });
      expect(checkMessage(heartbeat({ agent_model: { class: 'edge_small' }, event_subscriptions: [1] }), 'agent')).toMatchObject({
        ok: false,
        message: 'heartbeat.manifest_update.event_subscriptions must be an array of strings',
      });
    });

    it('accepts a minimal manifest_update with no tools', () => {
      const update = {
        protocol: 'aicc/0.1',
        type: 'session_init',
        tick_rate_hz: 1,
        tick_mode: 'event',
        world: { name: 'w', kind: 'abstract' },
        capabilities: { sensors: [], actuators: [], generators: [] },
        tools: [],
        agent_model: { class: 'edge_small' },
      };
      expect(checkMessage({ ...envelope('heartbeat'), manifest_update: update }, 'agent').ok).toBe(true);
    });

    it('refuses a manifest_update missing a field, naming heartbeat.manifest_update.<field>', () => {
      const { tick_mode: _tickMode, ...update } = manifestUpdate;
      expect(checkMessage({ ...envelope('heartbeat'), manifest_update: update }, 'bridge')).toEqual({
        ok: false,
        kind: 'schema_violation',
        message: 'heartbeat.manifest_update.tick_mode is required',
      });
    });

    it('refuses a manifest_update with a bad nested value, naming its full path', () => {
      const update = { ...manifestUpdate, world: { name: 'w', kind: '4d' } };
      expect(checkMessage({ ...envelope('heartbeat'), manifest_update: update }, 'bridge')).toEqual({
        ok: false,
        kind: 'schema_violation',
        message: 'heartbeat.manifest_update.world.kind must be one of ["2d","3d","text","abstract"]',
      });
    });

    it('refuses a manifest_update with a bad tool, naming the tool by index', () => {
      const update = { ...manifestUpdate, tools: [{ ...manifest.tools[0], id: 'Bad Id' }] };
      expect(checkMessage({ ...envelope('heartbeat'), manifest_update: update }, 'bridge')).toEqual({
        ok: false,
        kind: 'schema_violation',
        message: 'heartbeat.manifest_update.tools[0].id must match pattern "^[a-z][a-z0-9_]*$"',
      });
    });

    it('refuses a manifest_update whose type is not session_init', () => {
      const update = { ...manifestUpdate, type: 'heartbeat' };
      expect(checkMessage({ ...envelope('heartbeat'), manifest_update: update }, 'bridge')).toEqual({
        ok: false,
        kind: 'schema_violation',
        message: 'heartbeat.manifest_update.type must be "session_init"',
      });
    });

    it('refuses a manifest_update without protocol and type (the bare manifest)', () => {
      expect(checkMessage({ ...envelope('heartbeat'), manifest_update: manifest }, 'bridge')).toEqual({
        ok: false,
        kind: 'schema_violation',
        message: 'heartbeat.manifest_update.protocol is required',
      });
    });

    it('refuses a manifest_update with an extra field', () => {
      const update = { ...manifestUpdate, colour: 'red' };
      expect(checkMessage({ ...envelope('heartbeat'), manifest_update: update }, 'bridge')).toEqual({
        ok: false,
        kind: 'schema_violation',
        message: 'heartbeat.manifest_update.colour is not a declared field',
      });
    });

    it('refuses a manifest_update that carries session_id', () => {
      const update = { ...manifestUpdate, session_id: SESSION };
      expect(checkMessage({ ...envelope('heartbeat'), manifest_update: update }, 'bridge')).toEqual({
        ok: false,
        kind: 'schema_violation',
        message: 'heartbeat.manifest_update must not carry session_id or message_id',
      });
    });

    it('refuses a manifest_update that carries message_id', () => {
      const update = { ...manifestUpdate, message_id: MESSAGE };
      expect(checkMessage({ ...envelope('heartbeat'), manifest_update: update }, 'bridge')).toMatchObject({
        ok: false,
        kind: 'schema_violation',
        message: 'heartbeat.manifest_update must not carry session_id or message_id',
      });
    });

    it('refuses a manifest_update that is not an object', () => {
      expect(checkMessage({ ...envelope('heartbeat'), manifest_update: [] }, 'agent')).toEqual({
        ok: false,
        kind: 'schema_violation',
        message: 'heartbeat.manifest_update must be object',
      });
    });
  });
});
