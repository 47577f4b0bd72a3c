import { describe, expect, it } from 'vitest';
import { createYield, runHeadless, yieldToAgents } from '../../../src/adapters/headless/runner.js';
import { createCapsule } from '../../../src/runtime/capsule.js';
import { CapsuleError } from '../../../src/base/errors.js';
import type { ToolDefinition } from '../../../src/runtime/tool.js';
import { ajvValidators } from '../../../src/validators/ajv.js';
import { connectAgent, makeCapsule } from '../../helpers.js';

/** A sensor recording the tick each call ran at. */
function pingTool(ranAt: number[]): ToolDefinition {
  return {
    id: 'ping',
    class: 'sensor',
    description: 'Answers pong.',
    input_schema: { type: 'object', properties: {} },
    output_schema: { type: 'object', properties: { tick: { type: 'integer' } }, required: ['tick'] },
    handler: (_input, context) => {
      ranAt.push(context.tick);
      return { tick: context.tick };
    },
  };
}

/** A fake wall clock that moves `stepMs` each time it is read. */
function fakeNow(stepMs: number): () => number {
  let time = 1000;
  return () => (time += stepMs);
}

describe('runHeadless', () => {
  it('steps the capsule one tick interval at a time and reports the run', async () => {
    const { capsule, clock } = makeCapsule({ tickMode: 'fixed', tickRateHz: 20 });
    const seen: number[] = [];
    const result = await runHeadless({ capsule, ticks: 7, onTick: (tick) => void seen.push(tick), now: fakeNow(5) });
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(capsule.tick).toBe(7);
    expect(clock.now()).toBe(350);
    // now() is read at the start and the end only (no progress asked for): 5 ms of fake wall time.
    expect(result).toEqual({ ticks: 7, wallMs: 5, ticksPerSecond: 1400, stoppedBy: 'ticks' });
  });

  it('lets in-process agents react between ticks: a call made on tick news runs at the next tick', async () => {
    const { capsule, clock } = makeCapsule({ tickMode: 'fixed', tickRateHz: 10 });
    const ranAt: number[] = [];
    capsule.registerTool(pingTool(ranAt));
    const { agent } = await connectAgent(capsule, clock, { agentModel: { class: 'edge_small' }, subscriptions: ['tick'] });
    const answered: number[] = [];
    agent.on('tick', () => void agent.call('ping').then((outcome) => outcome.ok && answered.push(Number(outcome.output['tick']))));
    await runHeadless({ capsule, ticks: 5 });
    expect(ranAt).toEqual([2, 3, 4, 5]);
    // Each result reached the agent before the run went on.
    expect(answered).toEqual([2, 3, 4, 5]);
  });

  for (const tickRateHz of [10, 0.25]) {
    it(`steps a fixed-mode capsule at ${tickRateHz} Hz: calls waiting at every tick are served, and the host never hears clock_stalled`, async () => {
      const { capsule, clock } = makeCapsule({ tickMode: 'fixed', tickRateHz });
      const ranAt: number[] = [];
      capsule.registerTool(pingTool(ranAt));
      const errors: string[] = [];
      capsule.on('error', (error) => errors.push(error.code));
      const { agent } = await connectAgent(capsule, clock, { agentModel: { class: 'edge_small' }, subscriptions: ['tick'] });
      agent.on('tick', () => void agent.call('ping'));
      await runHeadless({ capsule, ticks: 300 });
      expect(ranAt).toHaveLength(299);
      expect(errors).toEqual([]);
    });
  }

  it('awaits an async onTick before the next step', async () => {
    const { capsule } = makeCapsule({ tickMode: 'fixed' });
    const log: string[] = [];
    capsule.on('tick', ({ tick }) => log.push(`tick ${tick}`));
    await runHeadless({
      capsule,
      ticks: 2,
      onTick: async (tick) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        log.push(`done ${tick}`);
      },
    });
    expect(log).toEqual(['tick 1', 'done 1', 'tick 2', 'done 2']);
  });

  it('stops when stopWhen says so', async () => {
    const { capsule } = makeCapsule({ tickMode: 'fixed' });
    const result = await runHeadless({ capsule, ticks: 100, stopWhen: (tick) => tick === 3 });
    expect(result.ticks).toBe(3);
    expect(result.stoppedBy).toBe('condition');
    expect(capsule.tick).toBe(3);
  });

  it('runs zero ticks when asked to', async () => {
    const { capsule } = makeCapsule({ tickMode: 'fixed' });
    expect(await runHeadless({ capsule, ticks: 0, now: () => 0 })).toEqual({ ticks: 0, wallMs: 0, ticksPerSecond: 0, stoppedBy: 'ticks' });
  });

  it('works in hybrid mode, where immediate calls run between ticks', async () => {
    const { capsule, clock } = makeCapsule({ tickMode: 'hybrid', tickRateHz: 10 });
    const ranAt: number[] = [];
    capsule.registerTool(pingTool(ranAt));
    const { agent } = await connectAgent(capsule, clock, { agentModel: { class: 'edge_small' }, subscriptions: ['tick'] });
    agent.on('tick', () => void agent.call('ping', {}, { immediate: true }));
    await runHeadless({ capsule, ticks: 3 });
    // Each immediate call ran within the tick whose news prompted it.
    expect(ranAt).toEqual([1, 2, 3]);
  });

  it('reports progress about ten times a second of wall time, and once at the end', async () => {
    const { capsule } = makeCapsule({ tickMode: 'fixed' });
    const reports: Array<[number, number]> = [];
    // Each read of the fake clock moves it 30 ms: a report is due every fourth tick.
    await runHeadless({ capsule, ticks: 10, progress: (done, total) => reports.push([done, total]), now: fakeNow(30) });
    expect(reports).toEqual([
      [4, 10],
      [8, 10],
      [10, 10],
    ]);
  });

  it('refuses a capsule on wall time, saying why and what to do', async () => {
    const capsule = createCapsule({ world: { name: 'Live', kind: 'abstract' }, validators: ajvValidators(), tickMode: 'fixed' });
    const run = runHeadless({ capsule, ticks: 1 });
    await expect(run).rejects.toThrow(CapsuleError);
    await expect(run).rejects.toMatchObject({
      code: 'AICC_INVALID_OPTION',
      message: expect.stringMatching(/runHeadless: .*wall time.*clock: new ManualClock\(\)/),
    });
    capsule.dispose();
  });

  it('refuses an event-mode capsule: there is nothing to step', async () => {
    const { capsule } = makeCapsule({ tickMode: 'event' });
    await expect(runHeadless({ capsule, ticks: 1 })).rejects.toMatchObject({
      code: 'AICC_INVALID_OPTION',
      message: expect.stringMatching(/'event' tick mode.*nothing to step.*'fixed' or 'hybrid'/),
    });
  });

  it('refuses a tick count that is not a whole number >= 0', async () => {
    const { capsule } = makeCapsule({ tickMode: 'fixed' });
    for (const ticks of [-1, 1.5, Number.NaN]) {
      await expect(runHeadless({ capsule, ticks })).rejects.toMatchObject({
        code: 'AICC_INVALID_OPTION',
        message: expect.stringMatching(/runHeadless: ticks must be/),
      });
    }
  });
});

