// An eval: a sweep with the agent under test as one more dimension. Every params combination and
// seed runs once per agent, the world's roles played by that agent and the rest by the world's own
// policies, on worker threads, each episode appended to the results file as it ends (so `resume`
// runs only what is missing). A budget for the whole eval — tokens, dollars, wall time — stops
// handing out episodes once reached; what ran is kept and the result says what stopped it.

import { CapsuleError } from '../../base/errors.js';
import { closeEpisode, setUpEpisode } from '../../research/episode.js';
import { WORLD_POLICY } from '../../research/evalAgents.js';
import { checkRoles } from '../../research/evalEpisode.js';
import type { EvalEpisode, EvalSummary } from '../../research/evalResult.js';
import type { SweepJob } from '../../research/sweepPlan.js';
import { MODEL_BACKEND_DEFAULTS } from '../../agent/model/modelBackend.js';
import { piAiModel } from '../model/piAi.js';
import { type PreparedSweep, prepareSweep } from '../sweep/prepareSweep.js';
import { runPreparedSweep, type SweepHooks, type ThreadSweepOptions } from '../sweep/runSweep.js';
import { whyAgentCannotStart } from './agentChecks.js';
import { checkAgents, type EvalAgentSpec, parseAgentSpec } from './agentSpec.js';
import { summarizeEval } from './evalSummary.js';
import { providerKey } from './evalJob.js';
import type { PiEvalOptions } from './piEvalAgent.js';
import { sharedSlots } from './providerSlots.js';
import { type VerifyReport, verifyResults } from './evalRecording.js';
import { readResults } from '../sweep/resultsFile.js';
import { sweepResult } from '../sweep/sweepResult.js';
import { dirname, resolve } from 'node:path';

/** A hard limit for the whole eval; the first one reached stops it. */
export interface EvalBudget {
  /** Tokens in and out, over every episode (those a resumed eval's file holds count too). */
  tokens?: number;
  /** Dollars, as the provider's catalog prices the tokens. */
  usd?: number;
  /** Wall ms of this run. */
  wallMs?: number;
}

export interface EvalOptions extends ThreadSweepOptions {
  /** The agents under test: `NAME=SPEC` or `{ name, spec }` (parseAgentSpec's forms). */
  agents: ReadonlyArray<EvalAgentSpec | string>;
  /** The characters the agent under test plays; default every character the world lists. */
  roles?: readonly string[];
  /** Wall ms an agent may take to settle after a tick before it fails as hung. Default 60,000. */
  hangMs?: number;
  budget?: EvalBudget;
  /** A model agent's longest answer per turn, in tokens. Default 512. */
  maxTokens?: number;
  /**
   * A cmd: or mcp: program not waiting for a call's answer is settled after this many wall ms of
   * silence (default 25), or `answeredMs` just after it was answered (default 100): raise them for a
   * program that thinks between its calls, such as an MCP client driven by a model.
   */
  quietMs?: number;
  answeredMs?: number;
  /** How pi: agents start (pi's executable, its agent folder) and where pi-daemon: sessions work. */
  pi?: PiEvalOptions;
  /**
   * Where each episode's recording goes (its model cassette, for --verify and the report's links).
   * Default: beside the results file, `results.recordings/` for `results.jsonl`; false for none.
   */
  recordDir?: string | false;
  /** After running, replay this many episodes from their recordings and mark each verified or not. */
  verify?: number;
  /**
   * Run the episodes on a BullMQ queue at this Redis (`redis://host:port`) instead of threads: any
   * `aicc worker --queue …` serves them (needs the optional bullmq and ioredis). The workers write
   * the recordings, so recordDir must be a folder they share with this process.
   */
  queue?: string;
  /** With `queue`: the BullMQ queue (default aicc-sweep; its workers need the same). */
  queueName?: string;
  /**
   * Model requests in flight to one provider at once, over the whole eval on this machine's threads
   * (on a queue: per worker process). Default: one per character the model plays in each episode.
   */
  providerConcurrency?: number;
}

