// The swarm as a research world: foragers on a grid of regrowing food, each driven by its own scripted
// agent over aicc/0.1. The knobs are the population and the food: at a low density and slow regrowth,
// where the foragers start decides who eats, so seeds differ in outcome. Its roles compete: what one
// forager eats the others cannot, so an eval's forager under test is scored (what it ate) against
// the same field on every seed; its goal is SWARM_GOAL_EATEN, about what the world's own forager eats
// in a day; `wanderer` is a second policy that walks past the food it sees. Its vector face
// (vectors.ts) is a 5×5 window of food and five moves, for classic RL through `aicc serve`.

import { defineWorld } from '../../research/world.js';
import type { ValidatorFactory } from '../../runtime/validator.js';
import { ajvValidators } from '../../validators/ajv.js';
import { ForagerAgent } from './agent.js';
import { foragerName } from './names.js';
import { ForagerBrain } from './policy.js';
import { swarmState } from './state.js';
import { buildSwarmCapsule, FORAGER_SESSION } from './swarm.js';
import { swarmVectors } from './vectors.js';

let sharedValidators: ValidatorFactory | undefined;

/** What a forager must have eaten to meet its goal: the world's own foragers' median in 300 ticks at the defaults. */
export const SWARM_GOAL_EATEN = 15;

export const swarmWorld = defineWorld({
  name: 'swarm',
  description: 'Foragers on a grid of regrowing food, each deciding sense-then-act every 2 to 4 ticks.',
  params: { foragers: 16, size: 24, foodDensity: 0.05, regrowPerTick: 1 },
  maxTicks: 300,
  setup({ params, random }) {
    // One validator factory for every episode of this process: the tools' schemas compile once.
    const { capsule, world, foragers } = buildSwarmCapsule({ ...params, validators: (sharedValidators ??= ajvValidators()) }, random);
    const agents: ForagerAgent[] = [];
    const names = Array.from({ length: foragers }, (_, i) => foragerName(i));
    return {
      capsule,
      agents: Object.fromEntries(names.map((name) => [name, FORAGER_SESSION])),
      vectors: swarmVectors(world, names),
      policy({ client, random: own }) {
        agents.push(new ForagerAgent(client, new ForagerBrain(own)));
      },
      policies: {
        wanderer({ client, random: own }) {
          agents.push(new ForagerAgent(client, new ForagerBrain(own, false)));
        },
      },
      metrics: () => {
        const eaten = Array.from(world.eaten);
        return {
          totalEaten: world.totalEaten,
          foodLeft: world.foodLeft(),
          hungry: eaten.filter((count) => count === 0).length,
          mostEaten: Math.max(0, ...eaten),
          decisions: agents.reduce((sum, agent) => sum + agent.brain.decisions, 0),
          failures: agents.reduce((sum, agent) => sum + agent.failures, 0),
        };
      },
      score: (character) => world.eaten[Number(character.slice('forager-'.length))] ?? 0,
      goal: (character) => (world.eaten[Number(character.slice('forager-'.length))] ?? 0) >= SWARM_GOAL_EATEN,
      brief: (character) => ({
        name: character,
        goal: `eat at least ${SWARM_GOAL_EATEN} pieces of food, and as many as you can: sense what is near, move towards food (one step a call), eat where you stand on it. The other foragers eat the same food.`,
      }),
      state: () => {
        const { foragers: each, ...rest } = swarmState(capsule.tick, world, agents);
        // Where each forager is and what it ate, and the food grid: the world, not the agents' minds.
        return { ...rest, foragers: each.map(({ character, eaten, x, y }) => ({ character, eaten, x, y })), food: Array.from(world.food).join('') };
      },
    };
  },
});
