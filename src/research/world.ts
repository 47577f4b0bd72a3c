// A world as a module: one value a researcher can hand to runEpisode, to the step API, to a sweep
// on worker threads or to a queue worker on another machine. It says which parameters it takes
// (with their defaults), how a seeded episode is set up, what is measured, how each agent scores,
// when an episode stops and which state its hash covers. Browser-safe: nothing here needs Node.

import { CapsuleError } from '../base/errors.js';
import type { SeededRandom } from '../adapters/headless/random.js';
import type { AgentClient } from '../agent/agentClient.js';
import type { Capsule } from '../runtime/capsule.js';
import type { JsonObject } from '../protocol/messages.js';
import type { ConnectOptions } from '../runtime/options.js';

/** A parameter's value: what a command line and a JSON line can both carry without loss. */
export type ParamValue = number | string | boolean;
export type Params = Readonly<Record<string, ParamValue>>;

/** Plain JSON: what a world's declared state (the hashed part) is made of. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** What a world's setup is given for one episode. */
export interface EpisodeSetup<P extends Params> {
  seed: number;
  /** The world's defaults with the episode's own values over them. */
  params: P;
  /** The episode's random source, seeded from `seed`; fork it by label for each use. */
  random: SeededRandom;
}

/** The session a world opens for one of its agents (the character is the key it is listed under). */
export type AgentSession = Omit<ConnectOptions, 'character' | 'codec' | 'framing'>;

/** What the world's own agents need to start: their character's connected client and a random stream. */
export interface PolicyContext {
  character: string;
  client: AgentClient;
  random: SeededRandom;
}

/** A character as a model agent is introduced to it. */
export interface CharacterBrief {
  name?: string;
  description?: string;
  goal?: string;
}

/** One episode of a world, built by its setup. */
export interface EpisodeWorld {
  /** On a stepped clock (ManualClock), in 'fixed' or 'hybrid' tick mode. */
  capsule: Capsule;
  /** The characters agents play, each with its session; in the order agents connect. */
  agents: Readonly<Record<string, AgentSession>>;
  /**
   * The world's own agents, for runEpisode and sweeps: starts one on its connected client. The step
   * API leaves the clients to the researcher's loop instead.
   */
  policy?(context: PolicyContext): void;
  /**
   * Other scripted agents the world offers by name, for an eval to set beside its own policy
   * (`aicc eval --agent NAME=policy:wanderer`).
   */
  policies?: Readonly<Record<string, (context: PolicyContext) => void>>;
  /**
   * Whether `character` has met its goal, judged from the world's state alone (not from what any
   * agent believes): an eval's success, alike for every agent that plays the character.
   */
  goal?(character: string): boolean;
  /** What a model playing `character` is told of it: who it is and what it is after. */
  brief?(character: string): CharacterBrief;
  /** Named numbers measured at the end of an episode (and whenever the step API asks). */
  metrics(): Readonly<Record<string, number>>;
  /** An agent's score so far; the step API reports its change since the last step as the reward. */
  score?(character: string): number;
  /** Why the episode should end now (a short reason, e.g. 'goals_met'), or undefined to go on. */
  stop?(): string | undefined;
  /** The world's declared state: what the state hash covers. Plain JSON; key order does not matter. */
  state(): JsonValue;
  /** Its numeric face, for classic RL (`aicc serve`'s vectors face), when the world declares one. */
  vectors?: VectorFace;
  /** Called once the episode is over, after the agents' sessions closed. */
  dispose?(): void;
}

/**
 * A world's numeric face, for classic reinforcement learning beside the tools face LLM agents use:
 * what each agent observes as a fixed-size row of numbers (a Box), and its moves by number (a
 * Discrete). A move is still a tool call, through the capsule's full checks: `act` only says which.
 */
export interface VectorFace {
  /** Every observation: `shape`'s numbers, flattened row-major, each in [low, high]. */
  observation: { readonly shape: readonly number[]; readonly low: number; readonly high: number };
  /** The moves by index, named for people (e.g. 'eat', 'north'); an agent picks one a step. */
  actions: readonly string[];
  /** What `character` observes now. */
  observe(character: string): number[];
  /** The tool call move `index` is for `character` (e.g. `{ tool: 'move', input: { dx: 0, dy: -1 } }`). */
  act(character: string, index: number): { tool: string; input: JsonObject };
}

