// The Three tools in every shape their options give, for their precompiled validators
// (scripts/generate-validators.ts reads this module, as the adapter's row in scripts/entries.mjs
// names it): `move_to` has bounds on x and z only with an `area`. No entry imports this module.

import type { ToolDefinition } from '../../runtime/tool.js';
import type { SceneBinding } from './threeTool.js';
import { threeTools, type ThreeToolsOptions } from './tools.js';

export function toolDefinitions(): ToolDefinition[] {
  const binding = {} as SceneBinding; // the factories read options only until a tool is called
  const area: ThreeToolsOptions = { overrides: { move_to: { area: { minX: -1, maxX: 1, minZ: -1, maxZ: 1 } } } };
  return [...threeTools(binding), ...threeTools(binding, area)];
}
