// The Phaser tools in every shape their options give, for their precompiled validators
// (scripts/generate-validators.ts reads this module, as the adapter's row in scripts/entries.mjs
// names it): `nearby` has a `maximum` radius only while the perception radius is finite. Other
// options change bounds and descriptions, not shapes. No entry imports this module.

import type { ToolDefinition } from '../../runtime/tool.js';
import type { SceneWorld } from './phaserTool.js';
import { phaserTools } from './tools.js';

export function toolDefinitions(): ToolDefinition[] {
  const world = (perceptionRadius: number): SceneWorld => ({ perceptionRadius, entities: { templates: () => [] } }) as unknown as SceneWorld;
  return [...phaserTools(world(400)), ...phaserTools(world(Number.POSITIVE_INFINITY))];
}
