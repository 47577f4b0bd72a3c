import { describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/agent/agentClient.js';
import { createMemoryLinkPair } from '../../src/links/memory.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { SequencedIds } from '../../src/protocol/ids.js';
import { PROTOCOL, type AiccMessage, type JsonObject } from '../../src/protocol/messages.js';
import { pass, settle } from '../helpers.js';

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