export interface EvalSpent {
  tokens: number;
  usd: number;
  wallMs: number;
}

export interface EvalResult {
  /** Jobs in the plan (params × seeds × agents). */
  jobs: number;
  /** Episodes this call ran. */
  ran: number;
  /** The plan's episodes in the results file, in the plan's order. */
  episodes: EvalEpisode[];
  /** Jobs with no episode (a budget or a signal stopped the eval); [] when complete. */
  missing: SweepJob[];
  summary: EvalSummary;
  /** Spent over the eval's episodes (tokens, dollars) and this run (wall). */
  spent: EvalSpent;
  /** Set when a budget stopped the eval: which, and its limit. */
  budgetReached?: { what: keyof EvalBudget; limit: number };
  /** With `verify`: the episodes replayed from their recordings, and those that did not match. */
  verified?: VerifyReport;
}

/** A checked eval, ready to run. */
export interface PreparedEval {
  sweep: PreparedSweep;
  agents: EvalAgentSpec[];
  roles: string[];
}

/** Checks everything a user can fix by changing the options, before a thread starts. */
export async function prepareEval(options: EvalOptions, place = 'runEval'): Promise<PreparedEval> {
  const agents = checkAgents(options.agents, place);
  for (const [name, value] of [
    ['hangMs', options.hangMs],
    ['maxTokens', options.maxTokens],
    ['verify', options.verify],
    ['providerConcurrency', options.providerConcurrency],
    ['quietMs', options.quietMs],
    ['answeredMs', options.answeredMs],
  ] as const)
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1))
      throw new CapsuleError('AICC_INVALID_OPTION', `${place}: ${name} must be a whole number >= 1, got ${value}`);
  for (const [what, limit] of Object.entries(options.budget ?? {}))
    if (limit !== undefined && !(typeof limit === 'number' && limit > 0))
      throw new CapsuleError('AICC_INVALID_OPTION', `${place}: the ${what} budget must be a number > 0, got ${String(limit)}`);
  const sweep = await prepareSweep(options, place, { setUpOnce: true, agents });
  // The roles and the goal, on one episode set up with the first seed.
  const { episode } = await setUpEpisode(sweep.world, sweep.plan.seeds.first, sweep.plan.paramsList[0]!);
  let roles: string[];
  try {
    roles = checkRoles(sweep.world.name, episode, options.roles, place);
    if (episode.goal === undefined)
      throw new CapsuleError(
        'AICC_INVALID_OPTION',
        `${place}: the world ${JSON.stringify(sweep.world.name)} has no goal(character) to judge success by; add one to its episodes`,
      );
    const policies = [...(episode.policy !== undefined ? [WORLD_POLICY] : []), ...Object.keys(episode.policies ?? {})];
    for (const agent of agents) {
      const spec = parseAgentSpec(agent.spec, place);
      if (spec.kind === 'policy' && !policies.includes(spec.policy))
        throw new CapsuleError(
          'AICC_INVALID_OPTION',
          `${place}: the world ${JSON.stringify(sweep.world.name)} has no policy ${JSON.stringify(spec.policy)} for the agent ${agent.name}; it has ${policies.map((name) => `policy:${name}`).join(', ') || 'none'}`,
        );
    }
  } finally {
    await closeEpisode(episode, new Map(), 'eval check over');
  }
  for (const agent of agents) {
    const problem = await whyAgentCannotStart(parseAgentSpec(agent.spec, place), options.pi);
    if (problem !== undefined) throw new CapsuleError('AICC_INVALID_OPTION', `${place}: the agent ${agent.name} (${agent.spec}) cannot start: ${problem}`);
  }
  return { sweep, agents, roles };
}

/** Runs an eval on worker threads; resolves once every job ran, or a budget or `signal` stopped it. */
export async function runEval(options: EvalOptions): Promise<EvalResult> {
  return runPreparedEval(options, await prepareEval(options));
}

