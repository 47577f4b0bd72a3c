// One eval job where it runs (a worker thread, a queue worker, or the coordinator itself): the agent
// under test made from its spec — a world's policy, a program of its own, or a model through pi's provider library,
// loaded once per process and shared by its episodes — seated in the job's episode, and, when the
// eval keeps recordings, a model's episode's recording (its cassette) written beside the results.

import { join, relative } from 'node:path';
import type { CassetteEntry, ModelExchange } from '../../agent/model/cassette.js';
import { modelAgent, policyAgent } from '../../research/evalAgents.js';
import { type EvalAgent, runEvalEpisode } from '../../research/evalEpisode.js';
import type { EvalEpisode } from '../../research/evalResult.js';
import { jobId } from '../../research/sweepPlan.js';
import type { Params, World } from '../../research/world.js';
import { piAiModel, type PiAiModel } from '../model/piAi.js';
import { type AgentSpec, parseAgentSpec } from './agentSpec.js';
import { processSlot, type SharedSlots, sharedSlot } from './providerSlots.js';
import type { PiEvalOptions } from './piEvalAgent.js';
import { programAgent } from './programAgent.js';
import { EVAL_RECORDING_FORMAT, recordedExchange, writeEvalRecording } from './evalRecording.js';

/** What a job carries for an eval, beside its seed, params and ticks (src/node/sweep/job.ts's JobSpec has them all, optional). */
export interface EvalJobFields {
  /** The agent under test. */
  agent: { name: string; spec: string };
  /** The characters it plays; default every character the world lists. */
  roles?: string[];
  /** Wall ms it may take to settle after a tick. */
  hangMs?: number;
  /** A model agent's longest answer per turn, in tokens. */
  maxTokens?: number;
  /** How long a cmd: or mcp: program's silence takes to count as settled (ProgramAgentOptions). */
  quietMs?: number;
  answeredMs?: number;
  /** Where each model episode's recording goes (absolute), and the folder its path in the results is relative to. */
  recordDir?: string;
  recordBase?: string;
  /** Model requests in flight per provider: slots shared by the eval's threads, or a bound for this process. */
  providerSlots?: SharedSlots;
  providerConcurrency?: number;
  /** How pi: and pi-daemon: agents start. */
  pi?: PiEvalOptions;
}

/** One eval job as it reaches runEvalJob. */
export interface EvalJob extends EvalJobFields {
  seed: number;
  params: Params;
  maxTicks?: number;
  hashEvery?: number;
}

/** Runs one job's episode with its agent under test. */
export async function runEvalJob(world: World, job: EvalJob): Promise<EvalEpisode> {
  // Only a model's episodes need a recording: a policy's replays from its results line alone.
  const recordDir = parseAgentSpec(job.agent.spec).kind === 'model' ? job.recordDir : undefined;
  const exchanges: CassetteEntry[] = [];
  const record = recordDir !== undefined ? (exchange: ModelExchange, tick: number) => exchanges.push(recordedExchange(exchange, tick)) : undefined;
  const episode = await runEvalEpisode(world, {
    seed: job.seed,
    params: job.params,
    agent: evalAgentOf(job.agent.spec, {
      ...(job.maxTokens !== undefined && { maxTokens: job.maxTokens }),
      ...(record !== undefined && { record }),
      ...(job.providerSlots !== undefined && { providerSlots: job.providerSlots }),
      ...(job.providerConcurrency !== undefined && { providerConcurrency: job.providerConcurrency }),
      ...(job.pi !== undefined && { pi: job.pi }),
      ...(job.quietMs !== undefined && { quietMs: job.quietMs }),
      ...(job.answeredMs !== undefined && { answeredMs: job.answeredMs }),
    }),
    agentName: job.agent.name,
    agentSpec: job.agent.spec,
    ...(job.roles !== undefined && { roles: job.roles }),
    ...(job.hangMs !== undefined && { hangMs: job.hangMs }),
    ...(job.maxTicks !== undefined && { maxTicks: job.maxTicks }),
    ...(job.hashEvery !== undefined && { hashEvery: job.hashEvery }),
  });
  if (recordDir === undefined) return episode;
  const path = join(recordDir, `${jobId({ world: world.name, params: episode.params, seed: job.seed, agent: job.agent })}.jsonl`);
  writeEvalRecording(path, {
    header: {
      format: EVAL_RECORDING_FORMAT,
      world: world.name,
      seed: job.seed,
      params: episode.params,
      agent: job.agent.name,
      agentSpec: job.agent.spec,
      roles: episode.roles,
      ...(job.maxTicks !== undefined && { maxTicks: job.maxTicks }),
    },
    exchanges,
    end: { stateHash: episode.stateHash, ticks: episode.ticks },
  });
  // Where the report and --verify find it: relative to the results file, with forward slashes on any system.
  return {
    ...episode,
    recording: relative(job.recordBase ?? recordDir, path)
      .split('\\')
      .join('/'),
  };
}

