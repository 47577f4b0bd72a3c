// Level 1, the wire and the manifest: what a bridge sends is aicc/0.1, and what it is sent that is
// not — malformed, oversized, too deep, hostile, from the wrong side, for another session — gets
// the refusal docs/PROTOCOL.md gives it, and leaves the link up.

import { sequenceOfId } from '../protocol/ids.js';
import type { ErrorCode } from '../protocol/messages.js';
import type { RawAgent } from './agent.js';
import { CheckFailure, type Check, type CheckContext } from './check.js';

const OTHER_SESSION = '6f9619ff-8b86-4d11-b42d-00c04fc964ff';

/** Sends `frame`, expects an `error` (or a failed tool_result) with `code`, and the link still up. */
async function refusedFrame(
  context: CheckContext,
  agent: RawAgent,
  frame: string | Uint8Array | Record<string, unknown>,
  code: ErrorCode,
  what: string,
): Promise<void> {
  const from = agent.received.length;
  if (typeof frame === 'string' || frame instanceof Uint8Array) agent.sendFrame(frame);
  else agent.send(frame);
  const answer = await agent.next(from, (m) => m.type === 'error' || (m.type === 'tool_result' && !m.ok));
  if (answer === undefined) throw new CheckFailure(`${what}: no refusal within ${agent.waitMs} ms (expected ${code})`);
  const error = answer.type === 'error' ? answer.error : answer.type === 'tool_result' ? answer.error : undefined;
  context.expect(error?.code === code, `${what}: refused with ${error?.code}, expected ${code}`);
  context.expect(error?.retryable === false, `${what}: refused as retryable; a malformed message cannot succeed on retry`);
  context.expect(
    agent.closedWith === undefined && (await agent.fence()),
    `${what}: the link did not stay up (closed: ${agent.closedWith ?? 'no'}; a manifest_request after it went unanswered)`,
  );
}

const malformed = (
  id: string,
  title: string,
  frame: (context: CheckContext, agent: RawAgent) => string | Uint8Array | Record<string, unknown>,
  code: ErrorCode = 'invalid_input',
): Check => ({
  level: 1,
  id: `L1.${id}`,
  title,
  async run(context) {
    const { agent } = await context.open();
    await refusedFrame(context, agent, frame(context, agent), code, title);
  },
});

