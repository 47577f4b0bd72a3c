// The worlds that ship with the package, as research modules (see aicc-capsule/research): the
// village (three villagers with goals, in a text world) and the swarm (foragers on a grid).

import { swarmWorld } from './swarm/swarmWorld.js';
import { villageWorld } from './village/villageWorld.js';

export { villageWorld, swarmWorld };

/** The built-in worlds by name: what `aicc sweep village` and a queue worker look a name up in. */
export const worlds = { village: villageWorld, swarm: swarmWorld } as const;
