import { describe, expect, it } from 'vitest';
import type { EventMessage } from '../../src/protocol/messages.js';
import { connectAgent, makeCapsule, pass, settle } from '../helpers.js';

describe('event delivery and coalescing', () => {
  it('gives a cloud_large agent collapsed ticks and the latest state, not sixty events a second', async () => {
    const { capsule, clock } = makeCapsule({ tickMode: 'fixed', tickRateHz: 60 });
    const { agent } = await connectAgent(capsule, clock, { agentModel: { class: 'cloud_large' }, subscriptions: ['tick', 'state_change'] });
    const events: EventMessage[] = [];
    agent.on('event', (e) => events.push(e));
    let hp = 100;
    capsule.on('tick', () => capsule.emit('state_change', { entity: 'hero', field: 'hp', value: --hp }));
    for (let i = 0; i < 120; i++) {
      capsule.step(1000 / 60);
      await settle();
    }
    expect(capsule.sessions()[0]!.stats.eventsQueued).toBe(2); // one tick, one state: all that waits
    await pass(clock, 1000); // the next delivery falls due
    // 2 s of 60 Hz: 120 ticks and 120 changes reach the agent in three deliveries.
    const ticks = events.filter((e) => e.topic === 'tick');
    expect(ticks).toHaveLength(3);
    expect(ticks.reduce((sum, e) => sum + ((e.payload['ticks'] as number | undefined) ?? 1), 0)).toBe(120);
    expect(ticks.at(-1)!.payload['tick']).toBe(120);
    const changes = events.filter((e) => e.topic === 'state_change');
    expect(changes).toHaveLength(3);
    expect(changes.at(-1)!.payload['value']).toBe(hp);
  });

  it('gives an edge_small agent every tick', async () => {
    const { capsule, clock } = makeCapsule({ tickMode: 'fixed', tickRateHz: 20 });
    const { agent } = await connectAgent(capsule, clock, { agentModel: { class: 'edge_small' }, subscriptions: ['tick'] });
    const ticks: number[] = [];
    agent.on('tick', (t) => ticks.push(t.tick));
    for (let i = 0; i < 10; i++) {
      capsule.step(50);
      await settle();
    }
    expect(ticks).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('keeps a detached session’s queue bounded and reports what it dropped', async () => {
    const { capsule, clock } = makeCapsule({ eventQueueSize: 8, resumeGraceMs: 60_000 });
    const { agent, agentEnd } = await connectAgent(capsule, clock, { agentModel: { class: 'edge_small' }, subscriptions: ['collision', 'agent_message'] });
    agentEnd.close('slow network');
    await settle();
    for (let i = 0; i < 1000; i++) capsule.emit('collision', { a: 'hero', b: `rock${i}` });
    capsule.emit('agent_message', { from: 'ada', text: 'still there?' });
    const session = capsule.sessions()[0]!;
    expect(session.stats.eventsQueued).toBe(8);
    expect(session.stats.eventsDropped).toBe(993);
    const { createMemoryLinkPair } = await import('../../src/links/memory.js');
    const [bridgeEnd, newEnd] = createMemoryLinkPair();
    const events: EventMessage[] = [];
    agent.on('event', (e) => events.push(e));
    capsule.accept(bridgeEnd);
    await agent.resume(newEnd);
    await pass(clock, 100);
    expect(events.map((e) => (e.topic === 'collision' ? e.payload['b'] : e.payload['text']))).toEqual([
      'rock993',
      'rock994',
      'rock995',
      'rock996',
      'rock997',
      'rock998',
      'rock999',
      'still there?',
    ]);
    expect(events[0]!.meta).toEqual({ dropped_events: 993 });
  });

  it('holds deliveries while the link is backed up, then sends the coalesced state', async () => {
    const { capsule, clock } = makeCapsule({ maxBufferedBytes: 1 });
    const { createMemoryLinkPair } = await import('../../src/links/memory.js');
    const { RawPeer } = await import('../helpers.js');
    const [bridgeEnd, agentEnd] = createMemoryLinkPair();
    // Report a backlog until released.
    let backlog = 2;
    Object.defineProperty(bridgeEnd, 'bufferedAmount', { get: () => backlog });
    const peer = new RawPeer(agentEnd);
    capsule.connect(bridgeEnd, { character: 'hero', agentModel: { class: 'edge_small' }, subscriptions: ['state_change'] });
    await settle();
    for (let hp = 10; hp > 0; hp--) capsule.emit('state_change', { entity: 'hero', field: 'hp', value: hp });
    await pass(clock, 200, 10);
    expect(peer.ofType('event')).toEqual([]);
    backlog = 0;
    await pass(clock, 200, 10);
    expect(peer.ofType('event').map((e) => e.payload['value'])).toEqual([1]);
  });

  it('delivers targeted events only to the named characters', async () => {
    const { capsule, clock } = makeCapsule();
    const ada = await connectAgent(capsule, clock, { character: 'ada', agentModel: { class: 'edge_small' } });
    const bob = await connectAgent(capsule, clock, { character: 'bob', agentModel: { class: 'edge_small' } });
    const heard: string[] = [];
    ada.agent.on('agent_message', (m) => heard.push(`ada:${m.text}`));
    bob.agent.on('agent_message', (m) => heard.push(`bob:${m.text}`));
    capsule.emit('agent_message', { from: 'ada', to: 'bob', text: 'psst' }, { to: 'bob' });
    capsule.emit('agent_message', { from: 'narrator', text: 'dawn breaks' });
    await settle();
    expect(heard.sort()).toEqual(['ada:dawn breaks', 'bob:dawn breaks', 'bob:psst']);
  });

  it('works out an audience given as a function only when some session subscribes to the topic', async () => {
    const { capsule, clock } = makeCapsule();
    const ada = await connectAgent(capsule, clock, { character: 'ada', agentModel: { class: 'edge_small' }, subscriptions: ['audio'] });
    const bob = await connectAgent(capsule, clock, { character: 'bob', agentModel: { class: 'edge_small' }, subscriptions: ['audio'] });
    const asked: string[] = [];
    const heardByHost: string[] = [];
    const sounds: string[] = [];
    capsule.on('collision', (c) => heardByHost.push(`${c.a}+${c.b}`));
    ada.agent.on('audio', (a) => sounds.push(`ada:${a.sound}`));
    bob.agent.on('audio', (a) => sounds.push(`bob:${a.sound}`));
    // Nobody subscribes to collisions: the audience is never worked out, the host still hears it.
    capsule.emit('collision', { a: 'ada', b: 'bob' }, { to: () => (asked.push('collision'), ['ada', 'bob']) });
    capsule.emit('audio', { source: 'bell', sound: 'ding' }, { to: () => (asked.push('audio'), ['ada']) });
    await settle();
    expect(asked).toEqual(['audio']);
    expect(heardByHost).toEqual(['ada+bob']);
    expect(sounds).toEqual(['ada:ding']);
  });

  it('tracks each session’s decision latency from delivery to its next call', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool({
      id: 'look',
      class: 'sensor',
      description: 'Looks.',
      input_schema: { type: 'object' },
      output_schema: { type: 'object' },
      handler: () => ({}),
    });
    const { agent } = await connectAgent(capsule, clock, { agentModel: { class: 'edge_small' }, subscriptions: ['audio'] });
    capsule.emit('audio', { source: 'bell', sound: 'ding' });
    await settle();
    await pass(clock, 800, 100);
    await agent.call('look');
    expect(capsule.sessions()[0]!.stats.decisionLatencyMs).toBe(800);
  });

  it('runs the deliveries of one turn as one batch inside measureWork, for a host timing the capsule', async () => {
    const batches: number[] = [];
    let sentInside = 0;
    let inside = false;
    const { capsule, clock } = makeCapsule({
      measureWork: (work) => {
        inside = true;
        const before = capsule.sessions().reduce((sum, s) => sum + s.stats.sent, 0);
        work();
        inside = false;
        batches.push(capsule.sessions().reduce((sum, s) => sum + s.stats.sent, 0) - before);
      },
    });
    const ada = await connectAgent(capsule, clock, { character: 'ada', agentModel: { class: 'edge_small' } });
    const bob = await connectAgent(capsule, clock, { character: 'bob', agentModel: { class: 'edge_small' } });
    capsule.on('message', ({ direction }) => {
      if (direction === 'out' && inside) sentInside++;
    });
    batches.length = 0;
    capsule.emit('audio', { source: 'bell', sound: 'ding' });
    capsule.emit('agent_message', { from: 'narrator', text: 'dawn breaks' });
    await settle();
    expect(batches).toEqual([4]); // two sessions × two events, in one batch
    expect(sentInside).toBe(4);
    expect([ada, bob].map(({ agent }) => agent.state)).toEqual(['open', 'open']);
  });

  it('settles a handler’s promise inside measureWork: its result is the capsule’s work too', async () => {
    let inside = false;
    const { capsule, clock } = makeCapsule({
      measureWork: (work) => {
        inside = true;
        try {
          work();
        } finally {
          inside = false;
        }
      },
    });
    let finish: (output: { found: boolean }) => void = () => {};
    capsule.registerTool({
      id: 'search',
      class: 'sensor',
      description: 'Searches, later.',
      input_schema: { type: 'object' },
      output_schema: { type: 'object' },
      handler: () => new Promise<{ found: boolean }>((resolve) => (finish = resolve)),
    });
    const { agent } = await connectAgent(capsule, clock, { agentModel: { class: 'edge_small' } });
    const completedInside: boolean[] = [];
    capsule.on('call', () => completedInside.push(inside));
    const answer = agent.call('search');
    await settle();
    capsule.step(100);
    await settle();
    expect(completedInside).toEqual([]);
    finish({ found: true });
    expect(await answer).toMatchObject({ ok: true, output: { found: true } });
    expect(completedInside).toEqual([true]);
  });

  it('refuses a measureWork that is not a function', () => {
    expect(() => makeCapsule({ measureWork: 'yes' as never })).toThrow(/measureWork must be a function/);
  });
});
