// The step API, for researchers who bring their own agent loop (in the spirit of PettingZoo's
// parallel API): `reset(seed)` sets an episode up and connects a client to each of the world's
// characters; between steps the loop reads what each agent observed and calls tools through its
// client; `step()` advances the world one tick and returns each agent's new observations and its
// reward (the change in its score). The world's own agents are not started: the loop is the policy.

import { CapsuleError } from '../base/errors.js';
import { yieldToAgents } from '../adapters/headless/runner.js';
import type { AgentClient } from '../agent/agentClient.js';
import type { EventMessage } from '../protocol/messages.js';
import { isSteppedClock } from '../base/clock.js';
import { closeEpisode, connectAgents, setUpEpisode, sortedMetrics } from './episode.js';
import { stateHash } from './stateHash.js';
import type { EpisodeWorld, ParamValue, Params, VectorFace, World } from './world.js';

/** Most events kept per agent between two steps; the oldest go first (an agent that never reads them). */
export const MAX_OBSERVED_EVENTS = 1024;

export interface StepEnvOptions {
  params?: Readonly<Record<string, ParamValue>>;
  /** Default: the world's maxTicks; `done` turns true once the episode has run this many ticks. */
  maxTicks?: number;
  /**
   * The characters the loop plays. Default: every one. The others are played by the world's own
   * policy (as in runEpisode), so a loop may take one seat of a populated world.
   */
  controlled?: readonly string[];
}

export interface StepResult {
  tick: number;
  /** Per character: the events it received since the last step (or since reset), oldest first. */
  observations: Record<string, EventMessage[]>;
  /** Per character: the change in its score since the last step (0 when the world keeps no score). */
  rewards: Record<string, number>;
  /** True once the world says stop or the ticks ran out; step() then refuses until the next reset. */
  done: boolean;
  /** Why the episode ended, when done: the world's reason or 'tick_limit'. */
  stop?: string;
}

interface Running {
  episode: EpisodeWorld;
  /** The loop's characters. */
  clients: Map<string, AgentClient>;
  /** Every character's client, the policy's included: all are closed with the episode. */
  all: Map<string, AgentClient>;
  inbox: Map<string, EventMessage[]>;
  scores: Map<string, number>;
  done: boolean;
}

export class StepEnv<P extends Params = Params> {
  private running: Running | undefined;
  private readonly params: P;
  private readonly maxTicks: number;
  private readonly controlled: ReadonlySet<string> | undefined;

  constructor(
    readonly world: World<P>,
    options: StepEnvOptions = {},
  ) {
    this.params = world.resolveParams(options.params);
    this.maxTicks = options.maxTicks ?? world.maxTicks;
    if (options.controlled !== undefined) this.controlled = new Set(options.controlled);
  }

  /** The characters of the current episode, in the world's order. */
  get agents(): string[] {
    return [...(this.running?.clients.keys() ?? [])];
  }

  /** The client of a character: call its tools with `client(character).call(tool, input)`. */
  client(character: string): AgentClient {
    const client = this.running?.clients.get(character);
    if (client === undefined)
      throw new CapsuleError(
        'AICC_INVALID_OPTION',
        `StepEnv.client: no agent plays ${JSON.stringify(character)}${this.running === undefined ? '; call reset(seed) first' : `; the agents are ${this.agents.join(', ')}`}`,
      );
    return client;
  }

  /** Ends the current episode, if any, and sets up a new one from `seed`. */
  async reset(seed: number): Promise<StepResult> {
    await this.close();
    const { episode, random } = await setUpEpisode(this.world, seed, this.params);
    if (!isSteppedClock(episode.capsule.clock))
      throw new CapsuleError('AICC_INVALID_OPTION', `StepEnv: world ${JSON.stringify(this.world.name)} must build its capsule on a ManualClock`);
    const all = await connectAgents(episode, random);
    const unknown = [...(this.controlled ?? [])].filter((character) => !all.has(character));
    if (unknown.length > 0) {
      await closeEpisode(episode, all, 'episode refused');
      throw new CapsuleError(
        'AICC_INVALID_OPTION',
        `StepEnv.reset: no character ${JSON.stringify(unknown[0])} in world ${JSON.stringify(this.world.name)}; it has ${[...all.keys()].join(', ')}`,
      );
    }
    // The seats the loop does not take, the world's own policy plays (seeded as runEpisode seeds it).
    const clients = new Map<string, AgentClient>();
    for (const [character, client] of all) {
      if (this.controlled === undefined || this.controlled.has(character)) clients.set(character, client);
      else episode.policy?.({ character, client, random: random.fork(`policy:${character}`) });
    }
    const inbox = new Map<string, EventMessage[]>();
    for (const [character, client] of clients) {
      const events: EventMessage[] = [];
      inbox.set(character, events);
      client.on('event', (event) => {
        if (events.push(event) > MAX_OBSERVED_EVENTS) events.shift();
      });
    }
    const scores = new Map([...clients.keys()].map((character) => [character, episode.score?.(character) ?? 0]));
    this.running = { episode, clients, all, inbox, scores, done: false };
    await yieldToAgents();
    return this.result(undefined);
  }

  /** Runs the calls the loop made, advances the world one tick and lets every agent hear of it. */
  async step(): Promise<StepResult> {
    const running = this.running;
    if (running === undefined) throw new CapsuleError('AICC_INVALID_OPTION', 'StepEnv.step: call reset(seed) first');
    if (running.done) throw new CapsuleError('AICC_INVALID_OPTION', 'StepEnv.step: the episode is done; call reset(seed) for the next one');
    const capsule = running.episode.capsule;
    // Calls made since the last step are waiting for this tick; their results arrive before step resolves.
    await yieldToAgents();
    capsule.step(1000 / capsule.tickRateHz);
    await yieldToAgents();
    const reason = running.episode.stop?.() ?? (capsule.tick >= this.maxTicks ? 'tick_limit' : undefined);
    if (reason !== undefined) running.done = true;
    return this.result(reason);
  }

  /** The world's metrics now. */
  metrics(): Record<string, number> {
    return sortedMetrics(this.current('metrics').metrics());
  }

  /** The world's numeric face in the current episode, when it declares one (see VectorFace). */
  vectors(): VectorFace | undefined {
    return this.current('vectors').vectors;
  }

  /** The hash of the world's declared state now (see stateHash). */
  stateHash(): string {
    return stateHash(this.current('stateHash').state());
  }

  /** Ends the current episode: closes the agents, the capsule and the world. Safe to call twice. */
  async close(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    if (running !== undefined) await closeEpisode(running.episode, running.all, 'episode reset');
  }

  private current(what: string): EpisodeWorld {
    if (this.running === undefined) throw new CapsuleError('AICC_INVALID_OPTION', `StepEnv.${what}: call reset(seed) first`);
    return this.running.episode;
  }

  private result(stop: string | undefined): StepResult {
    const { episode, inbox, scores, done } = this.running!;
    const observations: Record<string, EventMessage[]> = {};
    const rewards: Record<string, number> = {};
    for (const [character, events] of inbox) {
      observations[character] = events.splice(0);
      const score = episode.score?.(character) ?? 0;
      rewards[character] = score - scores.get(character)!;
      scores.set(character, score);
    }
    return { tick: episode.capsule.tick, observations, rewards, done, ...(stop !== undefined && { stop }) };
  }
}