/** The agent a spec names (parseAgentSpec's forms); a model answers in at most `maxTokens` a turn, its exchanges handed to `record`. */
export function evalAgentOf(
  spec: string,
  options: {
    maxTokens?: number;
    record?: (exchange: ModelExchange, tick: number) => void;
    providerSlots?: SharedSlots;
    providerConcurrency?: number;
    pi?: PiEvalOptions;
    quietMs?: number;
    answeredMs?: number;
  } = {},
): EvalAgent {
  const parsed = parseAgentSpec(spec);
  if (parsed.kind === 'policy') return policyAgent(parsed.policy);
  const program = {
    ...(options.quietMs !== undefined && { quietMs: options.quietMs }),
    ...(options.answeredMs !== undefined && { answeredMs: options.answeredMs }),
  };
  if (parsed.kind === 'cmd') return programAgent(parsed.command, program);
  if (parsed.kind === 'mcp') return lazyAgent(async () => (await import('./mcpAgent.js')).mcpAgent(parsed.command, program));
  if (parsed.kind === 'pi' || parsed.kind === 'pi-daemon')
    return lazyAgent(async () => (await import('./piEvalAgent.js')).piEvalAgent(parsed, options.pi ?? {}));
  const { maxTokens } = options;
  // Temperature 0: the same request, as near the same answer as the provider allows.
  const model = cachedModel(`${spec} ${maxTokens ?? ''}`, () =>
    piAiModel({
      provider: parsed.provider,
      model: parsed.model,
      temperature: 0,
      ...(parsed.baseUrl !== undefined && { baseUrl: parsed.baseUrl }),
      ...(maxTokens !== undefined && { maxTokens }),
    }),
  );
  const provider = providerKey(parsed);
  const slot =
    options.providerSlots !== undefined
      ? sharedSlot(options.providerSlots, provider)
      : options.providerConcurrency !== undefined
        ? processSlot(provider, options.providerConcurrency)
        : undefined;
  return modelAgent({
    turnOf: () => async (request, turnOptions) => (await model).turn(request, turnOptions),
    ...(options.record !== undefined && { exchange: options.record }),
    ...(slot !== undefined && { slot }),
  });
}

/** An agent whose module is loaded when it is first seated: what it brings (the MCP SDK, ws) only when asked for. */
function lazyAgent(load: () => Promise<EvalAgent>): EvalAgent {
  let agent: Promise<EvalAgent> | undefined;
  return async (seat) => {
    agent ??= load();
    return (await agent)(seat);
  };
}

const models = new Map<string, Promise<PiAiModel>>();

function cachedModel(key: string, load: () => Promise<PiAiModel>): Promise<PiAiModel> {
  let model = models.get(key);
  if (model === undefined) {
    model = load();
    // A model that failed to load (no key yet, pi-ai missing) is tried again by the next episode.
    model.catch(() => models.delete(key));
    models.set(key, model);
  }
  return model;
}

/** What one provider is, for its concurrency bound: its id, and the server when it has its own. */
export function providerKey(spec: Extract<AgentSpec, { kind: 'model' }>): string {
  return spec.baseUrl === undefined ? spec.provider : `${spec.provider}@${spec.baseUrl}`;
}