describe('yieldToAgents', () => {
  it('resolves only after chains of microtasks have all run', async () => {
    let depth = 0;
    const chain = (left: number): void => {
      if (left === 0) return;
      queueMicrotask(() => {
        depth++;
        chain(left - 1);
      });
    };
    chain(500);
    await yieldToAgents();
    expect(depth).toBe(500);
  });

  it('uses setImmediate when there is one', async () => {
    const used: string[] = [];
    const wait = createYield({ setImmediate: (callback) => (used.push('immediate'), setImmediate(callback)), setTimeout: () => used.push('timeout') });
    await wait();
    expect(used).toEqual(['immediate']);
  });

  it('falls back to one MessageChannel, waking waiters in order', async () => {
    let channels = 0;
    class FakeChannel {
      port1: { onmessage: ((event: unknown) => void) | null } = { onmessage: null };
      port2 = { postMessage: () => setTimeout(() => this.port1.onmessage?.({}), 0) };
      constructor() {
        channels++;
      }
    }
    const wait = createYield({ MessageChannel: FakeChannel, setTimeout: () => expect.unreachable('setTimeout is not needed') });
    const order: number[] = [];
    await Promise.all([wait().then(() => order.push(1)), wait().then(() => order.push(2))]);
    await wait();
    expect(order).toEqual([1, 2]);
    expect(channels).toBe(1);
  });

  it('falls back to setTimeout(0), and refuses a platform with none of the three', async () => {
    const delays: number[] = [];
    await createYield({ setTimeout: (callback, ms) => (delays.push(ms), setTimeout(callback, ms)) })();
    expect(delays).toEqual([0]);
    expect(() => createYield({})).toThrow(/yieldToAgents: this platform has no setImmediate, MessageChannel or setTimeout/);
  });
});
