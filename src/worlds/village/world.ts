// The village: eight rooms, three characters with their own goals, and things worth trading. The
// world has no randomness of its own; the seed only decides ids and the agents' choices.

import { bindTextWorld } from '../../adapters/text/bind.js';
import type { TextWorldSpec } from '../../adapters/text/spec.js';
import { TextWorld } from '../../adapters/text/world.js';
import { SeededRandom } from '../../adapters/headless/random.js';
import type { Link } from '../../links/link.js';
import { createCapsule, type Capsule } from '../../runtime/capsule.js';
import { ManualClock } from '../../base/clock.js';
import type { ConnectOptions } from '../../runtime/options.js';
import type { ValidatorFactory } from '../../runtime/validator.js';
import { ajvValidators } from '../../validators/ajv.js';

export const VILLAGE_SPEC: TextWorldSpec = {
  rooms: [
    {
      id: 'square',
      name: 'Village Square',
      description: 'A cobbled square around an old lime tree.',
      exits: { north: 'bakery', east: 'market', south: 'well', west: 'lane' },
    },
    { id: 'bakery', name: 'Bakery', description: 'Warm and smelling of rye; an oven glows at the back.', exits: { south: 'square' } },
    { id: 'market', name: 'Market', description: 'Empty stalls wait for traders under striped awnings.', exits: { west: 'square', north: 'tavern' } },
    { id: 'tavern', name: 'Tavern', description: 'Low beams, a cold hearth and a bench by the window.', exits: { south: 'market' } },
    { id: 'well', name: 'Well', description: 'A mossy well with a rope and a dented bucket.', exits: { north: 'square' } },
    { id: 'lane', name: 'Orchard Lane', description: 'A muddy lane between hedges.', exits: { east: 'square', west: 'orchard', north: 'mill' } },
    { id: 'orchard', name: 'Orchard', description: 'Rows of apple trees, the grass full of windfalls.', exits: { east: 'lane' } },
    { id: 'mill', name: 'Mill', description: 'The millwheel creaks; flour dust hangs in the light.', exits: { south: 'lane' } },
  ],
  items: [
    { id: 'red_apple', name: 'red apple', description: 'Crisp and shiny.', location: 'orchard' },
    { id: 'green_apple', name: 'green apple', description: 'Sour, good for baking.', location: 'orchard' },
    { id: 'golden_apple', name: 'golden apple', description: 'Sweet, and a little bruised.', location: 'orchard' },
    { id: 'rye_loaf', name: 'rye loaf', description: 'Dark and still warm.', location: 'ada' },
    { id: 'wheat_loaf', name: 'wheat loaf', description: 'Pale, with a cracked crust.', location: 'ada' },
    { id: 'lute', name: 'lute', description: 'Three strings left, and they will do.', location: 'tavern' },
    { id: 'bucket', name: 'bucket', description: 'Dented, but it holds water.', location: 'well' },
    { id: 'millstone', name: 'millstone', description: 'Far too heavy to carry.', location: 'mill', portable: false },
  ],
  characters: [
    { id: 'ada', name: 'Ada', description: 'The baker, flour to the elbows.', room: 'bakery', role: 'baker' },
    { id: 'bram', name: 'Bram', description: 'The farmer, boots caked in mud.', room: 'mill', role: 'farmer' },
    { id: 'cleo', name: 'Cleo', description: 'A wandering bard with ink on her fingers.', room: 'tavern', role: 'bard' },
  ],
};

export const VILLAGERS = ['ada', 'bram', 'cleo'] as const;
export type Villager = (typeof VILLAGERS)[number];

/** What each villager is after, told to a model that plays one (villageWorld judges it from the world's state). */
export const VILLAGER_GOALS: Readonly<Record<Villager, string>> = {
  ada: 'get two apples for a pie, paying with your bread, then bake it at the Bakery',
  bram: 'gather the orchard apples and trade them at the Market for bread',
  cleo: 'visit every room, greet whoever you meet, and leave a ballad in the Village Square',
};

/** Every villager may look, listen, walk, handle things, speak and write. */
export const VILLAGER_SESSION: Omit<ConnectOptions, 'character'> = {
  capabilities: { sensors: ['sight', 'hearing'], actuators: ['legs', 'hands', 'voice'], generators: ['quill'] },
  agentModel: { class: 'edge_small' },
  subscriptions: ['tick', 'state_change', 'agent_message', 'audio'],
};

export interface Village {
  capsule: Capsule;
  clock: ManualClock;
  world: TextWorld;
  random: SeededRandom;
  /** Opens a villager's session on this link (the game's side). */
  connect(character: string, link: Link): void;
}

let sharedValidators: ValidatorFactory | undefined;

/**
 * One validator factory for every village of this process: its tools' schemas are compiled once,
 * not once a village (compiling was nine tenths of a short episode's time).
 */
function villageValidators(): ValidatorFactory {
  return (sharedValidators ??= ajvValidators());
}

/** The village at tick 0: the same seed always gives the same world and the same ids. */
export function buildVillage(seed: number, spec: TextWorldSpec = VILLAGE_SPEC): Village {
  const random = new SeededRandom(seed);
  const clock = new ManualClock();
  const capsule = createCapsule({
    world: { name: 'Millbrook', kind: 'text' },
    validators: villageValidators(),
    clock,
    tickRateHz: 10,
    tickMode: 'fixed',
    randomBytes: random.fork('ids').bytes,
  });
  const world = new TextWorld(spec);
  bindTextWorld(capsule, world);
  return { capsule, clock, world, random, connect: (character, link) => capsule.connect(link, { character, ...VILLAGER_SESSION }) };
}
