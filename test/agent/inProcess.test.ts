import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../src/adapters/headless/random.js';
import { AgentClient } from '../../src/agent/agentClient.js';
import { connectInProcess, type InProcessOptions, type SessionOpener } from '../../src/agent/inProcess.js';
import type { Capsule } from '../../src/runtime/capsule.js';
import type { Clock } from '../../src/base/clock.js';
import type { ConnectOptions } from '../../src/runtime/options.js';
import { wrapLink } from '../../src/links/wrapLink.js';
import { createMemoryLinkPair } from '../../src/links/memory.js';
import { batchedFraming } from '../../src/protocol/batchedFraming.js';
import { jsonCodec } from '../../src/protocol/codec.js';
import { objectCodec } from '../../src/protocol/objectCodec.js';
import type { JsonObject } from '../../src/protocol/messages.js';
import { echoTool, makeCapsule, moveTool, pass, settle } from '../helpers.js';

/** An in-process agent's options with its ids seeded: two runs of one world give the same ids. */
function seededAgent(options: ConnectOptions): InProcessOptions {
  return { ...options, agent: { randomBytes: new SeededRandom('agent').bytes } };
}

/** The same agent on a memory link with the settings connectInProcess had before its direct pair (objects, batched, trusted), its session resumable. */
async function connectOnMemoryLink(capsule: Capsule, clock: Clock, options: ConnectOptions): Promise<AgentClient> {
  const [bridgeEnd, agentEnd] = createMemoryLinkPair();
  capsule.connect(bridgeEnd, { ...options, codec: objectCodec, framing: batchedFraming });
  return AgentClient.connect(agentEnd, { clock, codec: objectCodec, framing: batchedFraming, trustBridge: true, randomBytes: new SeededRandom('agent').bytes });
}

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

  it('keeps no resume state: a dropped link ends the session at once, and a resume on a new link is refused', async () => {
    const { capsule } = makeCapsule({ tickMode: 'event' });
    const agent = await connectInProcess(capsule, { character: 'hero', agentModel: { class: 'edge_small' }, subscriptions: ['agent_message'] });
    const changes: string[] = [];
    capsule.on('session', ({ change, reason }) => changes.push(`${change}: ${reason}`));
    capsule.emit('agent_message', { from: 'ada', text: 'm0' });
    await settle();
    // The session itself, past the game's read-only view and its privacy: the test drops its link as a network would.
    const session = capsule.session(agent.sessionId) as unknown as { detach(reason: string): void; state: string };
    session.detach('network hiccup');
    // No grace period: in this process nothing can come back on another link.
    expect(session.state).toBe('closed');
    expect(changes).toEqual(['closed: network hiccup']);
    expect(capsule.sessions()).toEqual([]);
    const [bridgeEnd, agentEnd] = createMemoryLinkPair();
    capsule.accept(bridgeEnd, { codec: objectCodec, framing: batchedFraming });
    await expect(agent.resume(agentEnd)).rejects.toThrow(/unknown or expired/);
  });

  it('sends what a resumable session sends, message for message, while keeping none of it (property)', async () => {
    type Step = { kind: 'emit'; text: string } | { kind: 'tell'; text: string } | { kind: 'call'; text: string } | { kind: 'wait'; ms: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constant('emit' as const), text: fc.string({ maxLength: 8 }) }),
      fc.record({ kind: fc.constant('tell' as const), text: fc.string({ maxLength: 8 }) }),
      fc.record({ kind: fc.constant('call' as const), text: fc.string({ maxLength: 8 }) }),
      fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 400 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 25 }), fc.constantFrom('event' as const, 'fixed' as const), async (steps, tickMode) => {
        // The same world twice, the same ids: one agent through connectInProcess, one on a memory link of its own (resumable).
        const run = async (inProcess: boolean) => {
          const { capsule, clock } = makeCapsule({ tickMode, randomBytes: new SeededRandom('ids').bytes });
          capsule.registerTool(echoTool);
          const sent: string[] = [];
          capsule.on('message', ({ direction, message }) => direction === 'out' && sent.push(JSON.stringify(message)));
          const options = { character: 'hero', agentModel: { class: 'edge_small' as const }, subscriptions: ['agent_message', 'tick'] };
          const agent = await (inProcess ? connectInProcess(capsule, seededAgent(options)) : connectOnMemoryLink(capsule, clock, options));
          const results: unknown[] = [];
          for (const { kind, ...rest } of steps) {
            if (kind === 'emit') capsule.emit('agent_message', { from: 'ada', text: (rest as { text: string }).text });
            else if (kind === 'tell') capsule.emit('agent_message', { from: 'bo', text: (rest as { text: string }).text }, { to: ['hero'] });
            else if (kind === 'call') void agent.call('echo', { text: (rest as { text: string }).text }).then((result) => results.push(result));
            else capsule.step((rest as { ms: number }).ms);
            await settle();
          }
          await pass(clock, 500);
          capsule.step(100);
          await settle();
          capsule.dispose();
          await settle();
          return { sent, results };
        };
        const [inProcess, resumable] = [await run(true), await run(false)];
        expect(inProcess.sent.some((line) => line.includes('"session_init"'))).toBe(true);
        expect(inProcess).toEqual(resumable);
      }),
      { numRuns: 30, seed: 27 },
    );
  });
});