export const WIRE_CHECKS: readonly Check[] = [
  {
    level: 1,
    id: 'L1.session_init',
    title: 'a session starts with a schema-valid session_init whose tools are all well formed',
    async run(context) {
      const { agent, manifest } = await context.open();
      context.expect(agent.invalid.length === 0, `invalid frames from the bridge: ${agent.invalid.join('; ')}`);
      context.expect(['fixed', 'event', 'hybrid'].includes(manifest.tick_mode), `tick_mode ${manifest.tick_mode}`);
      const ids = manifest.tools.map((tool) => tool.id);
      context.expect(new Set(ids).size === ids.length, `tool ids repeat in the manifest: ${ids.join(', ')}`);
    },
  },
  {
    level: 1,
    id: 'L1.manifest_request',
    title: 'manifest_request is answered by a heartbeat carrying the manifest (manifest_update)',
    async run(context) {
      const { agent, manifest } = await context.open();
      const from = agent.received.length;
      agent.send({ type: 'manifest_request' });
      const answer = await agent.next(from, (m) => m.type === 'heartbeat' && m.manifest_update !== undefined);
      context.expect(answer !== undefined, 'no heartbeat with manifest_update within 2 s');
      const update = (answer as { manifest_update: { tools: Array<{ id: string }> } }).manifest_update;
      context.expect(
        JSON.stringify(update.tools.map((t) => t.id)) === JSON.stringify(manifest.tools.map((t) => t.id)),
        'the manifest_update lists other tools than session_init',
      );
    },
  },
  {
    level: 1,
    id: 'L1.heartbeat',
    title: 'a bare heartbeat from the agent needs no answer and changes nothing',
    async run(context) {
      const { agent } = await context.open();
      const from = agent.received.length;
      agent.send({ type: 'heartbeat' });
      context.expect(await agent.fence(), 'the link did not stay up after a heartbeat');
      const answers = agent.received.slice(from).filter((m) => m.type === 'error' || m.type === 'tool_result');
      context.expect(answers.length === 0, `a heartbeat was answered with ${answers.map((m) => m.type).join(', ')}`);
    },
  },
  {
    level: 1,
    id: 'L1.ids',
    title: "the bridge's message_ids are unique, and sequenced (one prefix, counting up) as PROTOCOL.md decides",
    async run(context) {
      const { agent } = await context.open();
      for (let i = 0; i < 5; i++) await agent.fence();
      const ids = agent.received.map((m) => m.message_id);
      context.expect(new Set(ids).size === ids.length, 'a message_id repeats');
      const prefixes = new Set(ids.map((id) => id.slice(0, -12)));
      context.expect(prefixes.size === 1, `${prefixes.size} id prefixes in one session`);
      const sequences = ids.map(sequenceOfId);
      context.expect(
        sequences.every((n, i) => i === 0 || n > sequences[i - 1]!),
        `sequences do not count up: ${sequences.join(', ')}`,
      );
    },
  },
  malformed('not_json', 'a frame that is not JSON is refused invalid_input', () => '{"protocol": "aicc/0.1", '),
  malformed('not_object', 'a JSON frame that is not an object is refused invalid_input', () => '[1,2,3]'),
  malformed('not_utf8', 'bytes that are not UTF-8 are refused invalid_input', (context) =>
    context.bridge.codec?.name === 'binary' ? new Uint8Array([0xff, 0xfe, 0x00, 0x01]) : new Uint8Array([0xff, 0xfe, 0x00]),
  ),
  malformed('oversized', 'a frame over the size bound (here 8 MiB) is refused invalid_input', (_c, agent) =>
    JSON.stringify({ protocol: 'aicc/0.1', type: 'heartbeat', session_id: agent.sessionId, message_id: OTHER_SESSION, pad: 'x'.repeat(8 * 1024 * 1024) }),
  ),
  malformed(
    'too_deep',
    'nesting 5,000 levels deep is refused invalid_input',
    (_c, agent) =>
      `{"protocol":"aicc/0.1","type":"tool_call","session_id":"${agent.sessionId}","message_id":"${OTHER_SESSION}","call_id":"deep","tool":"x","input":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`,
  ),
  malformed(
    'proto_key',
    'a "__proto__" key is refused invalid_input',
    (_c, agent) =>
      `{"protocol":"aicc/0.1","type":"manifest_request","session_id":"${agent.sessionId}","message_id":"${OTHER_SESSION}","__proto__":{"polluted":true}}`,
  ),
  malformed(
    'constructor_prototype',
    'a "constructor" holding "prototype" is refused invalid_input',
    (_c, agent) =>
      `{"protocol":"aicc/0.1","type":"tool_call","session_id":"${agent.sessionId}","message_id":"${OTHER_SESSION}","call_id":"p","tool":"x","input":{"constructor":{"prototype":{"polluted":true}}}}`,
  ),
  malformed(
    'protocol',
    'another protocol string is refused protocol_mismatch',
    () => ({ protocol: 'aicc/9.9', type: 'manifest_request' }),
    'protocol_mismatch',
  ),
  malformed('unknown_type', 'an unknown message type is refused invalid_input', () => ({ type: 'teleport' })),
  malformed('wrong_direction', 'a message only a bridge sends (tool_result) is refused invalid_input', () => ({
    type: 'tool_result',
    call_id: 'x',
    ok: true,
    output: {},
  })),
  malformed('schema', 'a tool_call missing its tool is answered as a failed call, invalid_input', () => ({ type: 'tool_call', call_id: 'no_tool', input: {} })),
  malformed(
    'other_session',
    "a message naming another session's id is refused session_expired",
    () => ({ type: 'manifest_request', session_id: OTHER_SESSION }),
    'session_expired',
  ),
  {
    level: 1,
    id: 'L1.hostile_survives',
    title: 'after a burst of 200 bad frames the session still serves a well-formed request',
    async run(context) {
      const { agent } = await context.open();
      const junk = ['', 'null', '{}', '{"protocol":"aicc/0.1"}', '\u0000', `{"a":${'['.repeat(3000)}`, 'ж'.repeat(5000)];
      for (let i = 0; i < 200; i++) agent.sendFrame(junk[i % junk.length]!);
      context.expect(await agent.fence(agent.waitMs * 2), 'no manifest after the burst');
      context.expect(agent.closedWith === undefined, `the link closed: ${agent.closedWith}`);
    },
  },
];
