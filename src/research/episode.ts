// One episode of a world, start to end: set up from the seed, the world's own agents connected
// in-process and started, simulated time stepped as fast as the machine allows, then measured and
// hashed. Everything in the summary but `wallMs` is a function of (world, seed, params), so two
// runs, two machines or two worker counts agree on it byte for byte.

import { CapsuleError } from '../base/errors.js';
import { SeededRandom } from '../adapters/headless/random.js';
import { runHeadless } from '../adapters/headless/runner.js';
import { RunSummary, type RunSummaryJSON } from '../adapters/headless/summary.js';
import type { AgentClient } from '../agent/agentClient.js';
import { connectInProcess } from '../agent/inProcess.js';
import { stateHash } from './stateHash.js';
import type { EpisodeWorld, ParamValue, Params, World } from './world.js';

export interface EpisodeOptions {
  /** A whole number: the same seed and params give the same episode. */
  seed: number;
  /** Overrides of the world's defaults; strings are read as the default's type. */
  params?: Readonly<Record<string, ParamValue>>;
  /** Default: the world's maxTicks. */
  maxTicks?: number;
  /** Also hash the state every `hashEvery` ticks (tick K, 2K, …), for finding where two runs part. */
  hashEvery?: number;
  /** Wall time in ms, for `wallMs` only. Default performance.now. */
  now?: () => number;
}

/** Why an episode ended: the world's own reason, or 'tick_limit' when its ticks ran out. */
export type EpisodeStop = string;

export interface EpisodeSummary<P extends Params = Params> {
  world: string;
  seed: number;
  params: P;
  stop: EpisodeStop;
  ticks: number;
  metrics: Record<string, number>;
  /** Each agent's final score, when the world scores its agents. */
  scores: Record<string, number>;
  calls: RunSummaryJSON['calls'];
  refusals: RunSummaryJSON['refusals'];
  /** Per character, on the simulated clock; null when it never decided after news. */
  decisionLatencyMs: RunSummaryJSON['decisionLatencyMs'];
  /** The hash of the world's declared state at the end (stateHash). */
  stateHash: string;
  /** With `hashEvery`: the state hash at every K-th tick. */
  hashes?: Array<{ tick: number; hash: string }>;
  /** The only field that varies between runs of the same episode. */
  wallMs: number;
}

/** Sets a world's episode up from the seed: its capsule, its world and the random source it was given. */
export async function setUpEpisode<P extends Params>(world: World<P>, seed: number, params: P): Promise<{ episode: EpisodeWorld; random: SeededRandom }> {
  if (!Number.isSafeInteger(seed))
    throw new CapsuleError('AICC_INVALID_OPTION', `world ${JSON.stringify(world.name)}: the seed must be a whole number, got ${seed}`);
  const random = new SeededRandom(seed);
  const episode = await world.setup({ seed, params, random: random.fork('world') });
  if (episode?.capsule === undefined || episode.agents === null || typeof episode.agents !== 'object') {
    throw new CapsuleError('AICC_INVALID_OPTION', `world ${JSON.stringify(world.name)}: setup must return { capsule, agents, metrics, state, … }`);
  }
  return { episode, random };
}

/** Connects an agent to each of the episode's characters (but `remote`, whose agent comes over a link of its own), in the order the world lists them. */
export async function connectAgents(episode: EpisodeWorld, random: SeededRandom, remote?: string): Promise<Map<string, AgentClient>> {
  const clients = new Map<string, AgentClient>();
  for (const [character, session] of Object.entries(episode.agents)) {
    if (character === remote) continue;
    const client = await connectInProcess(episode.capsule, {
      ...session,
      character,
      agent: { clock: episode.capsule.clock, randomBytes: random.fork(`agent ids:${character}`).bytes },
    });
    clients.set(character, client);
  }
  return clients;
}

