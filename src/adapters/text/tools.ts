// Every text tool at once, bound to one world: what a game registers to let agents play in it.
// The factories themselves live in sensors.ts, actuators.ts and compose.ts.

import type { ToolDefinition } from '../../runtime/tool.js';
import { selectTools, type ToolSelection } from '../../runtime/toolOverrides.js';
import { dropTool, giveTool, goTool, sayTool, takeTool } from './actuators.js';
import { composeTool } from './compose.js';
import { inspectTool, lookTool, whoTool } from './sensors.js';
import type { TextToolOptions } from './textTool.js';
import type { TextWorld } from './world.js';

export type TextToolName = 'look' | 'inspect' | 'who' | 'go' | 'take' | 'drop' | 'give' | 'say' | 'compose';

/** Every text tool, in the order `textTools` returns them: sensors, actuators, generator. */
export const TEXT_TOOL_NAMES: readonly TextToolName[] = ['look', 'inspect', 'who', 'go', 'take', 'drop', 'give', 'say', 'compose'];

const FACTORIES: Record<TextToolName, (world: TextWorld, options?: TextToolOptions) => ToolDefinition> = {
  look: lookTool,
  inspect: inspectTool,
  who: whoTool,
  go: goTool,
  take: takeTool,
  drop: dropTool,
  give: giveTool,
  say: sayTool,
  compose: composeTool,
};

/** Only some of the tools (in TEXT_TOOL_NAMES order), and per-tool overrides of id, limits or capability. */
export type TextToolsOptions = ToolSelection<TextToolName, TextToolOptions>;

/** The text tools bound to `world`, ready for `capsule.registerTool`. */
export function textTools(world: TextWorld, options: TextToolsOptions = {}): ToolDefinition[] {
  return selectTools('textTools', 'text', TEXT_TOOL_NAMES, FACTORIES, world, options);
}
