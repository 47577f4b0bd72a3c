// One eval job where it runs (a worker thread, a queue worker, or the coordinator itself): the agent
// under test made from its spec — a world's policy, or a model through pi's provider library,
// loaded once per process and shared by its episodes — seated in the job's episode.

import { policyAgent, modelAgent } from '../../research/evalAgents.js';
import { type EvalAgent, runEvalEpisode } from '../../research/evalEpisode.js';
import type { EvalEpisode } from '../../research/evalResult.js';
import type { World } from '../../research/world.js';
import { piAiModel, type PiAiModel } from '../model/piAi.js';
import type { JobSpec } from '../sweep/job.js';
import { parseAgentSpec } from './agentSpec.js';

/** Runs one job's episode with its agent under test. */
export async function runEvalJob(world: World, job: JobSpec & { agent: { name: string; spec: string } }): Promise<EvalEpisode> {
  return runEvalEpisode(world, {
    seed: job.seed,
    params: job.params,
    agent: evalAgentOf(job.agent.spec, job.maxTokens),
    agentName: job.agent.name,
    agentSpec: job.agent.spec,
    ...(job.roles !== undefined && { roles: job.roles }),
    ...(job.hangMs !== undefined && { hangMs: job.hangMs }),
    ...(job.maxTicks !== undefined && { maxTicks: job.maxTicks }),
    ...(job.hashEvery !== undefined && { hashEvery: job.hashEvery }),
  });
}

/** The agent a spec names (parseAgentSpec's forms); a model answers in at most `maxTokens` a turn (default piAiModel's). */
export function evalAgentOf(spec: string, maxTokens?: number): EvalAgent {
  const parsed = parseAgentSpec(spec);
  if (parsed.kind === 'policy') return policyAgent(parsed.policy);
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
  return modelAgent({ turnOf: () => async (request, options) => (await model).turn(request, options) });
}

const models = new Map<string, Promise<PiAiModel>>();

function cachedModel(spec: string, load: () => Promise<PiAiModel>): Promise<PiAiModel> {
  let model = models.get(spec);
  if (model === undefined) {
    model = load();
    // A model that failed to load (no key yet, pi-ai missing) is tried again by the next episode.
    model.catch(() => models.delete(spec));
    models.set(spec, model);
  }
  return model;
}
