// The swarm's numeric face, for classic RL (`aicc serve swarm --face vectors`): each forager sees the
// 5×5 cells around it (1 food, 0 bare, -1 beyond the edge, its own cell in the middle) and picks one
// of five moves — eat where it stands, or a step north, south, west or east — each a tool call
// through the capsule like any agent's.

import type { VectorFace } from '../../research/world.js';
import type { SwarmWorld } from './world.js';

/** How far the window reaches from the forager's cell: 2 gives 5×5. */
export const VIEW_REACH = 2;

const MOVES = [
  { name: 'eat', call: { tool: 'eat', input: {} } },
  { name: 'north', call: { tool: 'move', input: { dx: 0, dy: -1 } } },
  { name: 'south', call: { tool: 'move', input: { dx: 0, dy: 1 } } },
  { name: 'west', call: { tool: 'move', input: { dx: -1, dy: 0 } } },
  { name: 'east', call: { tool: 'move', input: { dx: 1, dy: 0 } } },
] as const;

/** The vector face over `world`, whose foragers are named by `names` (index by index). */
export function swarmVectors(world: SwarmWorld, names: readonly string[]): VectorFace {
  const index = new Map(names.map((name, i) => [name, i]));
  const side = 2 * VIEW_REACH + 1;
  return {
    observation: { shape: [side, side], low: -1, high: 1 },
    actions: MOVES.map((move) => move.name),
    observe(character) {
      const at = world.at(index.get(character)!);
      const out: number[] = [];
      for (let dy = -VIEW_REACH; dy <= VIEW_REACH; dy++)
        for (let dx = -VIEW_REACH; dx <= VIEW_REACH; dx++) {
          const [x, y] = [at.x + dx, at.y + dy];
          out.push(x < 0 || y < 0 || x >= world.size || y >= world.size ? -1 : world.food[y * world.size + x]!);
        }
      return out;
    },
    act: (_character, move) => {
      const { tool, input } = MOVES[move]!.call;
      return { tool, input: { ...input } };
    },
  };
}
