// The swarm: a headless stress world. A grid with regrowing food and a population of foragers, each
// driven by its own scripted agent speaking aicc/0.1 over a memory link in this process. Every
// random draw comes from one seed, split by label, so a run is reproducible from the seed alone.

import { connectInProcess } from '../../agent/inProcess.js';
import { SeededRandom } from '../../adapters/headless/random.js';
import { runHeadless, type HeadlessResult } from '../../adapters/headless/runner.js';
import { RunSummary } from '../../adapters/headless/summary.js';
import { jsonCodec, type Codec } from '../../protocol/codec.js';
import { createCapsule, type Capsule } from '../../runtime/capsule.js';
import { ManualClock } from '../../base/clock.js';
import type { ConnectOptions } from '../../runtime/options.js';
import type { ValidatorFactory } from '../../runtime/validator.js';
import { ajvValidators } from '../../validators/ajv.js';
import { ForagerAgent } from './agent.js';
import { ForagerBrain } from './policy.js';
import { foragerName } from './names.js';
import { swarmState, worldConfig, type SwarmState, type WorldOptions } from './state.js';
import { registerSwarmTools } from './tools.js';
import { SwarmWorld } from './world.js';

export interface SwarmOptions extends WorldOptions {
  /** Default ajvValidators(). */
  validators?: ValidatorFactory;
  /** The codec of every forager's link. Default jsonCodec; objectCodec skips encoding in-process. */
  codec?: Codec;
}

export interface Swarm {
  capsule: Capsule;
  clock: ManualClock;
  world: SwarmWorld;
  agents: ForagerAgent[];
  state(): SwarmState;
}

/** The session of every forager: it smells food, walks and eats, and hears ticks and neighbours' meals. */
export const FORAGER_SESSION = {
  capabilities: { sensors: ['smell'], actuators: ['legs', 'mouth'] },
  agentModel: { class: 'edge_medium' },
  subscriptions: ['tick', 'state_change'],
} as const satisfies Omit<ConnectOptions, 'character'>;

/** The world and its capsule, with the swarm's tools and regrowth, before any forager connects. */
export function buildSwarmCapsule(options: SwarmOptions, random: SeededRandom): { capsule: Capsule; clock: ManualClock; world: SwarmWorld; foragers: number } {
  const config = worldConfig(options);
  const world = new SwarmWorld(config, random.fork('world'));
  const clock = new ManualClock();
  const capsule = createCapsule({
    world: { name: 'Swarm', kind: '2d' },
    validators: options.validators ?? ajvValidators(),
    clock,
    tickMode: 'fixed',
    tickRateHz: options.tickRateHz ?? 10,
    randomBytes: random.fork('capsule ids').bytes,
  });
  registerSwarmTools(capsule, world);
  // The world's own step: after the tick's calls have run, before agents hear of the tick.
  capsule.on('tick', () => world.regrow());
  return { capsule, clock, world, foragers: config.foragers };
}

/** Builds the world and the capsule, and connects every forager's agent (resolves once all are in). */
export async function buildSwarm(options: SwarmOptions = {}): Promise<Swarm> {
  const random = new SeededRandom(options.seed ?? 1);
  const { capsule, clock, world, foragers } = buildSwarmCapsule(options, random);
  const agents: ForagerAgent[] = [];
  for (let i = 0; i < foragers; i++) {
    // The capsule is in this process: one frame a delivery, no second check (connectInProcess).
    const agent = await connectInProcess(capsule, {
      codec: options.codec ?? jsonCodec,
      character: foragerName(i),
      ...FORAGER_SESSION,
      agent: { clock, randomBytes: random.fork(`agent ids ${i}`).bytes },
    });
    agents.push(new ForagerAgent(agent, new ForagerBrain(random.fork(`forager ${i}`))));
  }
  return { capsule, clock, world, agents, state: () => swarmState(capsule.tick, world, agents) };
}

export interface SwarmRunOptions extends SwarmOptions {
  ticks: number;
  progress?: (done: number, total: number) => void;
  /** Wall time for the report. Default performance.now. */
  now?: () => number;
}

export interface SwarmRun {
  state: SwarmState;
  result: HeadlessResult;
  summary: RunSummary;
}

/** Builds a swarm, runs it headless for `ticks`, and closes it. Same seed, same state. */
export async function runSwarm(options: SwarmRunOptions): Promise<SwarmRun> {
  const swarm = await buildSwarm(options);
  const summary = new RunSummary(swarm.capsule);
  const run: Parameters<typeof runHeadless>[0] = { capsule: swarm.capsule, ticks: options.ticks };
  if (options.progress !== undefined) run.progress = options.progress;
  if (options.now !== undefined) run.now = options.now;
  const result = await runHeadless(run);
  const state = swarm.state();
  swarm.capsule.dispose('swarm run over');
  summary.detach();
  return { state, result, summary };
}