describe('connectInProcess, on a direct pair (objectCodec)', () => {
  it('gives the agent what a memory link gave it: the same events in the same order, the same results and refusals, the same whole messages (property)', async () => {
    type Step =
      | { kind: 'emit' | 'tell' | 'change'; text: string }
      | { kind: 'call'; tool: 'echo' | 'nothing'; input: JsonObject }
      | { kind: 'listen' | 'unlisten' }
      | { kind: 'wait'; ms: number };
    const input: fc.Arbitrary<JsonObject> = fc.oneof(
      fc.record({ text: fc.string({ maxLength: 8 }) }),
      fc.constant({ text: 7 } as JsonObject), // refused by the schema
      fc.constant(JSON.parse('{"__proto__": {"polluted": true}}') as JsonObject), // refused at the agent's side
    );
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constantFrom('emit' as const, 'tell' as const, 'change' as const), text: fc.string({ maxLength: 8 }) }),
      fc.record({ kind: fc.constant('call' as const), tool: fc.constantFrom('echo' as const, 'nothing' as const), input }),
      fc.record({ kind: fc.constantFrom('listen' as const, 'unlisten' as const) }),
      fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 400 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 30 }), fc.constantFrom('event' as const, 'fixed' as const), async (steps, tickMode) => {
        // The same world twice, the same ids: one agent through connectInProcess (a direct pair), one
        // on a memory link with the settings connectInProcess used before it (objects, batched, trusted).
        const run = async (direct: boolean) => {
          const { capsule, clock } = makeCapsule({ tickMode, randomBytes: new SeededRandom('ids').bytes });
          capsule.registerTool(echoTool);
          const options = { character: 'hero', agentModel: { class: 'edge_small' as const }, subscriptions: ['agent_message', 'tick', 'state_change'] };
          const agent = await (direct ? connectInProcess(capsule, seededAgent(options)) : connectOnMemoryLink(capsule, clock, options));
          const heard: unknown[] = [];
          for (const topic of ['agent_message', 'tick', 'state_change'] as const) agent.on(topic, (payload) => heard.push([topic, payload]));
          let unlisten: (() => void) | undefined;
          const results: unknown[] = [];
          for (const item of steps) {
            if (item.kind === 'emit') capsule.emit('agent_message', { from: 'ada', text: item.text });
            else if (item.kind === 'tell') capsule.emit('agent_message', { from: 'bo', text: item.text }, { to: ['hero'] });
            else if (item.kind === 'change') capsule.emit('state_change', { entity: 'door', field: 'label', value: item.text });
            else if (item.kind === 'call') void agent.call(item.tool, item.input).then((result) => results.push(result));
            else if (item.kind === 'listen') unlisten ??= agent.on('event', (message) => heard.push(['event', message]));
            else if (item.kind === 'unlisten') {
              unlisten?.();
              unlisten = undefined;
            } else if (item.kind === 'wait') capsule.step(item.ms);
            await settle();
          }
          await pass(clock, 500);
          capsule.step(100);
          await settle();
          capsule.dispose();
          await settle();
          return { heard, results, state: agent.state };
        };
        const [direct, memory] = [await run(true), await run(false)];
        expect(direct.state).toBe('closed');
        expect(direct).toEqual(memory);
      }),
      { numRuns: 40, seed: 2705 },
    );
  });

  it('hands the agent the event log’s own objects, and builds a whole message only for a listener of those', async () => {
    const { capsule, clock } = makeCapsule({ tickMode: 'fixed' });
    const agent = await connectInProcess(capsule, { character: 'hero', agentModel: { class: 'edge_small' }, subscriptions: ['state_change'] });
    const payload = { entity: 'door', field: 'open', value: true };
    const heard: unknown[] = [];
    agent.on('state_change', (change) => heard.push(change));
    capsule.emit('state_change', payload);
    await pass(clock, 100);
    expect(heard).toHaveLength(1);
    expect(heard[0]).toBe(payload); // the very object: no copy, no envelope
    const whole: unknown[] = [];
    agent.on('event', (message) => whole.push(message));
    capsule.emit('state_change', { ...payload, value: false });
    await pass(clock, 100);
    expect(whole).toEqual([expect.objectContaining({ protocol: 'aicc/0.1', type: 'event', session_id: agent.sessionId, topic: 'state_change' })]);
    expect((whole[0] as { message_id: string }).message_id).toMatch(/^[0-9a-f-]{24}[0-9a-f]{12}$/);
  });

  it('works through an opener that wraps the link (as the Phaser plugin meters it): a link of message objects, whole events', async () => {
    const { capsule, clock } = makeCapsule({ tickMode: 'event' });
    capsule.registerTool(echoTool);
    let framesIn = 0;
    let framesOut = 0;
    const opener: SessionOpener = {
      clock: capsule.clock,
      connect: (link, options) =>
        capsule.connect(
          wrapLink(link, {
            send: (frame, send) => (framesOut++, send(frame)),
            message: (frame, deliver) => (framesIn++, deliver(frame)),
          }),
          options,
        ),
    };
    const agent = await connectInProcess(opener, { character: 'hero', agentModel: { class: 'edge_small' }, subscriptions: ['agent_message'] });
    const heard: unknown[] = [];
    agent.on('event', (message) => heard.push(message.payload));
    capsule.emit('agent_message', { from: 'ada', text: 'hello' });
    await pass(clock, 100);
    expect(heard).toEqual([{ from: 'ada', text: 'hello' }]);
    expect(await agent.call('echo', { text: 'x' })).toMatchObject({ ok: true, output: { echo: { text: 'x' } } });
    expect(await agent.call('echo', { text: 7 })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(framesIn).toBe(2);
    expect(framesOut).toBeGreaterThanOrEqual(4); // session_init, the event, two results
  });

  it('refuses nothing it should not and closes with the capsule: the agent ends when its session does', async () => {
    const { capsule } = makeCapsule({ tickMode: 'event' });
    const agent = await connectInProcess(capsule, { character: 'hero' });
    const closed = new Promise((resolve) => agent.on('close', resolve));
    capsule.session(agent.sessionId)!.close('over');
    await expect(closed).resolves.toMatchObject({ reason: 'over' });
    expect(capsule.sessions()).toHaveLength(0);
  });
});