export interface WorldDefinition<P extends Params> {
  /** A short name: it keys sweep results and names the world in errors. */
  name: string;
  description?: string;
  /** Every parameter the world takes, with its default; an episode may override any of them. */
  params: P;
  /** The most ticks an episode runs unless it stops earlier. */
  maxTicks: number;
  setup(setup: EpisodeSetup<P>): EpisodeWorld | Promise<EpisodeWorld>;
}

/** A checked world definition, with the parameter handling every runner shares. */
export interface World<P extends Params = Params> extends WorldDefinition<P> {
  /**
   * The defaults with `overrides` over them. A string is read as the default's type (so
   * `--param apples=2` gives a number); an unknown name or an unreadable value is an AICC_INVALID_OPTION.
   */
  resolveParams(overrides?: Readonly<Record<string, ParamValue>>): P;
}

const NAME = /^[A-Za-z][\w.-]{0,63}$/;

/** Checks a world definition once, where it is written, so a mistake is not found in a worker. */
export function defineWorld<P extends Params>(definition: WorldDefinition<P>): World<P> {
  const fail = (what: string): never => {
    throw new CapsuleError('AICC_INVALID_OPTION', `defineWorld: ${what}`);
  };
  if (definition === null || typeof definition !== 'object') fail('expected a definition object');
  if (typeof definition.name !== 'string' || !NAME.test(definition.name))
    fail(`name must be a letter then up to 63 letters, digits, _ . or -, got ${JSON.stringify(definition.name)}`);
  const where = `world ${JSON.stringify(definition.name)}`;
  if (!Number.isInteger(definition.maxTicks) || definition.maxTicks < 1) fail(`${where}: maxTicks must be a whole number >= 1, got ${definition.maxTicks}`);
  if (typeof definition.setup !== 'function') fail(`${where}: setup must be a function ({ seed, params, random }) => EpisodeWorld`);
  const params = definition.params;
  if (params === null || typeof params !== 'object' || Array.isArray(params)) fail(`${where}: params must be an object of defaults`);
  for (const [key, value] of Object.entries(params)) {
    if (!NAME.test(key)) fail(`${where}: parameter name ${JSON.stringify(key)} must be a letter then letters, digits, _ . or -`);
    if (!isParamValue(value)) fail(`${where}: parameter ${key} must default to a finite number, a string or a boolean, got ${JSON.stringify(value)}`);
  }
  const world: World<P> = {
    ...definition,
    params: Object.freeze({ ...params }),
    resolveParams: (overrides = {}) => resolveParams(definition.name, params, overrides),
  };
  return Object.freeze(world);
}

function isParamValue(value: unknown): value is ParamValue {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

function resolveParams<P extends Params>(name: string, defaults: P, overrides: Readonly<Record<string, ParamValue>>): P {
  const out: Record<string, ParamValue> = { ...defaults };
  for (const [key, raw] of Object.entries(overrides)) {
    // Object.hasOwn: a parameter named like an Object.prototype member ("constructor") is still unknown.
    if (!Object.hasOwn(defaults, key)) {
      const known = Object.keys(defaults);
      throw new CapsuleError(
        'AICC_INVALID_OPTION',
        `world ${JSON.stringify(name)} has no parameter ${JSON.stringify(key)}; it takes ${known.length === 0 ? 'none' : known.join(', ')}`,
      );
    }
    out[key] = coerce(name, key, defaults[key]!, raw);
  }
  return out as P;
}

function coerce(name: string, key: string, fallback: ParamValue, raw: ParamValue): ParamValue {
  const bad = (expected: string): never => {
    throw new CapsuleError('AICC_INVALID_OPTION', `world ${JSON.stringify(name)}: parameter ${key} must be ${expected}, got ${JSON.stringify(raw)}`);
  };
  if (typeof fallback === 'number') {
    const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
    return typeof value === 'number' && Number.isFinite(value) ? value : bad('a finite number');
  }
  if (typeof fallback === 'boolean') {
    if (typeof raw === 'boolean') return raw;
    return raw === 'true' ? true : raw === 'false' ? false : bad('true or false');
  }
  return typeof raw === 'string' ? raw : bad('a string');
}
