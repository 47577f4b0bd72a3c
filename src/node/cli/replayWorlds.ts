// The worlds `aicc replay` can build again from a recording's header.

import { buildVillage } from '../../worlds/village/world.js';
import type { WorldBuilder } from '../../recording/replay.js';

export const worldBuilders: Record<string, WorldBuilder> = {
  village: (header) => buildVillage(header.seed),
};
