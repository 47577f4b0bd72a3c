// The swarm without the capsule: the same world, the same forager brains, the same timing — calls
// made on one tick's news run at the next tick, actions before observations — but each "call" is a
// plain method call. No protocol, no links, no schemas, no limits, no events.
// The bench's baseline. A test checks that it makes the same decisions as the capsule run.

import { SeededRandom } from '../../src/adapters/headless/random.js';
import { ForagerBrain, SENSE_RADIUS, type Action } from '../../src/worlds/swarm/policy.js';
import { swarmState, worldConfig, type SwarmState, type WorldOptions } from '../../src/worlds/swarm/state.js';
import { HEARING_RADIUS, SwarmWorld } from '../../src/worlds/swarm/world.js';

export class BareSwarm {
  readonly world: SwarmWorld;
  tick = 0;
  protected readonly minds: Array<{ brain: ForagerBrain; heard: number }>;
  private readonly intervalMs: number;
  private actions: Array<{ forager: number; action: Action }> = [];
  private observations: number[] = [];

  /** Seeded exactly as buildSwarm seeds the capsule's swarm: same layout, same brains. */
  constructor(options: WorldOptions = {}) {
    const random = new SeededRandom(options.seed ?? 1);
    const config = worldConfig(options);
    this.world = new SwarmWorld(config, random.fork('world'));
    this.minds = Array.from({ length: config.foragers }, (_, i) => ({ brain: new ForagerBrain(random.fork(`forager ${i}`)), heard: 0 }));
    this.intervalMs = 1000 / (options.tickRateHz ?? 10);
  }

  /** One tick: the calls due run, the world regrows, the foragers hear of the tick. */
  step(): void {
    const tick = ++this.tick;
    const actions = this.actions;
    const observations = this.observations;
    this.actions = [];
    this.observations = [];
    for (const { forager, action } of actions) this.act(forager, action);
    for (const forager of observations) this.actions.push({ forager, action: this.observe(forager, tick) });
    this.world.regrow();
    const timeMs = tick * this.intervalMs;
    for (let forager = 0; forager < this.minds.length; forager++) {
      this.hearTick(forager, tick, timeMs);
      if (this.minds[forager]!.brain.startsDecision(tick, timeMs)) this.observations.push(forager);
    }
  }

  /** A forager's move or meal; neighbours hear of a meal. */
  protected act(forager: number, action: Action): void {
    if (action.tool === 'move') {
      this.world.move(forager, action.input.dx, action.input.dy);
    } else if (this.world.eat(forager).ate) {
      for (const near of this.world.neighbours(forager, HEARING_RADIUS)) this.hearMeal(near, forager);
    }
  }

  /** A forager senses and picks its next action. */
  protected observe(forager: number, tick: number): Action {
    return this.minds[forager]!.brain.choose(this.world.sense(forager, SENSE_RADIUS), tick);
  }

  /** A forager hears that a tick passed: nothing to do without a protocol (bench/swarm.floor.ts adds one). */
  protected hearTick(_forager: number, _tick: number, _timeMs: number): void {}

  /** A forager hears that a neighbour ate. */
  protected hearMeal(forager: number, _eater: number): void {
    this.minds[forager]!.heard++;
  }

  state(): SwarmState {
    return swarmState(this.tick, this.world, this.minds);
  }
}

/** Runs the bare swarm for `ticks` and returns its final state. */
export function runBareSwarm(options: WorldOptions & { ticks: number }): SwarmState {
  const swarm = new BareSwarm(options);
  for (let i = 0; i < options.ticks; i++) swarm.step();
  return swarm.state();
}
