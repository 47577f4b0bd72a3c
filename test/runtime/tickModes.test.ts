import { describe, expect, it } from 'vitest';
import { IMMEDIATE_MARK } from '../../src/protocol/messages.js';
import { STALL_WARNING_MS } from '../../src/runtime/capsule.js';
import { ManualClock } from '../../src/base/clock.js';
import type { HostError } from '../../src/runtime/calls.js';
import type { CapsuleOptions } from '../../src/runtime/options.js';
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
  /** A fixed-mode capsule with an agent; `call()` sends one echo call and lets it reach the capsule. */
  async function unstepped(options: Partial<CapsuleOptions> = {}) {
    const { capsule, clock } = makeCapsule({ tickMode: 'fixed', ...options });
    capsule.registerTool(echoTool);
    const errors: HostError[] = [];
    capsule.on('error', (error) => errors.push(error));
    // The agent keeps its own clock: the capsule's holds only the capsule's timers.
    const { agent } = await connectAgent(capsule, new ManualClock());
    const call = async (): Promise<void> => {
      void agent.call('echo', { text: 'waiting' }).catch(() => {});
      await settle();
    };
    return { capsule, clock, errors, call };
  }

  it('tells the host within two seconds that calls wait for a tick that does not come, and how to drive it', async () => {
    const { clock, errors, call } = await unstepped();
    await call();
    clock.advance(1999); // wall time passing: nothing steps the capsule
    expect(errors).toEqual([]);
    clock.advance(1);
    expect(errors.map((error) => error.code)).toEqual(['clock_stalled']);
    expect(errors[0]!.message).toBe(
      "capsule: calls wait for a tick in fixed mode, and none has come for 2000 ms: nothing steps the capsule. Call capsule.step(deltaMs) from your game loop, or start a clock driver, startDriver(capsule) (animation frames on a page, a timer elsewhere; a world that moves only when its characters act wants tickMode 'event')",
    );
  });

  it('tells it once, however many calls go on waiting', async () => {
    const { clock, errors, call } = await unstepped();
    for (let second = 0; second < 30; second++) {
      await call();
      clock.advance(1000);
    }
    expect(errors.map((error) => error.code)).toEqual(['clock_stalled']);
  });

  it('says nothing when the capsule is stepped', async () => {
    const { capsule, errors } = await unstepped();
    const { agent } = await connectAgent(capsule, new ManualClock());
    const call = agent.call('echo', { text: 'served' });
    await settle();
    capsule.step(100);
    expect((await call).ok).toBe(true);
    capsule.step(3000);
    expect(errors).toEqual([]);
  });

  it('a capsule stepped all along, with calls waiting at every tick, is never told, and pays a timer per two seconds, not one per call', async () => {
    const { capsule, clock, errors, call } = await unstepped();
    // The watch's timers: 2 s less the time since the last tick (here at most 100 ms). The session's
    // own timers (heartbeats, deliveries) have other delays.
    let watches = 0;
    const setTimeout = clock.setTimeout.bind(clock);
    clock.setTimeout = (callback, delayMs) => {
      if (delayMs >= STALL_WARNING_MS - 100 && delayMs <= STALL_WARNING_MS) watches++;
      return setTimeout(callback, delayMs);
    };
    for (let tick = 0; tick < 200; tick++) {
      await call();
      capsule.step(100);
    }
    expect(capsule.tick).toBe(200);
    expect(errors).toEqual([]);
    expect(watches).toBeGreaterThan(0);
    expect(watches).toBeLessThanOrEqual(20_000 / (STALL_WARNING_MS - 100) + 1);
  });

  it('a capsule that stops being stepped is told two seconds after its last tick, even when that came just before the watch looked', async () => {
    const { capsule, clock, errors, call } = await unstepped();
    await call(); // the watch starts at 0 and looks at 2000
    for (let tick = 0; tick < 19; tick++) capsule.step(100); // the last tick at 1900
    await call(); // waits for a tick at 2000 that never comes: the game stopped stepping
    clock.advance(1999);
    expect(errors).toEqual([]);
    clock.advance(1);
    expect(errors.map((error) => error.code)).toEqual(['clock_stalled']);
  });

  it('under 1 Hz, calls wait two tick intervals before the host hears of it', async () => {
    const { capsule, clock, errors, call } = await unstepped({ tickRateHz: 0.25 });
    for (let tick = 0; tick < 10; tick++) {
      await call();
      capsule.step(4000); // one tick every 4 s, as it should
    }
    expect(errors).toEqual([]);
    await call();
    clock.advance(7999);
    expect(errors).toEqual([]);
    clock.advance(1);
    expect(errors.map((error) => error.message)).toEqual([expect.stringContaining('none has come for 8000 ms')]);
  });

  it('a hybrid capsule is told too; a disposed one is not', async () => {
    const hybrid = await unstepped({ tickMode: 'hybrid' });
    await hybrid.call();
    hybrid.clock.advance(2000);
    expect(hybrid.errors.map((error) => error.message)).toEqual([expect.stringContaining('for a tick in hybrid mode, and none has come')]);

    const gone = await unstepped();
    await gone.call();
    gone.capsule.dispose();
    gone.clock.advance(10_000);
    expect(gone.errors).toEqual([]);
  });
});
