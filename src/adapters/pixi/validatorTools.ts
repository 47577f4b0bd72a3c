// The PixiJS tools in every shape their options give, for their precompiled validators
// (scripts/generate-validators.ts reads this module, as the adapter's row in scripts/entries.mjs
// names it). The perception radius is always finite here, so options change bounds and
// descriptions, never shapes: one set. No entry imports this module.

import type { ToolDefinition } from '../../runtime/tool.js';
import type { PixiStage } from './pixiTool.js';
import { pixiTools } from './tools.js';

export function toolDefinitions(): ToolDefinition[] {
  const stage = { perceptionRadius: 300, fieldOfView: 120 } as PixiStage; // the factories read these until a tool is called
  return pixiTools(stage);
}
