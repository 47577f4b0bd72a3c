import { describe, expect, it } from 'vitest';
import type { ConnectOptions } from '../../src/runtime/options.js';
import { connectRaw, echoTool, makeCapsule, settle } from '../helpers.js';

/** Every bad frame gets an answer and the link stays up: a good call afterwards still works. */
async function expectRefusedAndAlive(frame: string | Uint8Array, code: string, message: RegExp, connect: Partial<ConnectOptions> = {}): Promise<void> {
  const { capsule } = makeCapsule();
  capsule.registerTool(echoTool);
  const peer = await connectRaw(capsule, connect);
  peer.sendFrame(frame);
  await settle();
  expect(peer.last()).toMatchObject({ error: { code, retryable: false } });
  const last = peer.last()!;
  expect('error' in last && last.error?.message).toMatch(message);
  peer.send({ type: 'tool_call', call_id: 'after', tool: 'echo', input: { text: 'still up' } });
  await settle();
  expect(peer.last()).toMatchObject({ type: 'tool_result', call_id: 'after', ok: true });
  expect(peer.closedWith).toBeUndefined();
}

describe('malformed frames', () => {
  it('not JSON', () => expectRefusedAndAlive('{"protocol": "aicc/0.1", ', 'invalid_input', /not JSON/));

  it('not an object', () => expectRefusedAndAlive('[1,2,3]', 'invalid_input', /must be a JSON object/));

  it('oversized', () =>
    expectRefusedAndAlive(JSON.stringify({ pad: 'x'.repeat(2000) }), 'invalid_input', /^frame exceeds 1024 bytes$/, { limits: { maxFrameBytes: 1024 } }));

  it('too deep', () => {
    const deep = `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`;
    return expectRefusedAndAlive(deep, 'invalid_input', /deeper than 32/);
  });

  it('hostile __proto__ key', async () => {
    await expectRefusedAndAlive('{"protocol":"aicc/0.1","type":"manifest_request","__proto__":{"polluted":true}}', 'invalid_input', /__proto__/);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('hostile constructor.prototype key', () =>
    expectRefusedAndAlive('{"input":{"constructor":{"prototype":{"polluted":true}}}}', 'invalid_input', /constructor\.prototype/));

  it('wrong protocol', () => expectRefusedAndAlive('{"protocol":"aicc/9.9","type":"manifest_request"}', 'protocol_mismatch', /protocol must be "aicc\/0.1"/));

  it('unknown message type', () => expectRefusedAndAlive('{"protocol":"aicc/0.1","type":"teleport"}', 'invalid_input', /not an aicc\/0.1 message type/));

  it('a message only the bridge may send', async () => {
    const { capsule } = makeCapsule();
    const peer = await connectRaw(capsule);
    peer.send({ type: 'event', topic: 'tick', payload: {} });
    await settle();
    expect(peer.last()).toMatchObject({ type: 'error', error: { code: 'invalid_input', message: 'event is sent by the bridge, not the agent' } });
  });

  it('a tool_call missing its tool is answered as a failed call naming the field', async () => {
    const { capsule } = makeCapsule();
    const peer = await connectRaw(capsule);
    peer.send({ type: 'tool_call', call_id: 'c1', input: {} });
    await settle();
    expect(peer.last()).toMatchObject({
      type: 'tool_result',
      call_id: 'c1',
      ok: false,
      error: { code: 'invalid_input', message: 'tool_call.tool is required' },
    });
  });

  it('binary garbage on a JSON link', () => expectRefusedAndAlive(new Uint8Array([0xff, 0xfe, 0x00]), 'invalid_input', /not valid UTF-8/));

  it('quotes peer-supplied names only briefly: refusals stay short however long the name', async () => {
    const { capsule } = makeCapsule();
    capsule.registerTool({ ...echoTool, strict_input: true });
    const peer = await connectRaw(capsule);
    const long = 'a'.repeat(100_000);
    peer.send({ type: 'tool_call', call_id: 'c1', tool: long, input: {} });
    peer.send({ type: 'tool_call', call_id: 'c2', tool: 'echo', input: { text: 'x', [long]: 1 } });
    peer.send({ type: 'manifest_request', [long]: 1 });
    await settle();
    const messages = peer.received.slice(1).map((m) => ('error' in m && m.error ? m.error.message : ''));
    expect(messages).toHaveLength(3);
    for (const message of messages) expect(message.length).toBeLessThanOrEqual(512);
    expect(messages[0]).toBe(`no tool "${'a'.repeat(63)}…" in this world's tool catalog now`);
    expect(messages[1]).toBe(`echo: input.${'a'.repeat(63)}… is not a declared field`);
    expect(messages[2]).toMatch(/^manifest_request\.a+… is not a declared field$/);
  });

  it('a flood of bad frames neither throws nor stops the tick loop', async () => {
    const { capsule } = makeCapsule({ tickMode: 'fixed' });
    capsule.registerTool(echoTool);
    const peer = await connectRaw(capsule);
    const junk = ['', 'null', '{}', '{"protocol":"aicc/0.1"}', '{"protocol":"aicc/0.1","type":"tool_call","call_id":""}', '\u0000', `{"a":${'['.repeat(5000)}`];
    for (let i = 0; i < 200; i++) peer.sendFrame(junk[i % junk.length]!);
    await settle();
    capsule.step(100);
    expect(capsule.tick).toBe(1);
    expect(peer.ofType('error')).toHaveLength(200);
  });
});

describe('arbitrary frames (property)', () => {
  it('every frame, however odd, is answered or served and never stops the capsule', async () => {
    const fc = await import('fast-check');
    const { capsule } = makeCapsule({ tickMode: 'fixed' });
    capsule.registerTool(echoTool);
    const peer = await connectRaw(capsule);
    const sessionId = peer.sessionId;
    // Near-valid messages find deeper paths than random text does.
    const nearValid = fc
      .record(
        {
          protocol: fc.constantFrom('aicc/0.1', 'aicc/0.2', 1),
          type: fc.constantFrom('tool_call', 'heartbeat', 'manifest_request', 'session_resume', 'session_close', 'event', 'nope'),
          session_id: fc.constantFrom(sessionId, 'not-a-uuid'),
          message_id: fc.uuid(),
          call_id: fc.string(),
          tool: fc.constantFrom('echo', 'Echo', 'missing'),
          input: fc.jsonValue(),
        },
        { requiredKeys: ['protocol', 'type'] },
      )
      .map((m) => JSON.stringify(m));
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.json(), nearValid), async (frame) => {
        if (frame.includes('"session_close"') && frame.includes(sessionId) && frame.includes('"aicc/0.1"')) return; // would end the session
        const before = peer.received.length;
        peer.sendFrame(frame);
        sent++;
        await settle();
        capsule.step(100);
        await settle();
        expect(peer.closedWith).toBeUndefined();
        // A well-formed heartbeat needs no answer; every other frame gets at least one message.
        if (!isBareHeartbeat(frame, sessionId)) expect(peer.received.length).toBeGreaterThan(before);
      }),
      { numRuns: 300, seed: 42 },
    );
    expect(capsule.tick).toBe(sent);
  });
});

