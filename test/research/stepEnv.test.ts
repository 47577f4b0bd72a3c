import { describe, expect, it } from 'vitest';
import { StepEnv, MAX_OBSERVED_EVENTS } from '../../src/research/stepEnv.js';
import { counterWorld } from './fixture.js';

describe('StepEnv', () => {
  it('lets the loop act through each agent’s client and pays the change in score as reward', async () => {
    const env = new StepEnv(counterWorld, { params: { agents: 3 } });
    const first = await env.reset(4);
    expect(env.agents).toEqual(['c0', 'c1', 'c2']);
    expect(first).toMatchObject({ tick: 0, done: false, rewards: { c0: 0, c1: 0, c2: 0 } });
    // Only c1 acts: its call runs at the next tick and is rewarded then.
    void env.client('c1').call('bump', {});
    const second = await env.step();
    expect(second.tick).toBe(1);
    expect(second.rewards).toEqual({ c0: 0, c1: 1, c2: 0 });
    expect(env.metrics()).toEqual({ most: 1, total: 1 });
    const third = await env.step();
    expect(third.rewards).toEqual({ c0: 0, c1: 0, c2: 0 });
    await env.close();
  });

  it('hands each agent the events it received since the last step', async () => {
    const env = new StepEnv(counterWorld);
    await env.reset(1);
    const heard: number[] = [];
    for (let i = 0; i < 20; i++) {
      const { observations } = await env.step();
      heard.push(...observations.c0!.map((event) => (event.topic === 'tick' ? (event.payload as { tick: number }).tick : -1)));
      expect(observations.c1!.length).toBe(observations.c0!.length);
    }
    // Ticks come in order, each once, none from the future.
    expect(heard.length).toBeGreaterThan(0);
    expect(heard).toEqual([...heard].sort((a, b) => a - b));
    expect(new Set(heard).size).toBe(heard.length);
    expect(Math.max(...heard)).toBeLessThanOrEqual(20);
    await env.close();
    expect(MAX_OBSERVED_EVENTS).toBeGreaterThan(0);
  });

  it('ends at the world’s stop or the tick limit, and refuses to step past it until reset', async () => {
    const env = new StepEnv(counterWorld, { maxTicks: 3 });
    await env.reset(1);
    expect((await env.step()).done).toBe(false);
    expect((await env.step()).done).toBe(false);
    const last = await env.step();
    expect(last).toMatchObject({ tick: 3, done: true, stop: 'tick_limit' });
    await expect(env.step()).rejects.toThrow(/the episode is done; call reset\(seed\)/);
    const again = await env.reset(2);
    expect(again.tick).toBe(0);
    await env.close();
  });

  it('gives the same state hash for the same seed and the same actions', async () => {
    const run = async (seed: number) => {
      const env = new StepEnv(counterWorld);
      await env.reset(seed);
      for (let i = 0; i < 10; i++) {
        if (i % 3 === 0) void env.client('c0').call('bump', {});
        await env.step();
      }
      const hash = env.stateHash();
      await env.close();
      return hash;
    };
    expect(await run(5)).toBe(await run(5));
  });

  it('says what to do when used before reset or with an unknown character', async () => {
    const env = new StepEnv(counterWorld);
    await expect(env.step()).rejects.toThrow(/StepEnv.step: call reset\(seed\) first/);
    expect(() => env.metrics()).toThrow(/StepEnv.metrics: call reset\(seed\) first/);
    await env.reset(1);
    expect(() => env.client('nobody')).toThrow(/no agent plays "nobody"; the agents are c0, c1/);
    await env.close();
    await env.close(); // twice is fine
  });
});
