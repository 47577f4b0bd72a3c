import { describe, expect, it } from 'vitest';
import { connectInProcess } from '../../src/agent/inProcess.js';
import { createMemoryLinkPair } from '../../src/links/memory.js';
import { batchedFraming } from '../../src/protocol/batchedFraming.js';
import { jsonCodec } from '../../src/protocol/codec.js';
import { objectCodec } from '../../src/protocol/objectCodec.js';
import type { EventMessage } from '../../src/protocol/messages.js';
import { echoTool, makeCapsule, moveTool, pass, settle } from '../helpers.js';

describe('connectInProcess', () => {
  it('connects an agent to a character in one call: its grants, subscriptions and calls as connect gives them', async () => {
    const { capsule } = makeCapsule({ tickMode: 'event' });
    capsule.registerTool(moveTool());
    const agent = await connectInProcess(capsule, { character: 'hero', capabilities: { actuators: ['locomotion'] }, subscriptions: ['state_change'] });
    expect(agent.manifest.capabilities.actuators).toEqual(['locomotion']);
    expect(agent.manifest.event_subscriptions).toEqual(['state_change']);
    expect(capsule.session(agent.sessionId)?.character).toBe('hero');
    const moved = await agent.call('move_to', { x: 2, y: 3 });
    expect(moved).toMatchObject({ ok: true, output: { arrived: true } });
  });

  it('delivers a tick’s events in emit order, coalesced as a queue of the session’s own would hold them', async () => {
    const { capsule, clock } = makeCapsule({ tickMode: 'fixed' });
    const agent = await connectInProcess(capsule, {
      character: 'hero',
      agentModel: { class: 'edge_small' },
      subscriptions: ['tick', 'state_change', 'collision'],
    });
    const heard: string[] = [];
    agent.on('event', (event) => heard.push(`${event.topic}:${JSON.stringify(event.payload)}`));
    capsule.emit('state_change', { entity: 'door', field: 'open', value: false });
    capsule.emit('collision', { a: 'hero', b: 'wall' });
    capsule.emit('state_change', { entity: 'door', field: 'open', value: true });
    capsule.emit('audio', { source: 'bell', sound: 'ding' }); // not subscribed
    capsule.step(100);
    capsule.step(100);
    await settle();
    expect(clock.now()).toBe(200);
    expect(heard).toEqual([
      'collision:{"a":"hero","b":"wall"}',
      'state_change:{"entity":"door","field":"open","value":true}',
      'tick:{"tick":2,"dt_ms":200,"time_ms":200,"ticks":2}',
    ]);
  });

  it('with jsonCodec, gives the same events as text frames would', async () => {
    const { capsule } = makeCapsule();
    const agent = await connectInProcess(capsule, {
      character: 'hero',
      codec: jsonCodec,
      agentModel: { class: 'edge_small' },
      subscriptions: ['state_change'],
    });
    const values: unknown[] = [];
    agent.on('state_change', (change) => values.push(change.value));
    for (let i = 0; i < 3; i++) capsule.emit('state_change', { entity: `e${i}`, field: 'hp', value: { hp: i } });
    await settle();
    expect(values).toEqual([{ hp: 0 }, { hp: 1 }, { hp: 2 }]);
  });

  it('throws a bad session option at once, leaving no session behind', () => {
    const { capsule } = makeCapsule();
    expect(() => connectInProcess(capsule, { character: '' })).toThrow(/character/);
    expect(capsule.sessions()).toEqual([]);
  });

  it('resumes on a new link with nothing lost and nothing twice, though it reads its bridge’s ids only when a resume needs them', async () => {
    const { capsule, clock } = makeCapsule({ tickMode: 'event' });
    capsule.registerTool(echoTool);
    const agent = await connectInProcess(capsule, { character: 'hero', agentModel: { class: 'edge_small' }, subscriptions: ['agent_message'] });
    const texts: string[] = [];
    agent.on('agent_message', (message) => texts.push(message.text));
    for (let i = 0; i < 5; i++) capsule.emit('agent_message', { from: 'ada', text: `m${i}` });
    await settle();
    // The session itself, past the game's read-only view and its privacy: the test drops its link as a network would.
    const session = capsule.session(agent.sessionId) as unknown as { detach(reason: string): void };
    // The bridge drops the link; two more messages wait for the agent in its queue.
    session.detach('network hiccup');
    await settle();
    capsule.emit('agent_message', { from: 'ada', text: 'm5' });
    capsule.emit('agent_message', { from: 'ada', text: 'm6' });
    const [bridgeEnd, agentEnd] = createMemoryLinkPair();
    capsule.accept(bridgeEnd, { codec: objectCodec, framing: batchedFraming });
    await agent.resume(agentEnd);
    await pass(clock, 100); // the next delivery at the agent's cadence
    expect(texts).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6']);
    expect((await agent.call('echo', { text: 'still here' })).ok).toBe(true);
  });

  it('takes a resume on a second link without holding any message twice', async () => {
    const { capsule, clock } = makeCapsule({ tickMode: 'event' });
    const agent = await connectInProcess(capsule, { character: 'hero', agentModel: { class: 'edge_small' }, subscriptions: ['agent_message'] });
    const events: EventMessage[] = [];
    agent.on('event', (event) => events.push(event));
    for (let i = 0; i < 3; i++) capsule.emit('agent_message', { from: 'ada', text: `m${i}` });
    await settle();
    expect(events.map((event) => event.payload['text'])).toEqual(['m0', 'm1', 'm2']);
    // A second link to the same session: the bridge replays everything after the agent's last id,
    // which here is nothing — and the agent holds every message once.
    const [bridgeEnd, agentEnd] = createMemoryLinkPair();
    capsule.accept(bridgeEnd, { codec: objectCodec, framing: batchedFraming });
    await agent.resume(agentEnd);
    capsule.emit('agent_message', { from: 'ada', text: 'm3' });
    await pass(clock, 100);
    expect(events.map((event) => event.payload['text'])).toEqual(['m0', 'm1', 'm2', 'm3']);
  });
});
