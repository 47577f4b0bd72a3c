// One episode of a world as a remote agent drives it (`aicc serve`, and through it OpenEnv,
// Gymnasium and PettingZoo): reset with a seed and params, then steps, each carrying one action
// for some of the characters the caller plays. A world has two faces: *tools* (an action is a tool
// call `{ tool, input }`, an observation the events and call results as JSON — for LLM agents and
// OpenEnv) and *vectors* (an action is a move's number, an observation the world's numbers — for
// classic RL; the world declares them, VectorFace). Either way every action is a tool call through
// the capsule's full checks: a refused call is the agent's news, and the episode goes on. An action
// that is not an action (a wrong shape, an unknown character) refuses the whole step before any of
// it happens, with a ServeError naming what to fix.

import type { CallOutcome } from '../agent/agentClient.js';
import type { JsonObject, WireError } from '../protocol/messages.js';
import { StepEnv } from './stepEnv.js';
import type { ParamValue, Params, VectorFace, World } from './world.js';

export type Face = 'tools' | 'vectors';

/** A tools-face action: one tool call. */
export interface ToolAction {
  tool: string;
  input?: JsonObject;
}

/** A call's outcome as an observation carries it. */
export type CallReport = { tool: string; ok: true; output: JsonObject } | { tool: string; ok: false; error: WireError };

/** A tools-face observation: what the character heard since the last step, and the calls that were answered. */
export interface ToolsObservation {
  tick: number;
  events: Array<{ topic: string; payload: JsonObject }>;
  results: CallReport[];
  /** At reset only: the tools the character may call, as its manifest lists them (id, description, schemas, limits). */
  tools?: JsonObject[];
}

export type Observation = ToolsObservation | number[];

export interface ServedStep {
  tick: number;
  /** Per character the caller plays. */
  observations: Record<string, Observation>;
  rewards: Record<string, number>;
  /** The world said stop (its goal met, its population gone): a terminal state. */
  terminated: boolean;
  /** The episode ran out of ticks: cut short, not ended by the world. */
  truncated: boolean;
  /** Why it ended, when it did. */
  stop?: string;
  /** Per character: on the vectors face, the tool call its move became and how it went. */
  infos: Record<string, { call?: CallReport }>;
}

export interface ServedReset {
  seed: number;
  params?: Readonly<Record<string, ParamValue>>;
  /** Default 'tools'. */
  face?: Face;
  /** The characters the caller plays; the world's own policy plays the rest. Default: every one. */
  agents?: readonly string[];
  /** Default: the world's. */
  maxTicks?: number;
}

export type ServeErrorCode =
  | 'invalid_request'
  | 'unknown_agent'
  | 'no_episode'
  | 'episode_done'
  | 'no_vector_face'
  | 'capacity_reached'
  | 'busy'
  | 'unauthorized'
  | 'not_found'
  | 'too_large';

/** What `aicc serve` tells a client about a request it cannot take; the episode is as it was. */
export class ServeError extends Error {
  constructor(
    readonly code: ServeErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ServeError';
  }
}

/** Longest tool name an action may carry (the protocol's own bound on tool ids). */
const MAX_TOOL_NAME = 64;

export class ServedEnv<P extends Params = Params> {
  private env: StepEnv<P> | undefined;
  private face: Face = 'tools';
  private vectors: VectorFace | undefined;
  /** Per character: call outcomes that came back since its last observation. */
  private readonly answered = new Map<string, CallReport[]>();
  private last: ServedStep | undefined;
  private seed = 0;
  private params: P | undefined;
  private steps = 0;

  constructor(readonly world: World<P>) {}

  /** The characters the caller plays in the current episode. */
  get agents(): string[] {
    return this.env?.agents ?? [];
  }

  /** Sets up a new episode (ending the one before) and returns each played character's first observation. */
  async reset(options: ServedReset): Promise<ServedStep> {
    const face = options.face ?? 'tools';
    if (face !== 'tools' && face !== 'vectors') throw new ServeError('invalid_request', `face must be "tools" or "vectors", got ${JSON.stringify(face)}`);
    if (!(Number.isSafeInteger(options.seed) && options.seed >= 0))
      throw new ServeError('invalid_request', `seed must be a whole number from 0 to 2^53-1, got ${JSON.stringify(options.seed)}`);
    await this.close();
    let params: P;
    try {
      params = this.world.resolveParams(options.params);
    } catch (error) {
      throw new ServeError('invalid_request', (error as Error).message);
    }
    const env = new StepEnv(this.world, {
      params,
      ...(options.maxTicks !== undefined && { maxTicks: options.maxTicks }),
      ...(options.agents !== undefined && { controlled: options.agents }),
    });
    let first;
    try {
      first = await env.reset(options.seed);
    } catch (error) {
      throw new ServeError(options.agents !== undefined ? 'unknown_agent' : 'invalid_request', (error as Error).message);
    }
    const vectors = env.vectors();
    if (face === 'vectors' && vectors === undefined) {
      await env.close();
      throw new ServeError('no_vector_face', `world ${JSON.stringify(this.world.name)} declares no vector face; use the tools face`);
    }
    this.env = env;
    this.face = face;
    this.vectors = vectors;
    this.seed = options.seed;
    this.params = params;
    this.steps = 0;
    this.answered.clear();
    for (const character of env.agents) this.answered.set(character, []);
    this.last = this.served(first.tick, first.observations, first.rewards, false, undefined, {});
    if (face === 'tools')
      for (const character of env.agents)
        (this.last.observations[character] as ToolsObservation).tools = env.client(character).manifest.tools.map((tool) => ({ ...tool }) as JsonObject);
    return this.last;
  }