function isBareHeartbeat(frame: string, sessionId: string): boolean {
  try {
    const m = JSON.parse(frame);
    const keys = Object.keys(m).sort().join();
    return m.protocol === 'aicc/0.1' && m.type === 'heartbeat' && m.session_id === sessionId && keys === 'message_id,protocol,session_id,type';
  } catch {
    return false;
  }
}

describe('batched framing (WireOptions.framing)', () => {
  it('checks each message of a batched frame as if it came alone, and bounds the batch', async () => {
    const { MAX_BATCH_MESSAGES, batchedFraming } = await import('../../src/protocol/batchedFraming.js');
    const { capsule } = makeCapsule();
    capsule.registerTool(echoTool);
    const peer = await connectRaw(capsule, { framing: batchedFraming });
    const call = (id: string, input: unknown) => ({
      protocol: 'aicc/0.1',
      type: 'tool_call',
      session_id: peer.sessionId,
      message_id: '6f9619ff-8b86-4d11-b42d-00c04fc964ff',
      call_id: id,
      tool: 'echo',
      input,
    });
    peer.sendFrame(JSON.stringify([call('a', { text: 'one' }), { protocol: 'aicc/0.1', type: 'teleport' }, call('b', { text: 'two' })]));
    peer.sendFrame(JSON.stringify(Array.from({ length: MAX_BATCH_MESSAGES + 1 }, (_, i) => call(`x${i}`, { text: 'x' }))));
    peer.sendFrame('[]');
    await settle();
    const answers = peer.received
      .slice(1)
      .map((m) => (m.type === 'tool_result' ? `${m.call_id} ${m.ok}` : m.type === 'error' ? `error ${m.error.message}` : m.type));
    expect(answers).toEqual([
      'a true',
      'error type "teleport" is not an aicc/0.1 message type',
      'b true',
      `error a batched frame carries 1 to ${MAX_BATCH_MESSAGES} messages, not ${MAX_BATCH_MESSAGES + 1}`,
      `error a batched frame carries 1 to ${MAX_BATCH_MESSAGES} messages, not 0`,
    ]);
  });

  it('refuses an array on a single-message link, as before', () =>
    expectRefusedAndAlive(JSON.stringify([{ protocol: 'aicc/0.1', type: 'heartbeat' }]), 'invalid_input', /must be a JSON object/));

  it('takes batched framing only with jsonCodec or objectCodec', async () => {
    const { binaryCodec } = await import('../../src/protocol/binaryCodec.js');
    const { batchedFraming } = await import('../../src/protocol/batchedFraming.js');
    const { createMemoryLinkPair } = await import('../../src/links/memory.js');
    const { capsule } = makeCapsule();
    expect(() => capsule.connect(createMemoryLinkPair()[0], { character: 'x', codec: binaryCodec, framing: batchedFraming })).toThrow(
      /framing 'batched' frames json or object frames: use such a codec, not binary/,
    );
    expect(capsule.sessions()).toEqual([]); // nothing half-made is left listed
  });
});
