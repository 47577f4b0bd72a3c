// What a world offers a remote agent, read from one episode set up for the purpose (seed 0, default
// params) and kept: its characters, its faces, the shape of a tools-face action and, when it
// declares a vector face, the spaces classic RL needs before its first reset (Gymnasium's
// observation_space and action_space).

import { ServedEnv } from '../../research/servedEnv.js';
import type { World } from '../../research/world.js';

export interface WorldSchema {
  world: string;
  agents: string[];
  faces: Array<'tools' | 'vectors'>;
  tools: { action: object; observation: object };
  vectors?: { observation: { shape: readonly number[]; low: number; high: number; dtype: 'float32' }; actions: readonly string[] };
}

const cache = new WeakMap<World, Promise<WorldSchema>>();

export function worldSchema(world: World): Promise<WorldSchema> {
  let schema = cache.get(world);
  if (schema === undefined) {
    schema = read(world);
    cache.set(world, schema);
    // A world whose setup failed once may be fixed (a module reloaded): do not keep the failure.
    schema.catch(() => cache.delete(world));
  }
  return schema;
}

async function read(world: World): Promise<WorldSchema> {
  const env = new ServedEnv(world);
  try {
    await env.reset({ seed: 0 });
    const spaces = env.spaces();
    return {
      world: world.name,
      agents: env.agents,
      faces: spaces === undefined ? ['tools'] : ['tools', 'vectors'],
      tools: {
        action: {
          type: 'object',
          properties: { tool: { type: 'string', minLength: 1, maxLength: 64 }, input: { type: 'object' } },
          required: ['tool'],
          additionalProperties: false,
        },
        observation: {
          type: 'object',
          properties: { tick: { type: 'integer' }, events: { type: 'array' }, results: { type: 'array' } },
          required: ['tick', 'events', 'results'],
        },
      },
      ...(spaces !== undefined && { vectors: { observation: { ...spaces.observation, dtype: 'float32' as const }, actions: spaces.actions } }),
    };
  } finally {
    await env.close();
  }
}
