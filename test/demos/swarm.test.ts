import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../src/adapters/headless/random.js';
import { BareSwarm, runBareSwarm } from '../../demos/swarm/bare.js';
import { ProtocolFloorSwarm } from '../../bench/swarm.floor.js';
import { DECISION_MS, ForagerBrain } from '../../src/worlds/swarm/policy.js';
import { buildSwarm, runSwarm } from '../../src/worlds/swarm/swarm.js';
import { SwarmWorld } from '../../src/worlds/swarm/world.js';

const SMALL = { seed: 3, ticks: 80, foragers: 12, size: 16 };

/** A world with no food and foragers placed by hand. */
function emptyWorld(size: number, places: Array<[number, number]>): SwarmWorld {
  const world = new SwarmWorld({ size, foragers: places.length, foodDensity: 0, regrowPerTick: 0 }, new SeededRandom(0));
  places.forEach(([x, y], i) => {
    world.xs[i] = x;
    world.ys[i] = y;
  });
  return world;
}

describe('swarm world', () => {
  it('senses the nearest food ring by ring, each ring in reading order, at most four cells', () => {
    const world = emptyWorld(10, [[5, 5]]);
    for (const [x, y] of [
      [9, 9],
      [7, 5],
      [5, 3],
      [4, 4],
      [6, 6],
      [5, 8],
    ])
      world.food[y! * 10 + x!] = 1;
    expect(world.sense(0, 4)).toEqual({
      at: { x: 5, y: 5 },
      food: [
        { x: 4, y: 4 },
        { x: 6, y: 6 },
        { x: 5, y: 3 },
        { x: 7, y: 5 },
      ],
    });
    expect(world.sense(0, 1).food).toEqual([
      { x: 4, y: 4 },
      { x: 6, y: 6 },
    ]);
    world.food[55] = 1;
    expect(world.sense(0, 4).food[0]).toEqual({ x: 5, y: 5 });
  });

  it('moves one step at most, and the edge is a wall', () => {
    const world = emptyWorld(4, [[0, 3]]);
    expect(world.move(0, -1, 1)).toEqual({ x: 0, y: 3 });
    expect(world.move(0, 1, -1)).toEqual({ x: 1, y: 2 });
  });

  it('eats only where there is food, and counts per forager', () => {
    const world = emptyWorld(4, [
      [1, 1],
      [2, 2],
    ]);
    world.food[5] = 1;
    expect(world.eat(0)).toEqual({ ate: true, eaten: 1 });
    expect(world.eat(0)).toEqual({ ate: false, eaten: 1 });
    expect([world.totalEaten, world.foodLeft()]).toEqual([1, 0]);
  });

  it('finds the other foragers within a radius', () => {
    const world = emptyWorld(20, [
      [5, 5],
      [9, 9],
      [10, 5],
      [1, 1],
      [5, 5],
    ]);
    expect(world.neighbours(0, 4)).toEqual([1, 3, 4]);
  });
});

describe('forager brain', () => {
  it('draws a decision time in 200..400 ms and decides only when free and that time has passed', () => {
    const brain = new ForagerBrain(new SeededRandom('b'));
    expect(brain.decisionMs).toBeGreaterThanOrEqual(DECISION_MS.min);
    expect(brain.decisionMs).toBeLessThanOrEqual(DECISION_MS.max);
    expect(brain.startsDecision(1, 100)).toBe(true);
    // Busy until its sensing comes back and the action it chose has run.
    expect(brain.startsDecision(50, 5000)).toBe(false);
    brain.choose({ at: { x: 0, y: 0 }, food: [] }, 51);
    expect(brain.startsDecision(51, 5100)).toBe(false);
    expect(brain.startsDecision(52, 5200)).toBe(true);
    brain.choose({ at: { x: 0, y: 0 }, food: [] }, 53);
    expect(brain.startsDecision(54, 5200 + brain.decisionMs - 1)).toBe(false);
    expect(brain.decisions).toBe(2);
  });

  it('eats on food, heads for the nearest food, and wanders when it sees none', () => {
    const brain = new ForagerBrain(new SeededRandom('c'));
    const at = { x: 5, y: 5 };
    expect(brain.choose({ at, food: [at, { x: 6, y: 6 }] }, 1)).toEqual({ tool: 'eat', input: {} });
    expect(brain.choose({ at, food: [{ x: 3, y: 8 }] }, 1)).toEqual({ tool: 'move', input: { dx: -1, dy: 1 } });
    const wander = brain.choose({ at, food: [] }, 1);
    expect(wander.tool).toBe('move');
  });

  it('breaks ties between equally near food with its own draw, so twins part ways', () => {
    const at = { x: 5, y: 5 };
    const food = [
      { x: 4, y: 4 },
      { x: 6, y: 4 },
      { x: 4, y: 6 },
      { x: 6, y: 6 },
    ];
    const moves = new Set(Array.from({ length: 12 }, (_, i) => JSON.stringify(new ForagerBrain(new SeededRandom(`twin ${i}`)).choose({ at, food }, 1))));
    expect(moves.size).toBeGreaterThan(1);
  });
});

