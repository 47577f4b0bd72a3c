import { describe, expect, it } from 'vitest';
import { IMMEDIATE_MARK } from '../../src/protocol/messages.js';
import { connectAgent, echoTool, makeCapsule, moveTool, settle } from '../helpers.js';

describe('tick modes', () => {
  describe('fixed', () => {
    it('ticks every 1000 / tickRateHz ms of stepped time and emits tick events', async () => {
      const { capsule } = makeCapsule({ tickMode: 'fixed', tickRateHz: 10 });
      const ticks: number[] = [];
      capsule.on('tick', (t) => ticks.push(t.tick));
      capsule.step(99);
      expect(ticks).toEqual([]);
      capsule.step(1);
      capsule.step(250);
      expect(ticks).toEqual([1, 2, 3]);
      expect(capsule.tick).toBe(3);
      expect(capsule.clock.now()).toBe(350);
    });

    it('holds calls until the next tick and runs them in arrival order', async () => {
      const { capsule, clock } = makeCapsule({ tickMode: 'fixed', tickRateHz: 10 });
      const order: string[] = [];
      capsule.registerTool(moveTool({ handler: (input: { x: number }) => (order.push(`move ${input.x}`), { arrived: true }) }));
      capsule.on('tick', (t) => order.push(`tick ${t.tick}`));
      const { agent } = await connectAgent(capsule, clock);
      const first = agent.call('move_to', { x: 1, y: 0 });
      const second = agent.call('move_to', { x: 2, y: 0 });
      await settle();
      expect(order).toEqual([]);
      capsule.step(100);
      expect(order).toEqual(['move 1', 'move 2', 'tick 1']);
      expect((await first).meta).toMatchObject({ tick: 1, latency_ms: 100 });
      expect((await second).ok).toBe(true);
    });

    it('refuses calls beyond the per-session queue bound as retryable', async () => {
      const { capsule, clock } = makeCapsule({ tickMode: 'fixed', callQueueSize: 2 });
      capsule.registerTool(echoTool);
      const { agent } = await connectAgent(capsule, clock);
      const calls = [1, 2, 3].map((i) => agent.call('echo', { text: `${i}` }));
      await settle();
      expect(await calls[2]).toMatchObject({ ok: false, error: { code: 'tool_unavailable', retryable: true } });
      capsule.step(100);
      expect((await calls[0])!.ok && (await calls[1])!.ok).toBe(true);
    });

    it('skips ticks beyond maxCatchUpTicks in one step instead of bursting', () => {
      const { capsule } = makeCapsule({ tickMode: 'fixed', tickRateHz: 10, maxCatchUpTicks: 3 });
      capsule.step(1000);
      expect(capsule.tick).toBe(3);
      capsule.step(100);
      expect(capsule.tick).toBe(4);
    });

    it('keeps ticking when a tick listener throws, and reports it', () => {
      const { capsule } = makeCapsule({ tickMode: 'fixed', tickRateHz: 10 });
      const errors: string[] = [];
      capsule.on('error', (e) => errors.push(e.message));
      capsule.on('tick', () => {
        throw new Error('world update failed');
      });
      capsule.step(300);
      expect(capsule.tick).toBe(3);
      expect(errors).toHaveLength(3);
    });
  });

  describe('event', () => {
    it('never ticks from time alone', () => {
      const { capsule } = makeCapsule({ tickMode: 'event' });
      capsule.step(10_000);
      expect(capsule.tick).toBe(0);
    });

    it('runs calls at once and advances one tick per successful action, not per sensor reading', async () => {
      const { capsule, clock } = makeCapsule({ tickMode: 'event' });
      capsule.registerTool(moveTool());
      capsule.registerTool(echoTool);
      const { agent } = await connectAgent(capsule, clock);
      expect((await agent.call('echo', { text: 'look' })).meta.tick).toBe(0);
      expect(capsule.tick).toBe(0);
      expect((await agent.call('move_to', { x: 1, y: 1 })).meta.tick).toBe(0);
      expect(capsule.tick).toBe(1);
      await agent.call('move_to', { x: 1 }); // refused: no tick
      expect(capsule.tick).toBe(1);
    });

    it('advances on the host trigger', () => {
      const { capsule } = makeCapsule({ tickMode: 'event' });
      capsule.trigger();
      capsule.trigger();
      expect(capsule.tick).toBe(2);
    });
  });

  describe('hybrid', () => {
    it('holds ordinary calls for the next fixed tick', async () => {
      const { capsule, clock } = makeCapsule({ tickMode: 'hybrid', tickRateHz: 10 });
      const ran: number[] = [];
      capsule.registerTool(moveTool({ handler: (i: { x: number }) => (ran.push(i.x), { arrived: true }) }));
      const { agent } = await connectAgent(capsule, clock);
      const call = agent.call('move_to', { x: 7, y: 0 });
      await settle();
      expect(ran).toEqual([]);
      capsule.step(100);
      expect(ran).toEqual([7]);
      expect((await call).meta.tick).toBe(1);
    });

    it(`evaluates a call at once when its call_id starts with "${IMMEDIATE_MARK}"`, async () => {
      const { capsule, clock } = makeCapsule({ tickMode: 'hybrid', tickRateHz: 10 });
      const ran: number[] = [];
      capsule.registerTool(moveTool({ handler: (i: { x: number }) => (ran.push(i.x), { arrived: true }) }));
      const { agent } = await connectAgent(capsule, clock);
      const result = await agent.call('move_to', { x: 3, y: 0 }, { immediate: true });
      expect(ran).toEqual([3]);
      expect(result.callId).toBe('!c1');
      expect(result.meta).toMatchObject({ tick: 0, latency_ms: 0 });
      expect(capsule.tick).toBe(0);
    });
  });
});

describe('a fixed-mode capsule nobody steps', () => {
  it('tells the host within two seconds that calls wait for a tick that does not come', async () => {
    const { makeCapsule, connectAgent, echoTool } = await import('../helpers.js');
    const { capsule, clock } = makeCapsule({ tickMode: 'fixed' });
    capsule.registerTool(echoTool);
    const errors: string[] = [];
    capsule.on('error', (error) => errors.push(`${error.code}: ${error.message}`));
    const { agent } = await connectAgent(capsule, clock);
    void agent.call('echo', { text: 'waiting' });
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(1999);
    expect(errors).toEqual([]);
    clock.advance(1);
    expect(errors).toEqual([expect.stringMatching(/^clock_stalled: capsule: calls have waited 2000 ms for a tick in fixed mode, but nothing steps the capsule; call capsule\.step/)]);
  });

  it('says nothing when the capsule is stepped', async () => {
    const { makeCapsule, connectAgent, echoTool } = await import('../helpers.js');
    const { capsule, clock } = makeCapsule({ tickMode: 'fixed' });
    capsule.registerTool(echoTool);
    const errors: string[] = [];
    capsule.on('error', (error) => errors.push(error.code));
    const { agent } = await connectAgent(capsule, clock);
    const call = agent.call('echo', { text: 'served' });
    await new Promise((resolve) => setImmediate(resolve));
    capsule.step(100);
    expect((await call).ok).toBe(true);
    capsule.step(3000);
    expect(errors).toEqual([]);
  });
});