  /**
   * One step: each played character named in `actions` acts (a tool call, or a move's number on the
   * vectors face), the world advances one tick, and every played character observes. Characters
   * left out do nothing this step.
   */
  async step(actions: unknown): Promise<ServedStep> {
    const env = this.env;
    if (env === undefined) throw new ServeError('no_episode', 'no episode: reset first');
    if (this.last?.terminated === true || this.last?.truncated === true) throw new ServeError('episode_done', 'the episode is over; reset for the next one');
    const calls = this.calls(actions);
    const infos: ServedStep['infos'] = {};
    for (const [character, call] of calls) {
      const report = (outcome: CallOutcome): CallReport => reportOf(call.tool, outcome);
      void env
        .client(character)
        .call(call.tool, call.input)
        .then((outcome) => {
          const done = report(outcome);
          this.answered.get(character)?.push(done);
          if (this.face === 'vectors') infos[character] = { call: done };
        });
    }
    const result = await env.step();
    this.steps++;
    const stop = result.stop;
    this.last = this.served(result.tick, result.observations, result.rewards, result.done && stop !== 'tick_limit', stop, infos);
    if (result.done && stop === 'tick_limit') this.last.truncated = true;
    return this.last;
  }

  /** The episode's state: its seed, params, face, tick, steps, whether it is over, its metrics and state hash. */
  state(): JsonObject {
    const env = this.env;
    if (env === undefined) throw new ServeError('no_episode', 'no episode: reset first');
    return {
      world: this.world.name,
      seed: this.seed,
      params: { ...this.params! },
      face: this.face,
      agents: env.agents,
      tick: this.last?.tick ?? 0,
      step_count: this.steps,
      done: this.last?.terminated === true || this.last?.truncated === true,
      metrics: env.metrics(),
      state_hash: env.stateHash(),
    };
  }

  /** The spaces of the vectors face, when the world declares one (of the current episode). */
  spaces(): { observation: VectorFace['observation']; actions: readonly string[] } | undefined {
    const vectors = this.vectors;
    return vectors === undefined ? undefined : { observation: vectors.observation, actions: vectors.actions };
  }

  /** Ends the episode, if any. Safe to call twice. */
  async close(): Promise<void> {
    const env = this.env;
    this.env = undefined;
    this.last = undefined;
    await env?.close();
  }

  /** The step's actions as tool calls, every one checked before any is made. */
  private calls(actions: unknown): Map<string, { tool: string; input: JsonObject }> {
    if (actions === null || typeof actions !== 'object' || Array.isArray(actions))
      throw new ServeError('invalid_request', 'actions must be an object: { "<character>": <action> } for the characters you play');
    const played = new Set(this.agents);
    const calls = new Map<string, { tool: string; input: JsonObject }>();
    for (const [character, action] of Object.entries(actions)) {
      if (!played.has(character))
        throw new ServeError('unknown_agent', `${JSON.stringify(character.slice(0, 64))} is not a character you play; you play ${[...played].join(', ')}`);
      calls.set(character, this.face === 'vectors' ? this.move(character, action) : toolCall(character, action));
    }
    return calls;
  }

  private move(character: string, action: unknown): { tool: string; input: JsonObject } {
    const moves = this.vectors!.actions.length;
    if (!(Number.isInteger(action) && (action as number) >= 0 && (action as number) < moves))
      throw new ServeError(
        'invalid_request',
        `${character}'s action must be a move's number from 0 to ${moves - 1} (${this.vectors!.actions.join(', ')}), got ${JSON.stringify(action)?.slice(0, 40)}`,
      );
    return this.vectors!.act(character, action as number);
  }

  private served(
    tick: number,
    events: Record<string, Array<{ topic: string; payload: JsonObject }>>,
    rewards: Record<string, number>,
    terminated: boolean,
    stop: string | undefined,
    infos: ServedStep['infos'],
  ): ServedStep {
    const observations: Record<string, Observation> = {};
    for (const character of Object.keys(events)) {
      const results = this.answered.get(character)?.splice(0) ?? [];
      observations[character] =
        this.face === 'vectors'
          ? this.vectors!.observe(character)
          : { tick, events: events[character]!.map(({ topic, payload }) => ({ topic, payload })), results };
    }
    return { tick, observations, rewards, terminated, truncated: false, ...(stop !== undefined && { stop }), infos };
  }
}

function toolCall(character: string, action: unknown): { tool: string; input: JsonObject } {
  const bad = (what: string): never => {
    throw new ServeError('invalid_request', `${character}'s action ${what}; a tools-face action is { "tool": "<id>", "input": { … } }`);
  };
  if (action === null || typeof action !== 'object' || Array.isArray(action)) return bad('is not an object');
  const { tool, input, ...rest } = action as { tool?: unknown; input?: unknown };
  if (Object.keys(rest).length > 0) bad(`has ${JSON.stringify(Object.keys(rest)[0]!.slice(0, 40))}, which no action has`);
  if (typeof tool !== 'string' || tool.length === 0 || tool.length > MAX_TOOL_NAME) bad(`needs "tool", a tool id of 1 to ${MAX_TOOL_NAME} characters`);
  if (input !== undefined && (input === null || typeof input !== 'object' || Array.isArray(input))) bad('has an "input" that is not an object');
  return { tool: tool as string, input: (input ?? {}) as JsonObject };
}

function reportOf(tool: string, outcome: CallOutcome): CallReport {
  return outcome.ok ? { tool, ok: true, output: outcome.output } : { tool, ok: false, error: outcome.error };
}