/** runEval for an eval its caller prepared already (`aicc eval` does, to tell a usage mistake from a failure). */
export async function runPreparedEval(options: EvalOptions, prepared: PreparedEval, now: () => number = () => performance.now()): Promise<EvalResult> {
  const { sweep, agents, roles } = prepared;
  const started = now();
  const spent: EvalSpent = { tokens: 0, usd: 0, wallMs: 0 };
  for (const episode of sweep.held.episodes) if (sweep.plan.includes(episode)) count(spent, episode as EvalEpisode);
  const stop = new AbortController();
  let budgetReached: EvalResult['budgetReached'];
  const reach = (what: keyof EvalBudget, limit: number): void => {
    budgetReached ??= { what, limit };
    stop.abort();
  };
  const budget = options.budget ?? {};
  const check = (): void => {
    if (budget.tokens !== undefined && spent.tokens >= budget.tokens) reach('tokens', budget.tokens);
    if (budget.usd !== undefined && spent.usd >= budget.usd) reach('usd', budget.usd);
  };
  check();
  const onAbort = (): void => stop.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted === true) stop.abort();
  const wallTimer = budget.wallMs !== undefined ? setTimeout(() => reach('wallMs', budget.wallMs!), budget.wallMs) : undefined;
  wallTimer?.unref?.();
  try {
    const hooks: SweepHooks = {
      jobFields: {
        roles,
        ...(options.hangMs !== undefined && { hangMs: options.hangMs }),
        ...(options.maxTokens !== undefined && { maxTokens: options.maxTokens }),
        ...(options.pi !== undefined && { pi: absolutePi(options.pi) }),
        ...(options.quietMs !== undefined && { quietMs: options.quietMs }),
        ...(options.answeredMs !== undefined && { answeredMs: options.answeredMs }),
        ...(options.recordDir !== false && { recordDir: recordDirOf(options), recordBase: dirname(resolve(options.out)) }),
        ...(options.providerConcurrency !== undefined &&
          // Threads share one counter per provider; a queue's workers are processes of their own, each bounded alone.
          (options.queue === undefined
            ? { providerSlots: sharedSlots(modelProviders(agents), options.providerConcurrency) }
            : { providerConcurrency: options.providerConcurrency })),
      },
      onEpisode: (episode) => {
        count(spent, episode as EvalEpisode);
        check();
      },
    };
    const result =
      options.queue === undefined
        ? await runPreparedSweep({ ...options, signal: stop.signal }, sweep, hooks)
        : await (await import('../queue/queueSweep.js')).runQueueSweep(
            { ...options, queue: options.queue, signal: stop.signal, ...(options.queueName !== undefined && { queueName: options.queueName }) },
            { ...hooks, prepared: sweep },
          );
    let verified: VerifyReport | undefined;
    let episodes = result.episodes as EvalEpisode[];
    if (options.verify !== undefined && options.verify > 0) {
      verified = await verifyResults(sweep.world, options.out, readResults(options.out).episodes as EvalEpisode[], options.verify);
      episodes = sweepResult(sweep.plan, readResults(options.out).episodes, result.ran).episodes as EvalEpisode[];
    }
    spent.wallMs = now() - started;
    return {
      jobs: result.jobs,
      ran: result.ran,
      episodes,
      missing: result.missing,
      summary: summarizeEval({ world: sweep.world.name, agents, params: sweep.plan.paramsList, episodes }),
      spent,
      ...(budgetReached !== undefined && { budgetReached }),
      ...(verified !== undefined && { verified }),
    };
  } finally {
    if (wallTimer !== undefined) clearTimeout(wallTimer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/** The providers of an eval's model agents, each once. */
function modelProviders(agents: readonly EvalAgentSpec[]): string[] {
  const providers: string[] = [];
  for (const agent of agents) {
    const spec = parseAgentSpec(agent.spec);
    if (spec.kind === 'model') providers.push(providerKey(spec));
  }
  return providers;
}

/** The folder recordings go to: given, or beside the results file (`results.jsonl` → `results.recordings`). */
export function recordDirOf(options: Pick<EvalOptions, 'out' | 'recordDir'>): string {
  if (typeof options.recordDir === 'string') return resolve(options.recordDir);
  const out = resolve(options.out);
  return `${out.endsWith('.jsonl') ? out.slice(0, -'.jsonl'.length) : out}.recordings`;
}

function count(spent: EvalSpent, episode: EvalEpisode): void {
  spent.tokens += (episode.tokens?.input ?? 0) + (episode.tokens?.output ?? 0);
  spent.usd += episode.costUsd ?? 0;
}

/** What a dry run prints: the plan, and at most what its model agents could spend. */
export interface EvalPlan {
  world: string;
  agents: EvalAgentSpec[];
  roles: string[];
  params: number;
  seeds: number;
  jobs: number;
  /** Jobs the results file lacks. */
  todo: number;
  /** Per model agent, over its episodes still to run. */
  worstCase: Array<{ agent: string; episodes: number; turns: number; inputTokens: number; outputTokens: number; usd: number }>;
}

/** The pi options with their paths absolute: a worker resolves them as this process would. */
function absolutePi(pi: PiEvalOptions): PiEvalOptions {
  return {
    // A bare name (`pi`) is looked up on PATH where the episode runs.
    ...(pi.bin !== undefined && { bin: pi.bin.includes('/') ? resolve(pi.bin) : pi.bin }),
    ...(pi.node !== undefined && { node: pi.node.includes('/') ? resolve(pi.node) : pi.node }),
    ...(pi.agentDir !== undefined && { agentDir: resolve(pi.agentDir) }),
    ...(pi.cwd !== undefined && { cwd: resolve(pi.cwd) }),
  };
}

/**
 * The plan of a prepared eval and its worst case: each episode of a model agent runs at most
 * maxTicks ticks, and each role at most one decision a tick (a decision starts on news, and the
 * world's clock stands still while a model thinks), of at most maxStepsPerDecision turns, each
 * filling the model's context window and its answer limit.
 */
export async function planEval(options: EvalOptions, prepared: PreparedEval): Promise<EvalPlan> {
  const { sweep, agents, roles } = prepared;
  const maxTicks = options.maxTicks ?? sweep.world.maxTicks;
  const todoOf = new Map<string, number>();
  for (const job of sweep.plan.without(sweep.held.keys)) todoOf.set(job.agent!.name, (todoOf.get(job.agent!.name) ?? 0) + 1);
  const worstCase: EvalPlan['worstCase'] = [];
  for (const agent of agents) {
    const spec = parseAgentSpec(agent.spec);
    if (spec.kind !== 'model') continue;
    const model = await piAiModel({
      provider: spec.provider,
      model: spec.model,
      ...(spec.baseUrl !== undefined && { baseUrl: spec.baseUrl }),
      ...(options.maxTokens !== undefined && { maxTokens: options.maxTokens }),
    });
    const episodes = todoOf.get(agent.name) ?? 0;
    const turns = episodes * maxTicks * roles.length * MODEL_BACKEND_DEFAULTS.maxStepsPerDecision;
    const inputTokens = turns * model.limits.contextWindow;
    const outputTokens = turns * model.limits.maxTokens;
    worstCase.push({
      agent: agent.name,
      episodes,
      turns,
      inputTokens,
      outputTokens,
      usd: (inputTokens * model.price.input + outputTokens * model.price.output) / 1e6,
    });
  }
  return {
    world: sweep.world.name,
    agents,
    roles,
    params: sweep.plan.paramsList.length,
    seeds: sweep.plan.seeds.size,
    jobs: sweep.plan.size,
    todo: sweep.todo,
    worstCase,
  };
}
