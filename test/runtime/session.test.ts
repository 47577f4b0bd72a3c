import { describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/agent/agentClient.js';
import { createMemoryLinkPair } from '../../src/links/memory.js';
import type { SessionChange } from '../../src/runtime/capsule.js';
import { NIL_UUID, PROTOCOL } from '../../src/protocol/messages.js';
import { connectAgent, connectRaw, echoTool, makeCapsule, moveTool, pass, RawPeer, settle } from '../helpers.js';

describe('sessions', () => {
  it('opens with session_init carrying the whole manifest', async () => {
    const { capsule } = makeCapsule({ tickRateHz: 20, tickMode: 'hybrid', world: { name: 'Vale', kind: '2d' } });
    capsule.registerTool(moveTool());
    const peer = await connectRaw(capsule, {
      capabilities: { actuators: ['locomotion'] },
      agentModel: { class: 'cloud_large', expected_full_response_ms: 3000 },
      subscriptions: ['collision', 'agent_message'],
    });
    const [init] = peer.received;
    expect(init).toMatchObject({
      protocol: PROTOCOL,
      type: 'session_init',
      tick_rate_hz: 20,
      tick_mode: 'hybrid',
      world: { name: 'Vale', kind: '2d' },
      capabilities: { sensors: [], actuators: ['locomotion'], generators: [] },
      agent_model: { class: 'cloud_large', expected_full_response_ms: 3000 },
      event_subscriptions: ['collision', 'agent_message'],
    });
    expect(init?.type === 'session_init' && init.tools.map((t) => t.id)).toEqual(['move_to']);
  });

  it('answers manifest_request with a heartbeat carrying the current manifest', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool(echoTool);
    const { agent } = await connectAgent(capsule, clock);
    const manifest = await agent.requestManifest();
    expect(manifest.tools.map((t) => t.id)).toEqual(['echo']);
    expect(manifest.world).toEqual({ name: 'Testland', kind: 'abstract' });
  });

  it('sends one manifest_update for every batch of catalog changes', async () => {
    const { capsule } = makeCapsule();
    const echo = capsule.registerTool(echoTool);
    const peer = await connectRaw(capsule);
    const move = capsule.registerTool(moveTool());
    echo.update({ description: 'Says it back.' });
    await settle();
    move.disable();
    await settle();
    echo.remove();
    await settle();
    const updates = peer.ofType('heartbeat').map((h) => h.manifest_update);
    expect(updates.map((u) => u?.tools.map((t) => `${t.id}:${t.description}`))).toEqual([
      ['echo:Says it back.', 'move_to:Walks to a point.'],
      ['echo:Says it back.'],
      [],
    ]);
    expect(updates[0]).toMatchObject({ protocol: PROTOCOL, type: 'session_init', tick_mode: 'event' });
  });

  it('lets the agent change its subscriptions and model through a heartbeat manifest_update', async () => {
    const { capsule, clock } = makeCapsule();
    const { agent } = await connectAgent(capsule, clock, { subscriptions: ['tick'] });
    const manifest = await agent.declare({ subscriptions: ['audio'], agentModel: { class: 'edge_small' } });
    expect(manifest.event_subscriptions).toEqual(['audio']);
    expect(capsule.sessions()[0]!.agentModel).toEqual({ class: 'edge_small' });
    const heard: string[] = [];
    agent.on('event', (e) => heard.push(e.topic));
    capsule.emit('audio', { source: 'bell', sound: 'ding' });
    capsule.trigger(); // a tick, no longer subscribed
    await settle();
    expect(heard).toEqual(['audio']);
  });

  it('does not let an agent grant itself capabilities through manifest_update', async () => {
    const { capsule } = makeCapsule();
    capsule.registerTool(moveTool());
    const peer = await connectRaw(capsule, { capabilities: {} });
    const init = peer.ofType('session_init')[0]!;
    const { session_id: _s, message_id: _m, ...manifest } = init;
    peer.send({ type: 'heartbeat', manifest_update: { ...manifest, capabilities: { sensors: [], actuators: ['locomotion'], generators: [] } } });
    await settle();
    peer.send({ type: 'tool_call', call_id: 'x', tool: 'move_to', input: { x: 0, y: 0 } });
    await settle();
    expect(peer.ofType('tool_result')[0]).toMatchObject({ ok: false, error: { code: 'tool_unavailable' } });
  });

  describe('heartbeats', () => {
    it('flow both ways at the interval', async () => {
      const { capsule, clock } = makeCapsule({ heartbeatIntervalMs: 1000 });
      const [bridgeEnd, agentEnd] = createMemoryLinkPair();
      const frames: string[] = [];
      const original = agentEnd.send.bind(agentEnd);
      agentEnd.send = (frame) => (frames.push(String(frame)), original(frame));
      const agentPromise = AgentClient.connect(agentEnd, { clock, heartbeatIntervalMs: 1000 });
      capsule.connect(bridgeEnd, { character: 'hero' });
      const agent = await agentPromise;
      const beats: number[] = [];
      agent.on('manifest', () => {});
      const peerCount = () => frames.filter((f) => f.includes('"heartbeat"')).length;
      await pass(clock, 3000);
      beats.push(peerCount());
      expect(beats[0]).toBe(3);
      expect(agent.state).toBe('open');
      expect(capsule.sessions()[0]!.state).toBe('open');
    });

    it('drop a silent agent after the dead-peer timeout, then expire it after the grace period', async () => {
      const { capsule, clock } = makeCapsule({ heartbeatIntervalMs: 1000, deadPeerTimeoutMs: 3000, resumeGraceMs: 10_000 });
      const changes: SessionChange['change'][] = [];
      capsule.on('session', (c) => changes.push(c.change));
      const peer = await connectRaw(capsule); // a raw peer never sends heartbeats
      await pass(clock, 3000);
      expect(changes).toEqual(['open', 'detached']);
      expect(peer.closedWith).toMatch(/agent silent for 3000 ms/);
      await pass(clock, 10_000);
      expect(changes).toEqual(['open', 'detached', 'closed']);
      expect(capsule.sessions()).toEqual([]);
    });
  });

  describe('session_close', () => {
    it('from the agent: acknowledged, session gone, calls afterwards refused locally', async () => {
      const { capsule, clock } = makeCapsule();
      capsule.registerTool(echoTool);
      const { agent } = await connectAgent(capsule, clock);
      await agent.close('done for today');
      expect(agent.state).toBe('closed');
      expect(capsule.sessions()).toEqual([]);
      expect(await agent.call('echo', { text: 'x' })).toMatchObject({ ok: false, local: true, error: { code: 'session_expired' } });
    });

    it('from the bridge: the agent learns the reason and pending calls resolve', async () => {
      const { capsule, clock } = makeCapsule();
      capsule.registerTool({ ...echoTool, handler: () => new Promise<never>(() => {}) });
      const { agent } = await connectAgent(capsule, clock);
      const reasons: string[] = [];
      agent.on('close', (c) => reasons.push(c.reason));
      const pending = agent.call('echo', { text: 'x' });
      await settle();
      capsule.sessions()[0]!.close('the game is over');
      expect(await pending).toMatchObject({ ok: false, error: { code: 'session_expired' } });
      expect(reasons).toEqual(['the game is over']);
    });
  });

  it('refuses a message naming another session with session_expired, and keeps the link', async () => {
    const { capsule } = makeCapsule();
    capsule.registerTool(echoTool);
    const peer = await connectRaw(capsule);
    peer.send({ type: 'manifest_request' }, { session_id: '6f9619ff-8b86-4d11-b42d-00c04fc964ff' });
    await settle();
    expect(peer.last()).toMatchObject({ type: 'error', error: { code: 'session_expired', retryable: false } });
    peer.send({ type: 'tool_call', call_id: 'ok', tool: 'echo', input: { text: 'still here' } });
    await settle();
    expect(peer.last()).toMatchObject({ type: 'tool_result', ok: true });
  });

  describe('resume', () => {
    it('replays exactly what was missed while the link was down: nothing lost, nothing twice', async () => {
      const { capsule, clock } = makeCapsule({ resumeGraceMs: 5000 });
      let release: Array<() => void> = [];
      capsule.registerTool({ ...echoTool, handler: (input) => new Promise<{ echo: unknown }>((resolve) => release.push(() => resolve({ echo: input }))) });
      const { agent, agentEnd } = await connectAgent(capsule, clock, { subscriptions: ['agent_message'], agentModel: { class: 'edge_small' } });
      const heard: string[] = [];
      agent.on('agent_message', (m) => heard.push(m.text));
      capsule.emit('agent_message', { from: 'a', text: 'before' });
      await settle();
      const first = agent.call('echo', { text: 'one' });
      const second = agent.call('echo', { text: 'two' });
      await settle();
      agentEnd.close('cable pulled');
      await settle();
      expect(agent.state).toBe('disconnected');
      expect(capsule.sessions()[0]!.state).toBe('detached');
      // While down: both results and two messages are produced.
      release.forEach((r) => r());
      release = [];
      capsule.emit('agent_message', { from: 'a', text: 'during 1' });
      capsule.emit('agent_message', { from: 'a', text: 'during 2' });
      await pass(clock, 2000);
      const [bridgeEnd, newAgentEnd] = createMemoryLinkPair();
      capsule.accept(bridgeEnd);
      await agent.resume(newAgentEnd);
      expect(await first).toMatchObject({ ok: true, output: { echo: { text: 'one' } } });
      expect(await second).toMatchObject({ ok: true, output: { echo: { text: 'two' } } });
      await pass(clock, 20); // edge_small: deliveries at most every 12.5 ms
      capsule.emit('agent_message', { from: 'a', text: 'after' });
      await settle();
      expect(heard).toEqual(['before', 'during 1', 'during 2', 'after']);
      expect(capsule.sessions()[0]!.state).toBe('open');
    });

    it('keeps counters and subscriptions across a resume', async () => {
      const { capsule, clock } = makeCapsule();
      capsule.registerTool({ ...echoTool, limits: { calls_per_session: 1 } });
      const { agent, agentEnd } = await connectAgent(capsule, clock, { subscriptions: ['audio'] });
      expect((await agent.call('echo', { text: 'a' })).ok).toBe(true);
      agentEnd.close('drop');
      await settle();
      const [bridgeEnd, newEnd] = createMemoryLinkPair();
      capsule.accept(bridgeEnd);
      await agent.resume(newEnd);
      expect(await agent.call('echo', { text: 'b' })).toMatchObject({ ok: false, error: { code: 'tool_unavailable', retryable: false } });
      expect([...capsule.sessions()[0]!.subscriptions]).toEqual(['audio']);
    });

    it('answers a resume of an unknown session with session_expired and closes that link', async () => {
      const { capsule } = makeCapsule();
      const [bridgeEnd, agentEnd] = createMemoryLinkPair();
      const peer = new RawPeer(agentEnd);
      capsule.accept(bridgeEnd);
      agentEnd.send(JSON.stringify({ protocol: PROTOCOL, type: 'session_resume', session_id: '6f9619ff-8b86-4d11-b42d-00c04fc964ff', message_id: NIL_UUID }));
      await settle();
      expect(peer.received).toMatchObject([{ type: 'error', error: { code: 'session_expired' } }]);
      expect(peer.closedWith).toBeDefined();
    });

    it('refuses to resume a session whose grace period ended', async () => {
      const { capsule, clock } = makeCapsule({ resumeGraceMs: 1000 });
      const { agent, agentEnd } = await connectAgent(capsule, clock);
      agentEnd.close('drop');
      await settle();
      await pass(clock, 1000);
      const [bridgeEnd, newEnd] = createMemoryLinkPair();
      capsule.accept(bridgeEnd);
      await expect(agent.resume(newEnd)).rejects.toMatchObject({ code: 'AICC_SESSION_CLOSED' });
    });

    it('closes an accepted link on which no session_resume comes within firstMessageTimeoutMs', async () => {
      const { capsule, clock } = makeCapsule();
      const [bridgeEnd, agentEnd] = createMemoryLinkPair();
      const peer = new RawPeer(agentEnd);
      capsule.accept(bridgeEnd, { firstMessageTimeoutMs: 3000 });
      clock.advance(2999);
      await settle();
      expect(peer.closedWith).toBeUndefined();
      clock.advance(1);
      await settle();
      expect(peer.closedWith).toBe('accept: no session_resume within 3000 ms');
      // The default is 10 s, and a link that spoke in time is not closed by it.
      const [quiet, quietEnd] = createMemoryLinkPair();
      const silent = new RawPeer(quietEnd);
      capsule.accept(quiet);
      const { agent, agentEnd: firstEnd } = await connectAgent(capsule, clock);
      firstEnd.close('drop');
      await settle();
      const [bridge2, end2] = createMemoryLinkPair();
      capsule.accept(bridge2);
      await agent.resume(end2);
      await pass(clock, 10_000);
      expect(silent.closedWith).toBe('accept: no session_resume within 10000 ms');
      expect(agent.state).toBe('open');
    });

    it('rations session_resume on the live link: one each second, the next refused as retryable', async () => {
      const { capsule, clock } = makeCapsule();
      const peer = await connectRaw(capsule);
      const init = peer.received[0]!;
      const resumes = () => peer.send({ type: 'session_resume' }, { message_id: init.message_id });
      resumes();
      await settle();
      resumes();
      await settle();
      clock.advance(1000);
      resumes();
      await settle();
      expect(peer.received.slice(1).map((m) => (m.type === 'error' ? `error ${m.error.code} ${m.error.retryable}: ${m.error.message}` : m.type))).toEqual([
        'heartbeat',
        'error tool_unavailable true: session_resume on the live link: at most one each 1000 ms; retry in 1000 ms',
        // The third resume, a second later, replays what followed session_init: that refusal.
        'error tool_unavailable true: session_resume on the live link: at most one each 1000 ms; retry in 1000 ms',
        'heartbeat',
      ]);
      expect(peer.closedWith).toBeUndefined();
    });

    it('refuses when the replay buffer no longer holds what the agent missed', async () => {
      const { capsule, clock } = makeCapsule({ replayBufferSize: 2 });
      const { agent, agentEnd } = await connectAgent(capsule, clock, { subscriptions: ['audio'], agentModel: { class: 'edge_small' } });
      agentEnd.close('drop');
      await settle();
      // While down, three catalog changes make three stored manifest_updates: more than the buffer holds.
      for (let i = 0; i < 3; i++) {
        capsule.registerTool({ ...echoTool, id: `echo_${i}` });
        await settle();
      }
      const [bridgeEnd, newEnd] = createMemoryLinkPair();
      capsule.accept(bridgeEnd);
      await expect(agent.resume(newEnd)).rejects.toThrow(/no longer retained/);
    });
  });
});

