// One episode of an evaluation: the world set up from the seed as for any episode, the characters it
// names as roles played by the agent under test, the rest by the world's own policy, every call
// through the capsule's full checks and limits. Success is the world's goal for each role, judged
// from the world's state (EpisodeWorld.goal), so every agent is judged alike.
//
// Time: the world's clock is stepped as fast as the machine allows, but before each next tick the
// episode waits until the agent under test has settled (a model has answered the turn it asked
// for): a model's thinking takes no simulated time, so a slow model and a fast one see the same
// world, and the same answers give the same episode. An agent that does not settle within `hangMs`
// of wall time fails as hung; one that crashes, leaves or sends garbage fails too — the episode goes
// on with its characters idle, and the failure is part of the result.

import { CapsuleError, messageOf } from '../base/errors.js';
import { runHeadless } from '../adapters/headless/runner.js';
import { RunSummary } from '../adapters/headless/summary.js';
import type { SeededRandom } from '../adapters/headless/random.js';
import type { AgentClient } from '../agent/agentClient.js';
import { connectInProcess } from '../agent/inProcess.js';
import type { Link } from '../links/link.js';
import type { Capsule } from '../runtime/capsule.js';
import type { CallRecord } from '../runtime/calls.js';
import type { AgentFailure, AgentFailureKind, EvalEpisode, EvalTimeline } from './evalResult.js';
import { closeEpisode, type EpisodeOptions, episodeSummary, setUpEpisode } from './episode.js';
import { stateHash } from './stateHash.js';
import type { AgentSession, EpisodeWorld, Params, World } from './world.js';

/** What the agent under test is given for one character it plays. */
export interface EvalSeat {
  character: string;
  capsule: Capsule;
  /** The session the world opens for this character. */
  session: AgentSession;
  /** The character's random stream (the same fork a world policy would get). */
  random: SeededRandom;
  episode: EpisodeWorld;
  /** The character's session, connected in-process (made on first ask; a program that joins over its own link does not ask). */
  client(): Promise<AgentClient>;
  /** Opens the character's session on `link` instead (an agent in another process joins through it); gives the session's id. */
  join(link: Link): string;
  /** The world's tick now. */
  tick(): number;
}

