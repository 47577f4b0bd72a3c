// The swarm world's engine hooks as capsule tools: `sense` (a sensor), `move` and `eat` (actuators).
// Each is a thin call into SwarmWorld; what the capsule adds — schemas, capabilities, limits, the
// protocol — is what the bench measures.

import type { Capsule } from '../../runtime/capsule.js';
import { foragerName } from './names.js';
import { HEARING_RADIUS, MAX_SEEN, type SwarmWorld } from './world.js';

const point = { type: 'object', properties: { x: { type: 'integer' }, y: { type: 'integer' } }, required: ['x', 'y'] };

/**
 * Registers the tools on a capsule whose characters are named by `foragerName`. Limits sit well
 * above what the foragers use (about 3 calls of each a second): a guard against a runaway agent.
 */
export function registerSwarmTools(capsule: Capsule, world: SwarmWorld): void {
  const names = Array.from({ length: world.foragers }, (_, i) => foragerName(i));
  const byName = new Map(names.map((name, i) => [name, i]));
  const forager = (character: string): number => {
    const index = byName.get(character);
    if (index === undefined) throw new Error(`no forager named ${character} in this world`);
    return index;
  };

  capsule.registerTool({
    id: 'sense',
    class: 'sensor',
    description: `Where you stand, and the nearest food cells within radius (at most ${MAX_SEEN}, nearest first).`,
    input_schema: { type: 'object', properties: { radius: { type: 'integer', minimum: 1, maximum: 8 } }, required: ['radius'] },
    output_schema: { type: 'object', properties: { at: point, food: { type: 'array', items: point, maxItems: MAX_SEEN } }, required: ['at', 'food'] },
    limits: { calls_per_minute: 600 },
    requires_capability: 'smell',
    strict_input: true,
    handler: ({ radius }: { radius: number }, context) => world.sense(forager(context.character), radius),
  });

  capsule.registerTool({
    id: 'move',
    class: 'actuator',
    description: 'One step in any of the eight directions (dx and dy from -1 to 1); the edge is a wall.',
    input_schema: {
      type: 'object',
      properties: { dx: { type: 'integer', minimum: -1, maximum: 1 }, dy: { type: 'integer', minimum: -1, maximum: 1 } },
      required: ['dx', 'dy'],
    },
    output_schema: { type: 'object', properties: { at: point }, required: ['at'] },
    limits: { calls_per_minute: 600 },
    requires_capability: 'legs',
    strict_input: true,
    handler: ({ dx, dy }: { dx: number; dy: number }, context) => ({ at: world.move(forager(context.character), dx, dy) }),
  });

  capsule.registerTool({
    id: 'eat',
    class: 'actuator',
    description: 'Eats the food where you stand, if there is any.',
    input_schema: { type: 'object', properties: {} },
    output_schema: { type: 'object', properties: { ate: { type: 'boolean' }, eaten: { type: 'integer' } }, required: ['ate', 'eaten'] },
    limits: { calls_per_minute: 600 },
    requires_capability: 'mouth',
    strict_input: true,
    handler: (_input, context) => {
      const index = forager(context.character);
      const outcome = world.eat(index);
      if (outcome.ate) {
        // Neighbours learn the cell is gone: a state_change to them alone, not a broadcast.
        const near = world.neighbours(index, HEARING_RADIUS);
        if (near.length > 0) {
          const at = world.at(index);
          capsule.emit('state_change', { entity: `cell:${at.x},${at.y}`, field: 'food', value: false, previous: true }, { to: near.map((i) => names[i]!) });
        }
      }
      return outcome;
    },
  });
}