describe('the message tap', () => {
  it('shows the host every message of every session, both ways, in order', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool(echoTool);
    const seen: string[] = [];
    capsule.on('message', ({ direction, message }) => seen.push(`${direction} ${message.type}`));
    const { agent } = await connectAgent(capsule, clock);
    await agent.call('echo', { text: 'x' });
    await agent.close();
    expect(seen).toEqual(['out session_init', 'in tool_call', 'out tool_result', 'in session_close', 'out session_close']);
  });
});

describe('read-only views for inspectors', () => {
  it('capsule.tools() lists the enabled tools in registration order, a new array only after a catalog change', () => {
    const { capsule } = makeCapsule();
    capsule.registerTool(echoTool);
    const move = capsule.registerTool(moveTool());
    const first = capsule.tools();
    expect(first.map((tool) => tool.id)).toEqual(['echo', 'move_to']);
    expect(capsule.tools()).toBe(first);
    move.disable();
    expect(capsule.tools().map((tool) => tool.id)).toEqual(['echo']);
  });

  it('session.toolUsage(now) gives calls used and calls in the per-minute window, per tool, without making counters', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool(moveTool({ limits: { calls_per_minute: 5, calls_per_session: 10 } }));
    capsule.registerTool(echoTool);
    const { agent } = await connectAgent(capsule, clock);
    const session = capsule.sessions()[0]!;
    expect(session.toolUsage(clock.now())).toEqual([]);
    await agent.call('move_to', { x: 1, y: 1 });
    await pass(clock, 30_000);
    await agent.call('move_to', { x: 2, y: 2 });
    await agent.call('echo', { text: 'hi' });
    expect(session.toolUsage(clock.now())).toEqual([
      { tool: 'move_to', used: 2, inWindow: 2 },
      { tool: 'echo', used: 1, inWindow: 0 },
    ]);
    expect(session.toolUsage(clock.now() + 30_000)).toEqual([
      { tool: 'move_to', used: 2, inWindow: 1 },
      { tool: 'echo', used: 1, inWindow: 0 },
    ]);
  });
});