/** One decision of a model agent: its wall time and what it cost. */
export interface EvalDecision {
  character: string;
  ms: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** An agent under test, seated at one character. */
export interface SeatedAgent {
  /**
   * Resolves once the agent has nothing in flight (a model answered the turn it asked for); the next
   * tick waits for it. Undefined when there is never anything to wait for (a policy).
   */
  settled(): Promise<void> | undefined;
  /** Set once the agent failed; it is closed and its character idles from then on. */
  readonly failure: { kind: AgentFailureKind; reason: string } | undefined;
  /** The decisions finished since the last take. */
  takeDecisions(): EvalDecision[];
  close(reason: string): Promise<void>;
}

/** Seats an agent at a character: the agent under test, as an eval makes it from its spec. */
export type EvalAgent = (seat: EvalSeat) => Promise<SeatedAgent>;

/** Wall time, for hang deadlines and decision latency: the episode's world runs on its own clock. */
export interface WallClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface EvalEpisodeOptions extends Omit<EpisodeOptions, 'now'> {
  agent: EvalAgent;
  /** The agent's name and spec, for the result line. */
  agentName: string;
  agentSpec: string;
  /** The characters the agent plays; default every character the world lists. */
  roles?: readonly string[];
  /** Wall ms an agent may take to settle after a tick before it fails as hung. Default 60,000. */
  hangMs?: number;
  /** Rows kept in the timeline (calls and decisions each); the rest are counted. Default 2,000. */
  maxTimelineRows?: number;
  /** Default: performance.now and the global timers. */
  wall?: WallClock;
}

export const EVAL_EPISODE_DEFAULTS = Object.freeze({ hangMs: 60_000, maxTimelineRows: 2_000 });

const systemWall: WallClock = {
  now: () => globalThis.performance.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** The roles of an eval on `world`'s episode, checked: each a character the world lists. */
export function checkRoles(world: string, episode: EpisodeWorld, roles: readonly string[] | undefined, place: string): string[] {
  const characters = Object.keys(episode.agents);
  const chosen = roles === undefined || roles.length === 0 ? characters : [...roles];
  for (const role of chosen) {
    if (!characters.includes(role))
      throw new CapsuleError(
        'AICC_INVALID_OPTION',
        `${place}: the world ${JSON.stringify(world)} has no character ${JSON.stringify(role)} to play; its characters are ${characters.join(', ')} (--role)`,
      );
  }
  if (new Set(chosen).size < chosen.length) throw new CapsuleError('AICC_INVALID_OPTION', `${place}: a role is named twice (--role)`);
  return chosen;
}

/** Runs one episode with the agent under test in its roles, and measures it. */
export async function runEvalEpisode<P extends Params>(world: World<P>, options: EvalEpisodeOptions): Promise<EvalEpisode> {
  const wall = options.wall ?? systemWall;
  const hangMs = options.hangMs ?? EVAL_EPISODE_DEFAULTS.hangMs;
  const maxRows = options.maxTimelineRows ?? EVAL_EPISODE_DEFAULTS.maxTimelineRows;
  const started = wall.now();
  const params = world.resolveParams(options.params);
  const { episode, random } = await setUpEpisode(world, options.seed, params);
  const capsule = episode.capsule;
  const roles = checkRoles(world.name, episode, options.roles, 'eval');
  if (episode.goal === undefined)
    throw new CapsuleError(
      'AICC_INVALID_OPTION',
      `eval: the world ${JSON.stringify(world.name)} has no goal(character) to judge success by; add one to its episodes`,
    );
  const summary = new RunSummary(capsule);
  const timeline = new TimelineRecorder(Object.keys(episode.agents), maxRows);
  const roleCalls = new Counts();
  const roleRefusals = new Counts();
  const isRole = new Set(roles);
  const ruleHits = { invalidInput: 0, quota: 0, budget: 0 };
  const offCalls = capsule.on('call', (record: CallRecord) => {
    const code = record.result.ok ? '' : (record.result.error?.code ?? 'failed');
    timeline.call(capsule.tick, record.character, record.tool, code);
    if (!isRole.has(record.character)) return;
    roleCalls.add(record.tool);
    if (code === '') return;
    roleRefusals.add(code);
    if (code === 'invalid_input') ruleHits.invalidInput++;
    // The wire folds a rate limit and a used-up quota into tool_unavailable; the limits' own words tell them apart.
    else if (code === 'tool_unavailable' && /calls per minute|quota/.test(record.result.error?.message ?? '')) ruleHits.quota++;
    if ((record as CallRecord & { source?: string }).source === 'budget') ruleHits.budget++;
  });
  const metAt = new Map<string, number>();
  const goal = episode.goal;
  const offTick = capsule.on('tick', ({ tick }) => {
    for (const role of roles) if (!metAt.has(role) && goal(role)) metAt.set(role, tick);
  });

  const clients: AgentClient[] = [];
  // Agents the episode waits for after each tick (a model), and those it never waits for (a policy):
  // these are only asked for their decisions at the end, so a policy costs a tick nothing.
  const seated = new Map<string, SeatedAgent>();
  const passive: SeatedAgent[] = [];
  let failure: AgentFailure | undefined;
  const decisions: EvalDecision[] = [];
  const fail = (kind: AgentFailureKind, reason: string): void => {
    failure ??= { kind, tick: capsule.tick, reason };
  };
  // Connected in the order the world lists its characters, each with the random forks runEpisode
  // gives it: a world policy under test plays exactly the episode a sweep would.
  for (const [character, session] of Object.entries(episode.agents)) {
    const connect = async (): Promise<AgentClient> => {
      const client = await connectInProcess(capsule, {
        ...session,
        character,
        agent: { clock: capsule.clock, randomBytes: random.fork(`agent ids:${character}`).bytes },
      });
      clients.push(client);
      return client;
    };
    if (!isRole.has(character)) {
      const client = await connect();
      episode.policy?.({ character, client, random: random.fork(`policy:${character}`) });
      continue;
    }
    let client: Promise<AgentClient> | undefined;
    const seat: EvalSeat = {
      character,
      capsule,
      session,
      random: random.fork(`policy:${character}`),
      episode,
      client: () => (client ??= connect()),
      join: (link) => capsule.connect(link, { ...session, character }).id,
      tick: () => capsule.tick,
    };
    try {
      const agent = await options.agent(seat);
      if (agent.failure === undefined && agent.settled() === undefined) passive.push(agent);
      else seated.set(character, agent);
    } catch (error) {
      fail('crashed', `could not start as ${character}: ${messageOf(error)}`);
    }
  }

  /** Waits for every seated agent to settle; one that failed, or does not settle within hangMs, is closed. */
  const settle = async (): Promise<void> => {
    for (const [character, agent] of [...seated]) {
      let failed = agent.failure;
      const waiting = failed === undefined ? agent.settled() : undefined;
      if (waiting !== undefined && (await withinWall(waiting, hangMs, wall)))
        failed = agent.failure ?? { kind: 'hung', reason: `did not settle within ${hangMs} ms of wall time` };
      for (const decision of agent.takeDecisions()) {
        decisions.push(decision);
        timeline.decision(capsule.tick, decision);
      }
      if (failed === undefined) failed = agent.failure;
      if (failed === undefined) continue;
      fail(failed.kind, `${character}: ${failed.reason}`);
      seated.delete(character);
      await agent.close(`failed: ${failed.kind}`).catch(() => undefined);
    }
  };

  let stop = 'tick_limit';
  const maxTicks = options.maxTicks ?? world.maxTicks;
  const hashes: Array<{ tick: number; hash: string }> = [];
  const hashEvery = options.hashEvery;
  await settle(); // the agents' first moves, before the first tick
  const result = await runHeadless({
    capsule,
    ticks: maxTicks,
    // Only when there is something to do after a tick: an awaited no-op on every tick is the eval's largest cost for policies.
    ...((hashEvery !== undefined || seated.size > 0) && {
      onTick: (tick: number): Promise<void> | undefined => {
        if (hashEvery !== undefined && tick % hashEvery === 0) hashes.push({ tick, hash: stateHash(episode.state()) });
        return seated.size > 0 ? settle() : undefined;
      },
    }),
    stopWhen: () => {
      const reason = episode.stop?.();
      if (reason !== undefined) stop = reason;
      return reason !== undefined;
    },
  });
  for (const agent of passive)
    for (const decision of agent.takeDecisions()) {
      decisions.push(decision);
      timeline.decision(capsule.tick, decision);
    }
  const base = episodeSummary(world.name, episode, {
    seed: options.seed,
    params,
    stop,
    ticks: result.ticks,
    measured: summary.toJSON(),
    ...(hashEvery !== undefined && { hashes }),
  });
  const goals: Record<string, number> = {};
  for (const role of [...roles].sort()) goals[role] = metAt.has(role) ? 1 : 0;
  const success = roles.every((role) => metAt.has(role)) ? 1 : 0;
  const score = roles.reduce((sum, role) => sum + (episode.score !== undefined ? (base.scores[role] ?? 0) : goals[role]!), 0);
  const decisionMs = decisions.slice(0, maxRows).map((decision) => decision.ms);
  const out: EvalEpisode = {
    ...base,
    agent: options.agentName,
    agentSpec: options.agentSpec,
    roles: [...roles],
    success,
    goals,
    ticksToSuccess: success === 1 ? Math.max(0, ...roles.map((role) => metAt.get(role)!)) : null,
    score,
    roleCalls: { total: roleCalls.total, byTool: roleCalls.byName() },
    roleRefusals: { total: roleRefusals.total, byCode: roleRefusals.byName() },
    ruleHits,
    decisions: decisions.length,
    decisionMs,
    tokens: { input: sumOf(decisions, 'inputTokens'), output: sumOf(decisions, 'outputTokens') },
    costUsd: sumOf(decisions, 'costUsd'),
    ...(failure !== undefined && { failure }),
    timeline: timeline.toJSON(),
  };
  summary.detach();
  offCalls();
  offTick();
  for (const agent of [...seated.values(), ...passive]) await agent.close('episode over').catch(() => undefined);
  await closeEpisode(episode, new Map(clients.map((client, index) => [String(index), client])), 'episode over');
  out.wallMs = wall.now() - started;
  return out;
}

/** Resolves true when `promise` has not settled within `ms` of wall time. */
async function withinWall(promise: Promise<void>, ms: number, wall: WallClock): Promise<boolean> {
  let timer: unknown;
  const late = new Promise<boolean>((resolve) => {
    timer = wall.setTimeout(() => resolve(true), ms);
  });
  try {
    return await Promise.race([promise.then(() => false), late]);
  } finally {
    wall.clearTimeout(timer);
  }
}

function sumOf(decisions: readonly EvalDecision[], key: 'inputTokens' | 'outputTokens' | 'costUsd'): number {
  let sum = 0;
  for (const decision of decisions) sum += decision[key];
  return sum;
}

/** Counts by name, in code-point order when read. */
class Counts {
  private readonly counts = new Map<string, number>();
  total = 0;

  add(name: string): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
    this.total++;
  }

  byName(): Record<string, number> {
    const sorted: Record<string, number> = {};
    for (const name of [...this.counts.keys()].sort()) sorted[name] = this.counts.get(name)!;
    return sorted;
  }
}

class TimelineRecorder {
  private readonly tools: string[] = [];
  private readonly toolIndex = new Map<string, number>();
  private readonly calls: EvalTimeline['calls'] = [];
  private readonly decisions: EvalTimeline['decisions'] = [];
  private dropped = 0;

  private readonly characterIndex: Map<string, number>;

  constructor(
    private readonly characters: string[],
    private readonly maxRows: number,
  ) {
    this.characterIndex = new Map(characters.map((character, index) => [character, index]));
  }

  call(tick: number, character: string, tool: string, code: string): void {
    if (this.calls.length >= this.maxRows) {
      this.dropped++;
      return;
    }
    let index = this.toolIndex.get(tool);
    if (index === undefined) {
      index = this.tools.push(tool) - 1;
      this.toolIndex.set(tool, index);
    }
    this.calls.push([tick, this.characterIndex.get(character) ?? -1, index, code]);
  }

  decision(tick: number, decision: EvalDecision): void {
    if (this.decisions.length >= this.maxRows) {
      this.dropped++;
      return;
    }
    this.decisions.push([tick, this.characterIndex.get(decision.character) ?? -1, Math.round(decision.ms), decision.inputTokens, decision.outputTokens]);
  }

  toJSON(): EvalTimeline {
    return { characters: this.characters, tools: this.tools, calls: this.calls, decisions: this.decisions, dropped: this.dropped };
  }
}
