// `aicc demo --agent model:PROVIDER/MODEL`: one villager driven by a model reached directly through
// pi's provider library (no pi process): the pilot briefs it, the villager's tools are its native
// tools. `--base-url` points it at any OpenAI-compatible server (a local model); otherwise the
// provider's catalog and key (environment, or pi's credential store) are used.

import type { AgentClient } from '../../agent/agentClient.js';
import { ModelBackend } from '../../agent/model/modelBackend.js';
import { ProviderGate } from '../../agent/model/providerGate.js';
import { piAiModel, type PiAiModelOptions } from '../model/piAi.js';

export interface ModelAgent {
  /** Made with the villager's session, whose tools the model calls. */
  backend: (client: AgentClient) => ModelBackend;
  /** `provider/model (library@version)`, for the story's first line. */
  name: string;
  close(): Promise<void>;
}

export async function startModelAgent(options: PiAiModelOptions): Promise<ModelAgent> {
  const model = await piAiModel(options);
  // One request at a time: a local model on a small machine serves one anyway, and a cloud one is not flooded by one villager.
  const gate = new ProviderGate({ maxConcurrent: 1 });
  const backends: ModelBackend[] = [];
  return {
    backend: (client) => {
      const backend = new ModelBackend({ client, turn: model.turn, gate });
      backends.push(backend);
      return backend;
    },
    name: `${model.name} (${model.library})`,
    close: async () => {
      for (const backend of backends) backend.close();
    },
  };
}