describe('a replay store of the host’s own (CapsuleOptions.replayStore)', () => {
  it('is made per session and given what the session sends; a resume replays from it', async () => {
    const { ReplayBuffer } = await import('../../src/runtime/resumeReplay.js');
    const made: string[] = [];
    const kept: string[] = [];
    const { capsule, clock } = makeCapsule({
      replayStore: (sessionId, capacity) => {
        made.push(`${sessionId.length}:${capacity}`);
        const inner = new ReplayBuffer(capacity);
        return {
          push: (sequence, message) => (kept.push(message.type), inner.push(sequence, message)),
          pushEvent: (sequence, event) => (kept.push(`event ${event.topic}`), inner.pushEvent(sequence, event)),
          after: (sequence, envelope) => inner.after(sequence, envelope),
        };
      },
    });
    const { agent, agentEnd } = await connectAgent(capsule, clock, { subscriptions: ['audio'], agentModel: { class: 'edge_small' } });
    agentEnd.close('drop');
    await settle();
    capsule.emit('audio', { source: 'bell', sound: 'ding' });
    await pass(clock, 100, 20);
    const heard: string[] = [];
    agent.on('audio', (a) => heard.push(a.sound));
    const [bridgeEnd, newEnd] = createMemoryLinkPair();
    capsule.accept(bridgeEnd);
    await agent.resume(newEnd);
    await settle();
    expect(made).toEqual(['36:1024']);
    expect(kept).toEqual(['session_init', 'event audio']);
    expect(heard).toEqual(['ding']);
  });

  it('must be a function', () => {
    expect(() => makeCapsule({ replayStore: {} as never })).toThrow(/replayStore must be a function/);
  });
});
