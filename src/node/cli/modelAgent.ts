// `aicc demo --agent model:PROVIDER/MODEL`: one villager driven by a model reached directly through
// pi's provider library (no pi process): the pilot briefs it, the villager's tools are its native
// tools. `--base-url` points it at any OpenAI-compatible server (a local model); otherwise the
// provider's catalog and key (environment, or pi's credential store) are used. With --record, every
// model turn goes into the recording as well (the cassette), so `aicc replay` re-runs the day with
// no model at all.

import type { AgentClient } from '../../agent/agentClient.js';
import { recordingTurn } from '../../agent/model/cassette.js';
import { ModelBackend } from '../../agent/model/modelBackend.js';
import type { ModelTurn } from '../../agent/model/modelPort.js';
import { ProviderGate } from '../../agent/model/providerGate.js';
import type { PilotContext } from '../../worlds/village/run.js';
import { piAiModel, type PiAiModelOptions } from '../model/piAi.js';

export interface ModelAgent {
  /** Made with the villager's session, whose tools the model calls, and the run's clock and cassette. */
  backend: (client: AgentClient, context: PilotContext) => ModelBackend;
  /** `provider/model`. */
  name: string;
  /** The pi-ai package that serves it. */
  library: string;
  close(): Promise<void>;
}

/** A model agent on pi-ai; `systemPrompt` in place of the backend's short default (a fork tries another prompt). */
export async function startModelAgent(options: PiAiModelOptions & { systemPrompt?: string }): Promise<ModelAgent> {
  const { systemPrompt, ...modelOptions } = options;
  const model = await piAiModel(modelOptions);
  return { ...modelAgentOf(() => model.turn, `${options.provider}/${options.model}`, 'cleo', systemPrompt), library: model.library };
}

/** A model agent on any turn (a live model's, or a cassette's): the backend, on the run's clock, recording each exchange. */
export function modelAgentOf(
  turnOf: (context: PilotContext) => ModelTurn,
  name: string,
  character = 'cleo',
  systemPrompt?: string,
): Omit<ModelAgent, 'library'> {
  const backends: ModelBackend[] = [];
  return {
    backend: (client, context) => {
      // One request at a time: a local model on a small machine serves one anyway, and a cloud one is not flooded by one villager.
      const gate = new ProviderGate({ maxConcurrent: 1, clock: context.clock });
      const turn = turnOf(context);
      const recorded = context.exchange === undefined ? turn : recordingTurn(turn, { character, tick: context.tick, record: context.exchange });
      // Messages stamped on the village's clock, not the wall's: a replay sends byte-identical requests.
      const backend = new ModelBackend({ client, turn: recorded, gate, now: () => context.clock.now(), ...(systemPrompt !== undefined && { systemPrompt }) });
      backends.push(backend);
      return backend;
    },
    name,
    close: async () => {
      for (const backend of backends) backend.close();
    },
  };
}
