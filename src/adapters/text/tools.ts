// Every text tool at once, bound to one world: what a game registers to let agents play in it.
// The factories themselves live in sensors.ts, actuators.ts and compose.ts.

import { CapsuleError } from '../../runtime/errors.js';
import type { ToolDefinition } from '../../runtime/tool.js';
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

export interface TextToolsOptions {
  /** Only these tools (in TEXT_TOOL_NAMES order). Default: all of them. */
  only?: readonly TextToolName[];
  /** Per-tool overrides of id, limits or capability, keyed by the tool's default name. */
  overrides?: Partial<Record<TextToolName, TextToolOptions>>;
}

/** The text tools bound to `world`, ready for `capsule.registerTool`. */
export function textTools(world: TextWorld, options: TextToolsOptions = {}): ToolDefinition[] {
  const only = options.only;
  if (only !== undefined) {
    const unknown = only.find((name) => !TEXT_TOOL_NAMES.includes(name));
    if (unknown !== undefined) throw new CapsuleError('AICC_INVALID_OPTION', `textTools: options.only names "${String(unknown)}", which is not a text tool; use some of ${TEXT_TOOL_NAMES.join(', ')}`);
  }
  for (const name of Object.keys(options.overrides ?? {})) {
    if (!TEXT_TOOL_NAMES.includes(name as TextToolName)) throw new CapsuleError('AICC_INVALID_OPTION', `textTools: options.overrides has "${name}", which is not a text tool; use some of ${TEXT_TOOL_NAMES.join(', ')}`);
  }
  return TEXT_TOOL_NAMES.filter((name) => only === undefined || only.includes(name)).map((name) => FACTORIES[name](world, options.overrides?.[name]));
}