/** Closes the agents, then the capsule, then the world. */
export async function closeEpisode(episode: EpisodeWorld, clients: Map<string, AgentClient>, reason: string): Promise<void> {
  for (const client of clients.values()) await client.close(reason);
  episode.capsule.dispose(reason);
  episode.dispose?.();
}

/** Each agent's score, by character in code-point order (so the JSON is the same on every run). */
export function scoresOf(episode: EpisodeWorld): Record<string, number> {
  const scores: Record<string, number> = {};
  if (episode.score === undefined) return scores;
  for (const character of Object.keys(episode.agents).sort()) scores[character] = episode.score(character);
  return scores;
}

/**
 * Runs one episode of `world` with its own agents and returns what it measured.
 *
 * @example
 * const summary = await runEpisode(villageWorld, { seed: 7, params: { dayTicks: 190 } });
 * console.log(summary.stop, summary.ticks, summary.metrics, summary.stateHash);
 */
export async function runEpisode<P extends Params>(world: World<P>, options: EpisodeOptions): Promise<EpisodeSummary<P>> {
  const params = world.resolveParams(options.params);
  const maxTicks = options.maxTicks ?? world.maxTicks;
  const hashEvery = options.hashEvery;
  if (hashEvery !== undefined && !(Number.isInteger(hashEvery) && hashEvery >= 1)) {
    throw new CapsuleError('AICC_INVALID_OPTION', `runEpisode: hashEvery must be a whole number >= 1, got ${hashEvery}`);
  }
  const now = options.now ?? (() => globalThis.performance.now());
  const started = now();
  const { episode, random } = await setUpEpisode(world, options.seed, params);
  const summary = new RunSummary(episode.capsule);
  const clients = await connectAgents(episode, random);
  for (const [character, client] of clients) episode.policy?.({ character, client, random: random.fork(`policy:${character}`) });

  let stop: EpisodeStop = 'tick_limit';
  const hashes: Array<{ tick: number; hash: string }> = [];
  const result = await runHeadless({
    capsule: episode.capsule,
    ticks: maxTicks,
    ...(hashEvery !== undefined && { onTick: (tick: number) => void (tick % hashEvery === 0 && hashes.push({ tick, hash: stateHash(episode.state()) })) }),
    stopWhen: () => {
      const reason = episode.stop?.();
      if (reason !== undefined) stop = reason;
      return reason !== undefined;
    },
  });
  const out = episodeSummary(world.name, episode, {
    seed: options.seed,
    params,
    stop,
    ticks: result.ticks,
    measured: summary.toJSON(),
    ...(hashEvery !== undefined && { hashes }),
  });
  summary.detach();
  await closeEpisode(episode, clients, 'episode over');
  out.wallMs = now() - started;
  return out;
}

/** What every runner reports of an episode that has run: the world's measures and state, and the capsule's counts. */
export function episodeSummary<P extends Params>(
  world: string,
  episode: EpisodeWorld,
  run: { seed: number; params: P; stop: EpisodeStop; ticks: number; measured: RunSummaryJSON; hashes?: Array<{ tick: number; hash: string }> },
): EpisodeSummary<P> {
  return {
    world,
    seed: run.seed,
    params: run.params,
    stop: run.stop,
    ticks: run.ticks,
    metrics: sortedMetrics(episode.metrics()),
    scores: scoresOf(episode),
    calls: run.measured.calls,
    refusals: run.measured.refusals,
    decisionLatencyMs: run.measured.decisionLatencyMs,
    stateHash: stateHash(episode.state()),
    ...(run.hashes !== undefined && { hashes: run.hashes }),
    wallMs: 0,
  };
}

/** Metrics by name in code-point order, each checked to be a finite number. */
export function sortedMetrics(metrics: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of Object.keys(metrics).sort()) {
    const value = metrics[name]!;
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw new CapsuleError('AICC_INVALID_OPTION', `metric ${JSON.stringify(name)} must be a finite number, got ${String(value)}`);
    out[name] = value;
  }
  return out;
}
