// The village as a research world: the same three villagers and goals as `aicc demo`, with two
// knobs that make episodes differ in outcome. `apples` is how many apples the orchard holds (the
// baker needs two for her pie, the farmer sells what he gathers), `dayTicks` how long the day lasts
// before nightfall ends it. With the defaults a day is long enough for every seed; around 200 ticks
// (20 simulated seconds) some seeds finish and some do not.

import type { ScriptedAgent } from '../../agent/scripted.js';
import type { TextWorldSpec } from '../../adapters/text/spec.js';
import { defineWorld } from '../../research/world.js';
import type { TextWorld } from '../../adapters/text/world.js';
import { Baker, Bard, Farmer, Wanderer } from './roles.js';
import { buildVillage, VILLAGE_SPEC, VILLAGER_GOALS, VILLAGER_SESSION, VILLAGERS, type Villager } from './world.js';

const ROLES = { ada: Baker, bram: Farmer, cleo: Bard } as const;
const ORCHARD_APPLES = VILLAGE_SPEC.items!.filter((item) => item.location === 'orchard' && item.id.endsWith('_apple'));

/** The village with only the first `apples` of the orchard's apples. */
function villageSpec(apples: number): TextWorldSpec {
  const dropped = new Set(ORCHARD_APPLES.slice(Math.max(0, Math.floor(apples))).map((item) => item.id));
  return { ...VILLAGE_SPEC, items: VILLAGE_SPEC.items!.filter((item) => !dropped.has(item.id)) };
}

/**
 * Each villager's goal as the world's state shows it, whoever plays them: the baker in her bakery
 * with two apples for the pie, the farmer with bread he was paid, a note left in the square.
 */
const GOAL_MET: Readonly<Record<Villager, (world: TextWorld) => boolean>> = {
  ada: (world) => world.character('ada')?.room === 'bakery' && world.itemsAt('ada').filter((item) => item.id.endsWith('_apple')).length >= 2,
  bram: (world) => world.itemsAt('bram').some((item) => item.id.endsWith('_loaf')),
  cleo: (world) => world.itemsAt('square').some((item) => item.id.startsWith('note')),
};

const isVillager = (character: string): character is Villager => Object.hasOwn(GOAL_MET, character);

export const villageWorld = defineWorld({
  name: 'village',
  description: 'Three villagers with goals of their own (a pie, a trade, a ballad) in an eight-room text world.',
  params: { apples: ORCHARD_APPLES.length, dayTicks: 600 },
  maxTicks: 600,
  setup({ seed, params }) {
    if (!(params.apples >= 0 && params.apples <= ORCHARD_APPLES.length))
      throw new RangeError(`village: apples must be from 0 to ${ORCHARD_APPLES.length}, got ${params.apples}`);
    if (!(Number.isInteger(params.dayTicks) && params.dayTicks >= 1))
      throw new RangeError(`village: dayTicks must be a whole number >= 1, got ${params.dayTicks}`);
    const { capsule, world } = buildVillage(seed, villageSpec(params.apples));
    // The villagers the world's own policy plays: each says itself when its goal is done.
    const minds = new Map<Villager, ScriptedAgent>();
    // The tick each villager met its goal at, once it has: by its own word when the world's policy
    // plays it (the pie baked, not only the apples in hand), by the world's state for anyone else.
    const metAt = new Map<string, number>();
    // Each villager's goal, judged again only when the world changed: an eval asks every tick.
    const goals = new Map<Villager, boolean>();
    const offChange = world.on(() => goals.clear());
    const goalMet = (id: Villager): boolean => {
      let met = goals.get(id);
      if (met === undefined) goals.set(id, (met = GOAL_MET[id](world)));
      return met;
    };
    const offTick = capsule.on('tick', ({ tick }) => {
      for (const id of VILLAGERS) {
        if (metAt.has(id)) continue;
        const mind = minds.get(id);
        if (mind !== undefined ? mind.done : goalMet(id)) metAt.set(id, tick);
      }
    });
    const goalsMet = (): number => metAt.size;
    return {
      capsule,
      agents: Object.fromEntries(VILLAGERS.map((id) => [id, VILLAGER_SESSION])),
      policy({ character, client, random }) {
        const id = character as Villager;
        minds.set(id, new ROLES[id](client, id, random));
      },
      policies: {
        wanderer({ character, client, random }) {
          new Wanderer(client, character, random);
        },
      },
      goal: (character) => isVillager(character) && goalMet(character),
      brief(character) {
        const who = world.character(character);
        return {
          ...(who !== undefined && { name: who.name, description: who.description }),
          ...(isVillager(character) && { goal: VILLAGER_GOALS[character] }),
        };
      },
      metrics: () => ({
        goalsMet: goalsMet(),
        pieBaked: metAt.has('ada') ? 1 : 0,
        tradeDone: metAt.has('bram') ? 1 : 0,
        balladLeft: metAt.has('cleo') ? 1 : 0,
        lastGoalTick: Math.max(0, ...metAt.values()),
      }),
      score: (character) => (metAt.has(character) ? 1 : 0),
      stop: () => (goalsMet() === VILLAGERS.length ? 'goals_met' : capsule.tick >= params.dayTicks ? 'nightfall' : undefined),
      state: () => ({ tick: capsule.tick, ...world.snapshot(), goals: Object.fromEntries([...metAt].sort(([a], [b]) => (a < b ? -1 : 1))) }),
      dispose: () => {
        offTick();
        offChange();
      },
    };
  },
});
