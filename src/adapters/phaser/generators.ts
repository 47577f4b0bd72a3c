// The generator of a Phaser scene: `spawn` makes a new object from one of the templates the game
// registered (addTemplate) — an apple, a sign, a campfire — at a point inside the world.

import { defineTool } from '../../runtime/tool.js';
import { objectOf } from '../shared/schemas.js';
import { caller, coordinate, withOptions, type PhaserToolOptions, type SceneWorld } from './phaserTool.js';

export type SpawnOutput = { id: string; template: string; kind: string; x: number; y: number };

/**
 * `spawn { template, x, y }` — makes an object from a template at (x, y) and answers with its new
 * id. The manifest lists the templates registered when the tool was; one added later works too. The
 * scene holds at most `maxSpawned` spawned objects at once. Requires generator `conjure`.
 * Limit: 10 calls/min — new things are events, not a stream.
 */
export function spawnTool(world: SceneWorld, options?: PhaserToolOptions) {
  const known = world.entities.templates().map((template) => `${template.name} (${template.description})`);
  return withOptions(
    defineTool({
      id: 'spawn',
      class: 'generator',
      description: `Make something new at a point in the world, from a template: ${known.length > 0 ? known.join(', ') : 'the game has registered none yet'}. Answers with its id.`,
      input_schema: objectOf({
        template: { type: 'string', minLength: 1, maxLength: 32, description: 'Which template.' },
        x: coordinate('Where, x.'),
        y: coordinate('Where, y.'),
      }),
      output_schema: objectOf({ id: { type: 'string' }, template: { type: 'string' }, kind: { type: 'string' }, x: { type: 'number' }, y: { type: 'number' } }),
      limits: { calls_per_minute: 10 },
      requires_capability: 'conjure',
      strict_input: true,
      handler: ({ template, x, y }, context): SpawnOutput => {
        caller(world, context);
        const made = world.spawn(template, x, y);
        return { id: made.id, template, kind: made.kind, x, y };
      },
    }),
    options,
  );
}