describe('swarm (capsule)', () => {
  it('connects one agent per forager, with the sense, move and eat tools', async () => {
    const swarm = await buildSwarm({ seed: 1, foragers: 5, size: 10 });
    expect(swarm.capsule.sessions().map((s) => s.character)).toEqual(['forager-000', 'forager-001', 'forager-002', 'forager-003', 'forager-004']);
    expect(swarm.agents[0]!.client.manifest.tools.map((t) => t.id)).toEqual(['sense', 'move', 'eat']);
    expect(swarm.capsule.tickMode).toBe('fixed');
    swarm.capsule.dispose();
  });

  it('is reproducible: the same seed gives the same final state and the same summary', async () => {
    const first = await runSwarm(SMALL);
    const second = await runSwarm(SMALL);
    expect(second.state).toEqual(first.state);
    expect(second.summary.toJSON()).toEqual(first.summary.toJSON());
    expect(second.summary.format()).toEqual(first.summary.format());
    expect(first.result).toMatchObject({ ticks: 80, stoppedBy: 'ticks' });
    const other = await runSwarm({ ...SMALL, seed: 4 });
    expect(other.state).not.toEqual(first.state);
  });

  it('forages for real: food is eaten, neighbours hear of it, no call is refused', async () => {
    const { state, summary } = await runSwarm(SMALL);
    expect(state.tick).toBe(80);
    expect(state.totalEaten).toBeGreaterThan(0);
    expect(state.foragers.reduce((n, f) => n + f.eaten, 0)).toBe(state.totalEaten);
    expect(state.foragers.reduce((n, f) => n + f.heard, 0)).toBeGreaterThan(0);
    const json = summary.toJSON();
    expect(json.refusals.total).toBe(0);
    // One sensing per decision, one action per sensing (the last few may still be in flight).
    const decisions = state.foragers.reduce((n, f) => n + f.decisions, 0);
    expect(json.calls.byTool['sense']).toBe(decisions);
    expect((json.calls.byTool['move'] ?? 0) + (json.calls.byTool['eat'] ?? 0)).toBeGreaterThan(decisions - SMALL.foragers * 2);
    // Every forager decided every 2 to 4 ticks (its first news comes at tick 1).
    for (const forager of state.foragers) {
      expect(forager.decisions).toBeGreaterThanOrEqual(Math.floor(SMALL.ticks / 4));
      expect(forager.decisions).toBeLessThanOrEqual(Math.ceil(SMALL.ticks / 2));
    }
    expect(Object.values(json.decisionLatencyMs).every((ms) => typeof ms === 'number')).toBe(true);
  });

  it('makes the same decisions as the bare loop the bench compares it with, forager by forager', async () => {
    const { state } = await runSwarm(SMALL);
    const bare = runBareSwarm(SMALL);
    expect(bare.tick).toBe(state.tick);
    expect(bare.foragers.map((f) => f.decisions)).toEqual(state.foragers.map((f) => f.decisions));
    // The world agrees too as long as no two calls in one tick contend (the capsule runs them in
    // arrival order, the bare loop in forager order); in this small run none do.
    expect(bare).toEqual(state);
  });

  it('a BareSwarm stepped by hand equals runBareSwarm', () => {
    const swarm = new BareSwarm(SMALL);
    for (let i = 0; i < SMALL.ticks; i++) swarm.step();
    expect(swarm.state()).toEqual(runBareSwarm(SMALL));
  });

  it('the aicc/0.1 floor of the bench does the work of the bare loop exactly, forager by forager', () => {
    const floor = new ProtocolFloorSwarm(SMALL);
    for (let i = 0; i < SMALL.ticks; i++) floor.step();
    expect(floor.state()).toEqual(runBareSwarm(SMALL));
  });
});
