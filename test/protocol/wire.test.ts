import { describe, expect, it } from 'vitest';
import { createMemoryLinkPair } from '../../src/links/memory.js';
import { batchedFraming } from '../../src/protocol/batchedFraming.js';
import { binaryCodec } from '../../src/protocol/binaryCodec.js';
import { jsonCodec, type Codec, type Frame } from '../../src/protocol/codec.js';
import type { InboundLimits } from '../../src/protocol/inbound.js';
import { checkAgentMessage } from '../../src/protocol/messageCheck.js';
import { PROTOCOL, type ToolCall } from '../../src/protocol/messages.js';
import { objectCodec } from '../../src/protocol/objectCodec.js';
import { frameBounds, Wire, type InvalidFrame } from '../../src/protocol/wire.js';
import { connectRaw, echoTool, makeCapsule, settle } from '../helpers.js';

const SESSION = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
const MESSAGE = '5d1c9a0e-72b4-8a31-9c4e-000000000001';
const LIMITS: InboundLimits = { maxFrameBytes: 512, maxDepth: 6 };

const toolCall = (callId: string, input: ToolCall['input']): ToolCall => ({
  protocol: PROTOCOL,
  type: 'tool_call',
  session_id: SESSION,
  message_id: MESSAGE,
  call_id: callId,
  tool: 'say',
  input,
});

/** `depth` objects nested in one another. */
const nested = (depth: number): ToolCall['input'] => {
  let value: ToolCall['input'] = {};
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};

/** What a bridge's Wire reports of each frame it refuses. */
async function refusals(codec: Codec, frames: Frame[]): Promise<InvalidFrame[]> {
  const [agentEnd, bridgeEnd] = createMemoryLinkPair();
  const problems: InvalidFrame[] = [];
  new Wire(bridgeEnd, checkAgentMessage, { codec, limits: LIMITS }).listen({
    message: () => {},
    invalid: (problem) => problems.push(problem),
    ended: () => {},
  });
  for (const frame of frames) agentEnd.send(frame);
  await settle();
  return problems;
}

describe('Wire: the call a refused frame is about', () => {
  it('reads it from a JSON frame refused at the first gate (too large, too deep, hostile, not JSON) and from one the schema refused', async () => {
    const problems = await refusals(jsonCodec, [
      JSON.stringify(toolCall('big', { text: 'x'.repeat(600) })),
      JSON.stringify(toolCall('deep', nested(5))),
      JSON.stringify(toolCall('hostile', JSON.parse('{"__proto__":{"polluted":true}}'))),
      JSON.stringify(toolCall('cut', {})).slice(0, -5),
      new TextEncoder().encode(JSON.stringify(toolCall('bytes', { text: 'x'.repeat(600) }))),
      JSON.stringify({ ...toolCall('schema', {}), tool: 'Not A Tool' }),
      JSON.stringify({ pad: 'x'.repeat(600) }),
    ]);
    expect(problems.map((p) => [p.kind, p.call?.callId])).toEqual([
      ['oversized_frame', 'big'],
      ['too_deep', 'deep'],
      ['forbidden_key', 'hostile'],
      ['malformed_frame', 'cut'],
      ['oversized_frame', 'bytes'],
      ['schema_violation', 'schema'],
      ['oversized_frame', undefined],
    ]);
    expect(problems[0]!.call).toEqual({ type: 'tool_call', callId: 'big', sessionId: SESSION });
  });

  it('reads it from binary frames and from message objects', async () => {
    const binary = await refusals(binaryCodec, [
      binaryCodec.encode(toolCall('big', { text: 'x'.repeat(600) })) as Uint8Array,
      binaryCodec.encode(toolCall('deep', nested(5))) as Uint8Array,
      (binaryCodec.encode(toolCall('cut', {})) as Uint8Array).slice(0, -1),
    ]);
    expect(binary.map((p) => [p.kind, p.call?.callId])).toEqual([
      ['oversized_frame', 'big'],
      ['too_deep', 'deep'],
      ['malformed_frame', 'cut'],
    ]);
    const objects = await refusals(objectCodec, [toolCall('deep', nested(5)), toolCall('hostile', JSON.parse('{"a":{"__proto__":1}}'))]);
    expect(objects.map((p) => [p.kind, p.call?.callId])).toEqual([
      ['too_deep', 'deep'],
      ['forbidden_key', 'hostile'],
    ]);
  });

  it('encodes a message for the other end’s bounds, or gives the refusal that end would give', () => {
    const [end] = createMemoryLinkPair();
    const wire = new Wire(end, checkAgentMessage);
    const bounds = frameBounds(LIMITS, undefined);
    const sent = wire.encodeWithin(toolCall('c1', { text: 'hi' }), bounds);
    expect(sent).toEqual({ ok: true, value: JSON.stringify(toolCall('c1', { text: 'hi' })) });
    expect(wire.encodeWithin(toolCall('c1', { text: 'x'.repeat(600) }), bounds)).toEqual({
      ok: false,
      kind: 'oversized_frame',
      message: 'frame exceeds 512 bytes',
    });
    expect(wire.encodeWithin(toolCall('c1', nested(5)), bounds)).toMatchObject({ ok: false, kind: 'too_deep' });
    expect(wire.encodeWithin(toolCall('c1', nested(5)), frameBounds(LIMITS, batchedFraming))).toMatchObject({ ok: true });
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(wire.encodeWithin(toolCall('c1', cyclic as ToolCall['input']), bounds)).toMatchObject({
      ok: false,
      kind: 'malformed_frame',
      message: /json codec cannot encode it/,
    });
  });
});

describe('the capsule answers a tool_call it refuses at the wire', () => {
  it('with a failed tool_result for the call_id it still finds, and with `error` when it finds none', async () => {
    const { capsule } = makeCapsule();
    capsule.registerTool(echoTool);
    const peer = await connectRaw(capsule, { limits: LIMITS });
    const call = (callId: string, input: unknown) => JSON.stringify({ ...toolCall(callId, {}), session_id: peer.sessionId, tool: 'echo', input });
    peer.sendFrame(call('big', { text: 'x'.repeat(600) }));
    peer.sendFrame(call('deep', nested(5)));
    peer.sendFrame(call('hostile', JSON.parse('{"text":"x","__proto__":{"polluted":true}}')));
    peer.sendFrame(call('cut', { text: 'x' }).slice(0, -3));
    const { input: _input, ...rest } = toolCall('late', {});
    peer.sendFrame(JSON.stringify({ input: { text: 'x'.repeat(5000) }, ...rest, session_id: peer.sessionId })); // its call_id past the peek
    await settle();
    const answers = peer.received.slice(1).map((m) => (m.type === 'tool_result' ? [m.call_id, m.ok, m.error?.message, m.meta?.source] : [m.type]));
    expect(answers).toEqual([
      ['big', false, 'frame exceeds 512 bytes', 'bridge'],
      ['deep', false, 'message nests deeper than 6 levels', 'bridge'],
      ['hostile', false, 'message contains a "__proto__" key', 'bridge'],
      ['cut', false, 'frame is not JSON', 'bridge'],
      ['error'],
    ]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(capsule.session(peer.sessionId)?.stats.refusals).toBe(5);
  });
});