describe('connectInProcess, its calls taken unchecked by the bridge', () => {
  it('still refuses at the agent what the bridge would refuse at its wire: a hostile key, too deep, too large — and the handler never runs', async () => {
    const { capsule } = makeCapsule({ tickMode: 'event' });
    let ran = 0;
    capsule.registerTool({ ...echoTool, input_schema: { type: 'object' }, handler: (input) => (ran++, { echo: input }) });
    const agent = await connectInProcess(capsule, { character: 'hero' });
    let deep: JsonObject = { end: true };
    for (let i = 0; i < 40; i++) deep = { deeper: deep };
    for (const [input, kind] of [
      [JSON.parse('{"__proto__": {"polluted": true}}') as JsonObject, /forbidden|__proto__/],
      [deep, /deep/],
    ] as const) {
      const result = await agent.call('echo', input);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.message).toMatch(kind);
    }
    // Objects have no size in this process; text frames do, and the agent measures them as the bridge would.
    const texts = await connectInProcess(capsule, { character: 'scribe', codec: jsonCodec });
    const large = await texts.call('echo', { text: 'x'.repeat(300 * 1024) });
    expect(large.ok).toBe(false);
    if (!large.ok) expect(large.error.message).toMatch(/not sent, the bridge refuses it at its wire: .*(bytes|KiB)/);
    expect(ran).toBe(0);
    expect((await agent.call('echo', { text: 'fine' })).ok).toBe(true);
    expect(ran).toBe(1);
  });
});
