import { describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/agent/agentClient.js';
import { createMemoryLinkPair } from '../../src/links/memory.js';
import { ManualClock } from '../../src/base/clock.js';
import { SequencedIds } from '../../src/protocol/ids.js';
import { PROTOCOL, type AiccMessage, type JsonObject } from '../../src/protocol/messages.js';
import { connectInProcess } from '../../src/agent/inProcess.js';
import { connectAgent, echoTool, makeCapsule, pass, settle } from '../helpers.js';

const SESSION = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';

/** A hand-driven bridge: sends sequenced messages (or any id it is told) and records what arrives. */
function scriptedBridge() {
  const [bridgeEnd, agentEnd] = createMemoryLinkPair();
  const ids = new SequencedIds();
  const received: AiccMessage[] = [];
  bridgeEnd.listen({ message: (frame) => received.push(JSON.parse(String(frame))), close: () => {} });
  const send = (sequence: number, body: JsonObject): void =>
    bridgeEnd.send(JSON.stringify({ protocol: PROTOCOL, session_id: SESSION, message_id: ids.idOf(sequence), ...body }));
  const init = (): void =>
    send(1, {
      type: 'session_init',
      tick_rate_hz: 10,
      tick_mode: 'event',
      world: { name: 'w', kind: 'text' },
      capabilities: { sensors: [], actuators: [], generators: [] },
      tools: [],
      agent_model: { class: 'edge_small' },
    });
  return { bridgeEnd, agentEnd, ids, received, send, init };
}

describe('AgentClient', () => {
  it('connects on session_init and exposes the manifest', async () => {
    const bridge = scriptedBridge();
    const connecting = AgentClient.connect(bridge.agentEnd, { clock: new ManualClock() });
    bridge.init();
    const agent = await connecting;
    expect(agent.sessionId).toBe(SESSION);
    expect(agent.manifest.world).toEqual({ name: 'w', kind: 'text' });
    expect(agent.state).toBe('open');
  });

  it('rejects connect when no session_init comes in time', async () => {
    const clock = new ManualClock();
    const bridge = scriptedBridge();
    const connecting = AgentClient.connect(bridge.agentEnd, { clock, connectTimeoutMs: 500 });
    clock.advance(500);
    await expect(connecting).rejects.toMatchObject({ code: 'AICC_NOT_CONNECTED' });
  });

  it('drops messages it already holds (replayed twice) and keeps order', async () => {
    const bridge = scriptedBridge();
    const connecting = AgentClient.connect(bridge.agentEnd, { clock: new ManualClock() });
    bridge.init();
    const agent = await connecting;
    const sounds: string[] = [];
    agent.on('audio', (a) => sounds.push(a.sound));
    const audio = (sound: string) => ({ type: 'event', topic: 'audio', payload: { source: 's', sound } });
    bridge.send(2, audio('two'));
    bridge.send(3, audio('three'));
    bridge.send(2, audio('two'));
    bridge.send(3, audio('three'));
    bridge.send(4, audio('four'));
    await settle();
    expect(sounds).toEqual(['two', 'three', 'four']);
  });

  it('resumes naming the last message it holds', async () => {
    const bridge = scriptedBridge();
    const connecting = AgentClient.connect(bridge.agentEnd, { clock: new ManualClock() });
    bridge.init();
    const agent = await connecting;
    bridge.send(2, { type: 'event', topic: 'audio', payload: { source: 's', sound: 'x' } });
    await settle();
    const [newBridgeEnd, newAgentEnd] = createMemoryLinkPair();
    const resumeFrames: AiccMessage[] = [];
    newBridgeEnd.listen({ message: (f) => resumeFrames.push(JSON.parse(String(f))), close: () => {} });
    const resumed = agent.resume(newAgentEnd);
    await settle();
    expect(resumeFrames).toMatchObject([{ type: 'session_resume', session_id: SESSION, message_id: bridge.ids.idOf(2) }]);
    newBridgeEnd.send(JSON.stringify({ protocol: PROTOCOL, type: 'heartbeat', session_id: SESSION, message_id: bridge.ids.idOf(3) }));
    await resumed;
    expect(agent.state).toBe('open');
  });

  it('times a call out locally as retryable, and ignores its late result', async () => {
    const clock = new ManualClock();
    const bridge = scriptedBridge();
    const connecting = AgentClient.connect(bridge.agentEnd, { clock, callTimeoutMs: 1000 });
    bridge.init();
    const agent = await connecting;
    const call = agent.call('look', {});
    await settle();
    clock.advance(1000);
    expect(await call).toMatchObject({ ok: false, local: true, error: { code: 'timeout', retryable: true } });
    bridge.send(2, { type: 'tool_result', call_id: 'c1', ok: true, output: {} });
    await settle();
    expect(bridge.received.filter((m) => m.type === 'tool_call')).toHaveLength(1);
  });

  it('times out each waiting call at its own deadline', async () => {
    const clock = new ManualClock();
    const bridge = scriptedBridge();
    const connecting = AgentClient.connect(bridge.agentEnd, { clock });
    bridge.init();
    const agent = await connecting;
    const order: string[] = [];
    const track = (name: string, call: Promise<{ ok: boolean }>) => call.then((outcome) => order.push(`${name}@${clock.now()}:${outcome.ok}`));
    const slow = track('slow', agent.call('a', {}, { timeoutMs: 3000 }));
    const fast = track('fast', agent.call('b', {}, { timeoutMs: 1000 }));
    const answered = track('answered', agent.call('c', {}, { timeoutMs: 2000 }));
    await settle();
    bridge.send(2, { type: 'tool_result', call_id: 'c3', ok: true, output: {} });
    await settle();
    for (let t = 0; t < 3000; t += 500) {
      clock.advance(500);
      await settle();
    }
    await Promise.all([slow, fast, answered]);
    expect(order).toEqual(['answered@0:true', 'fast@1000:false', 'slow@3000:false']);
  });

  it('bounds the calls waiting for results', async () => {
    const bridge = scriptedBridge();
    const connecting = AgentClient.connect(bridge.agentEnd, { clock: new ManualClock(), maxPendingCalls: 2 });
    bridge.init();
    const agent = await connecting;
    void agent.call('a');
    void agent.call('b');
    expect(await agent.call('c')).toMatchObject({ ok: false, local: true, error: { code: 'tool_unavailable', retryable: true } });
  });

  it('reports an invalid message from the bridge as an error event and stays open', async () => {
    const bridge = scriptedBridge();
    const connecting = AgentClient.connect(bridge.agentEnd, { clock: new ManualClock() });
    bridge.init();
    const agent = await connecting;
    const errors: string[] = [];
    agent.on('error', (e) => errors.push(e.message));
    bridge.bridgeEnd.send('{"protocol":"aicc/0.1","type":"tool_call"}');
    bridge.bridgeEnd.send('not json');
    await settle();
    expect(errors).toEqual(['bridge sent an invalid message: tool_call is sent by the agent, not the bridge', expect.stringMatching(/not JSON/)]);
    expect(agent.state).toBe('open');
  });

  it('sends heartbeats and gives up on a silent bridge', async () => {
    const clock = new ManualClock();
    const bridge = scriptedBridge();
    const connecting = AgentClient.connect(bridge.agentEnd, { clock, heartbeatIntervalMs: 1000, deadPeerTimeoutMs: 3000 });
    bridge.init();
    const agent = await connecting;
    const drops: string[] = [];
    agent.on('disconnect', (d) => drops.push(d.reason));
    await pass(clock, 2000);
    expect(bridge.received.filter((m) => m.type === 'heartbeat')).toHaveLength(2);
    await pass(clock, 1000);
    expect(drops).toEqual(['bridge silent for 3000 ms']);
    expect(agent.state).toBe('disconnected');
  });

  describe('resume ends one way or another', () => {
    async function connected(options: { resumeTimeoutMs?: number } = {}) {
      const clock = new ManualClock();
      const bridge = scriptedBridge();
      const connecting = AgentClient.connect(bridge.agentEnd, { clock, ...options });
      bridge.init();
      return { clock, bridge, agent: await connecting };
    }
    const outcome = (promise: Promise<void>) =>
      promise.then(
        () => 'resolved',
        (error: { code?: string; message: string }) => `${error.code}: ${error.message}`,
      );

    it('rejects when the new link drops before the bridge confirms, and may resume again', async () => {
      const { bridge, agent } = await connected();
      const [first, firstAgentEnd] = createMemoryLinkPair();
      first.listen({ message: () => {}, close: () => {} });
      const resumed = outcome(agent.resume(firstAgentEnd));
      await settle();
      first.close('dropped mid-resume');
      expect(await resumed).toMatch(/^AICC_NOT_CONNECTED: .*closed before the bridge confirmed/);
      expect(agent.state).toBe('disconnected');
      const [second, secondAgentEnd] = createMemoryLinkPair();
      second.listen({ message: () => {}, close: () => {} });
      const again = agent.resume(secondAgentEnd);
      second.send(JSON.stringify({ protocol: PROTOCOL, type: 'heartbeat', session_id: SESSION, message_id: bridge.ids.idOf(2) }));
      await again;
      expect(agent.state).toBe('open');
    });

    it('rejects when the session_resume or its answer is lost, after resumeTimeoutMs', async () => {
      const { clock, agent } = await connected({ resumeTimeoutMs: 2000 });
      const [bridgeEnd, agentEnd] = createMemoryLinkPair();
      const closes: string[] = [];
      bridgeEnd.listen({ message: () => {}, close: (reason) => closes.push(reason) });
      const resumed = outcome(agent.resume(agentEnd));
      await settle();
      clock.advance(1999);
      await settle();
      expect(agent.state).toBe('connecting');
      clock.advance(1);
      expect(await resumed).toBe('AICC_NOT_CONNECTED: AgentClient.resume: the bridge did not confirm within 2000 ms');
      await settle();
      expect(agent.state).toBe('disconnected');
      expect(closes).toEqual(['no resume confirmation']);
    });

    it('rejects a resume that a later one supersedes, and one whose session closes', async () => {
      const { agent } = await connected();
      const [a, aEnd] = createMemoryLinkPair();
      const [b, bEnd] = createMemoryLinkPair();
      for (const end of [a, b]) end.listen({ message: () => {}, close: () => {} });
      const first = outcome(agent.resume(aEnd));
      const second = outcome(agent.resume(bEnd));
      expect(await first).toBe('AICC_NOT_CONNECTED: AgentClient.resume: superseded by a later resume');
      b.send(JSON.stringify({ protocol: PROTOCOL, type: 'session_close', session_id: SESSION, message_id: new SequencedIds().idOf(1), reason: 'world over' }));
      expect(await second).toMatch(/^AICC_SESSION_CLOSED: .*world over/);
    });
  });

  describe('a manifest asked for ends one way or another', () => {
    async function connected() {
      const clock = new ManualClock();
      const bridge = scriptedBridge();
      const connecting = AgentClient.connect(bridge.agentEnd, { clock, callTimeoutMs: 1000 });
      bridge.init();
      return { clock, bridge, agent: await connecting };
    }
    const outcome = (promise: Promise<unknown>) =>
      promise.then(
        (manifest) => manifest,
        (error: { code?: string; message: string }) => `${error.code}: ${error.message}`,
      );
    const manifestUpdate = (agent: AgentClient, subscriptions: string[]) => ({
      type: 'heartbeat',
      manifest_update: { protocol: PROTOCOL, type: 'session_init', ...agent.manifest, event_subscriptions: subscriptions },
    });

    it('resolves with the manifest the bridge sends back, declared changes in what it sent', async () => {
      const { bridge, agent } = await connected();
      const declared = agent.declare({ subscriptions: ['audio'], agentModel: { class: 'cloud_medium' } });
      await settle();
      expect(bridge.received.at(-1)).toMatchObject({
        type: 'heartbeat',
        manifest_update: { type: 'session_init', event_subscriptions: ['audio'], agent_model: { class: 'cloud_medium' } },
      });
      bridge.send(2, manifestUpdate(agent, ['audio']));
      expect(await declared).toMatchObject({ event_subscriptions: ['audio'] });
      expect(agent.manifest.event_subscriptions).toEqual(['audio']);
    });

    it('rejects when no manifest comes within callTimeoutMs, and a late one is still taken', async () => {
      const { clock, bridge, agent } = await connected();
      const asked = outcome(agent.requestManifest());
      await settle();
      expect(bridge.received.at(-1)).toMatchObject({ type: 'manifest_request' });
      clock.advance(999);
      await settle();
      clock.advance(1);
      expect(await asked).toBe('AICC_NOT_CONNECTED: AgentClient.requestManifest: no manifest from the bridge within 1000 ms');
      bridge.send(2, manifestUpdate(agent, ['tick']));
      await settle();
      expect(agent.manifest.event_subscriptions).toEqual(['tick']);
    });

    it('rejects when the session closes while it waits, and at once while disconnected or closed', async () => {
      const { bridge, agent } = await connected();
      const asked = outcome(agent.requestManifest());
      bridge.send(2, { type: 'session_close', reason: 'world over' });
      expect(await asked).toBe('AICC_SESSION_CLOSED: AgentClient.requestManifest: the session closed (world over)');
      expect(await outcome(agent.declare({ subscriptions: [] }))).toBe('AICC_SESSION_CLOSED: AgentClient.declare: the session is closed');

      const other = await connected();
      other.bridge.bridgeEnd.close('network down');
      await settle();
      expect(other.agent.state).toBe('disconnected');
      expect(await outcome(other.agent.requestManifest())).toBe(
        'AICC_NOT_CONNECTED: AgentClient.requestManifest: the session is disconnected; resume it first',
      );
    });
  });

  it('drops and reports a bridge message whose sequence jumps too far, and goes on with the genuine ones', async () => {
    const bridge = scriptedBridge();
    const connecting = AgentClient.connect(bridge.agentEnd, { clock: new ManualClock(), maxSequenceJump: 8 });
    bridge.init();
    const agent = await connecting;
    const sounds: string[] = [];
    const errors: string[] = [];
    agent.on('audio', (a) => sounds.push(a.sound));
    agent.on('error', (e) => errors.push(`${e.code}: ${e.message}`));
    const audio = (sound: string) => ({ type: 'event', topic: 'audio', payload: { source: 's', sound } });
    bridge.send(2, audio('two'));
    bridge.send(2 ** 40, audio('forged'));
    bridge.send(3, audio('three'));
    bridge.send(3 + 8, audio('after a lost stretch of heartbeats'));
    const call = agent.call('look', {});
    await settle();
    bridge.send(12, { type: 'tool_result', call_id: 'c1', ok: true, output: { seen: 'x' } });
    expect(await call).toMatchObject({ ok: true, output: { seen: 'x' } });
    expect(sounds).toEqual(['two', 'three', 'after a lost stretch of heartbeats']);
    expect(errors).toEqual([`invalid_input: bridge message event jumps from sequence 2 to ${2 ** 40} (more than maxSequenceJump 8); dropped`]);
  });
});

describe('AgentClient trustBridge', () => {
  it("takes an in-process bridge's messages unchecked: an invalid one gets through, unlike by default", async () => {
    for (const trustBridge of [false, true]) {
      const bridge = scriptedBridge();
      const connecting = AgentClient.connect(bridge.agentEnd, { clock: new ManualClock(), trustBridge });
      bridge.init();
      const agent = await connecting;
      const errors: string[] = [];
      const heard: unknown[] = [];
      agent.on('error', (e) => errors.push(e.message));
      agent.on('audio', (payload) => heard.push(payload));
      // An audio event without its required `sound`, and an undeclared field: the schema refuses both.
      bridge.send(2, { type: 'event', topic: 'audio', payload: { source: 's' }, extra: 1 });
      await settle();
      expect([trustBridge, heard.length, errors.length]).toEqual([trustBridge, trustBridge ? 1 : 0, trustBridge ? 0 : 1]);
    }
  });

  it('refuses trustBridge at once on a link that is not in this process', async () => {
    const { createMemoryLinkPair: pair } = await import('../../src/links/memory.js');
    const [, end] = pair();
    const socketLike = { send: end.send.bind(end), close: end.close.bind(end), listen: end.listen.bind(end), open: true, bufferedAmount: 0 };
    expect(() => AgentClient.connect(socketLike, { trustBridge: true })).toThrow(
      expect.objectContaining({ code: 'AICC_INVALID_OPTION', message: expect.stringMatching(/across a socket both sides check/) }),
    );
  });
});

describe('AgentClient: a call refused at the wire ends at once, with the refusal’s code', () => {
  /** `depth` objects nested inside a call's input: the tool_call then nests 2 + depth levels. */
  const nested = (depth: number): JsonObject => {
    let value: JsonObject = {};
    for (let i = 0; i < depth; i++) value = { a: value };
    return value;
  };
  /** The call's outcome if it has one without the clock moving, else 'still waiting'. */
  const atOnce = async <T>(call: Promise<T>): Promise<T | 'still waiting'> => {
    await settle();
    return Promise.race([call, Promise.resolve('still waiting' as const)]);
  };

  it('refuses, before sending, an input the bridge would refuse at its wire: too large, too deep, a hostile key', async () => {
    const bridge = scriptedBridge();
    const connecting = AgentClient.connect(bridge.agentEnd, { clock: new ManualClock() });
    bridge.init();
    const agent = await connecting;
    const refused = (message: RegExp) => ({
      ok: false,
      local: true,
      error: { code: 'invalid_input', retryable: false, message: expect.stringMatching(message) },
    });
    expect(await atOnce(agent.call('say', { text: 'x'.repeat(256 * 1024) }))).toMatchObject(refused(/^say: not sent.*frame exceeds 262144 bytes/));
    expect(await atOnce(agent.call('say', nested(31)))).toMatchObject(refused(/^say: not sent.*nests deeper than 32 levels/));
    expect(await atOnce(agent.call('say', JSON.parse('{"a":{"__proto__":{"polluted":true}}}')))).toMatchObject(refused(/"__proto__" key/));
    expect(await atOnce(agent.call('say', { a: [{ constructor: { prototype: {} } }] }))).toMatchObject(refused(/"constructor\.prototype" key/));
    expect(bridge.received.filter((m) => m.type === 'tool_call')).toEqual([]);
    void agent.call('say', nested(30));
    await settle();
    expect(bridge.received.filter((m) => m.type === 'tool_call')).toHaveLength(1);
  });

  it('holds calls to the bounds it was told the bridge reads with (bridgeLimits), to the byte and the level', async () => {
    const bridge = scriptedBridge();
    const connecting = AgentClient.connect(bridge.agentEnd, { clock: new ManualClock(), bridgeLimits: { maxFrameBytes: 1000, maxDepth: 6 } });
    bridge.init();
    const agent = await connecting;
    void agent.call('say', { text: '' });
    await settle();
    const overhead = JSON.stringify(bridge.received.at(-1)).length;
    const sentCalls = () => bridge.received.filter((m) => m.type === 'tool_call').length;
    const fill = `${'é'.repeat((1000 - overhead) >> 1)}${'x'.repeat((1000 - overhead) & 1)}`; // the frame: exactly 1,000 bytes of UTF-8
    void agent.call('say', { text: fill });
    expect(await atOnce(agent.call('say', { text: `${fill}x` }))).toMatchObject({
      ok: false,
      local: true,
      error: { code: 'invalid_input', message: expect.stringMatching(/frame exceeds 1000 bytes/) },
    });
    void agent.call('say', nested(4));
    expect(await atOnce(agent.call('say', nested(5)))).toMatchObject({
      ok: false,
      local: true,
      error: { message: expect.stringMatching(/deeper than 6 levels/) },
    });
    await settle();
    expect(sentCalls()).toBe(3);
  });

  it('knows the bounds connectInProcess gave the capsule, as the capsule reads a lone message under batched framing', async () => {
    const { capsule } = makeCapsule();
    capsule.registerTool(echoTool);
    const agent = await connectInProcess(capsule, { character: 'hero', limits: { maxDepth: 6 } });
    // Batched framing lets a frame nest one level more (a batch's array): the capsule serves depth 7 alone.
    expect(await atOnce(agent.call('echo', { text: 'x', deep: nested(4) }))).toMatchObject({ ok: true });
    expect(await atOnce(agent.call('echo', { text: 'x', deep: nested(5) }))).toMatchObject({
      ok: false,
      local: true,
      error: { code: 'invalid_input', retryable: false, message: expect.stringMatching(/deeper than 7 levels/) },
    });
  });

  it('gets the capsule’s refusal as the call’s result when it does not know the bounds: nothing waits for a timeout', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool(echoTool);
    const { agent } = await connectAgent(capsule, clock, { limits: { maxFrameBytes: 2048, maxDepth: 8 } });
    expect(await atOnce(agent.call('echo', { text: 'x'.repeat(3000) }))).toEqual({
      ok: false,
      callId: 'c1',
      error: { code: 'invalid_input', message: 'frame exceeds 2048 bytes', retryable: false },
      meta: { tick: 0, latency_ms: 0, source: 'bridge' },
    });
    expect(await atOnce(agent.call('echo', { text: 'x', deep: nested(7) }))).toMatchObject({
      ok: false,
      callId: 'c2',
      error: { code: 'invalid_input', message: 'message nests deeper than 8 levels', retryable: false },
    });
    expect(await atOnce(agent.call('echo', { text: 'still served' }))).toMatchObject({ ok: true, output: { echo: { text: 'still served' } } });
  });

  it('ends a call at once when the bridge’s result for it is one this agent refuses at its own wire', async () => {
    const bridge = scriptedBridge();
    const connecting = AgentClient.connect(bridge.agentEnd, { clock: new ManualClock(), limits: { maxFrameBytes: 1024 } });
    bridge.init();
    const agent = await connecting;
    const errors: string[] = [];
    agent.on('error', (e) => errors.push(e.message));
    const big = agent.call('look');
    const broken = agent.call('look');
    const elsewhere = agent.call('look');
    await settle();
    bridge.send(2, { type: 'tool_result', call_id: 'c1', ok: true, output: { seen: 'x'.repeat(2000) } });
    bridge.send(3, { type: 'tool_result', call_id: 'c2', ok: 'yes' });
    bridge.send(4, { type: 'tool_result', call_id: 'c3', ok: 'yes', session_id: '00000000-0000-4000-8000-000000000000' });
    expect(await atOnce(big)).toMatchObject({
      ok: false,
      local: true,
      error: {
        code: 'invalid_input',
        retryable: false,
        message: expect.stringMatching(/^look: the bridge's tool_result for c1 was refused here: frame exceeds 1024 bytes/),
      },
    });
    expect(await atOnce(broken)).toMatchObject({
      ok: false,
      local: true,
      error: { code: 'invalid_input', retryable: false, message: expect.stringMatching(/tool_result\.ok/) },
    });
    expect(await atOnce(elsewhere)).toBe('still waiting'); // another session's result, however broken, is not this call's
    expect(errors).toHaveLength(3);
  });

  it('refuses an empty callId, which the schema refuses and the capsule cannot answer', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool(echoTool);
    const { agent } = await connectAgent(capsule, clock);
    expect(await atOnce(agent.call('echo', { text: 'x' }, { callId: '' }))).toMatchObject({
      ok: false,
      local: true,
      callId: '',
      error: { code: 'invalid_input', retryable: false, message: expect.stringMatching(/callId/) },
    });
    expect(await atOnce(agent.call('echo', { text: 'x' }, { callId: '', immediate: true }))).toMatchObject({ ok: true, callId: '!' });
  });

  it('refuses locally exactly the calls the capsule would refuse at its wire (property)', async () => {
    const fc = await import('fast-check');
    const { jsonCodec } = await import('../../src/protocol/codec.js');
    const { capsule, clock } = makeCapsule();
    capsule.registerTool(echoTool);
    const limits = { maxFrameBytes: 600, maxDepth: 7 };
    const { agent } = await connectAgent(capsule, clock, { limits }, { bridgeLimits: limits });
    const input = fc.record({
      text: fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '"'), maxLength: 200 }),
      deep: fc.nat(8).map(nested),
      odd: fc.constantFrom({}, JSON.parse('{"__proto__":{}}'), { constructor: { prototype: 1 } }, { constructor: 'fine' }),
    });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(input, async (value) => {
        const callId = `p${n++}`;
        const outcome = await atOnce(agent.call('echo', value, { callId }));
        expect(outcome).not.toBe('still waiting');
        if (outcome === 'still waiting') return;
        const frame = JSON.stringify({
          protocol: PROTOCOL,
          type: 'tool_call',
          session_id: agent.sessionId,
          message_id: SESSION,
          call_id: callId,
          tool: 'echo',
          input: value,
        });
        const capsuleVerdict = jsonCodec.decode(frame, limits);
        expect([outcome.ok, 'local' in outcome]).toEqual(capsuleVerdict.ok ? [true, false] : [false, true]);
      }),
      { numRuns: 200, seed: 7 },
    );
  });
});
