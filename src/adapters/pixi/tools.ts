// Every PixiJS tool at once, bound to one stage: what `PixiBinding.connect()` registers. The
// factories themselves live in sensors.ts and actuators.ts.

import type { ToolDefinition } from '../../runtime/tool.js';
import { selectTools, type ToolSelection } from '../../runtime/toolOverrides.js';
import { moveToTool, sayTool, stopTool } from './actuators.js';
import type { PixiStage, PixiToolOptions } from './pixiTool.js';
import { canSeeTool, inViewTool, nearbyTool, positionTool } from './sensors.js';

export type PixiToolName = 'position' | 'nearby' | 'can_see' | 'in_view' | 'move_to' | 'stop' | 'say';

/** Every PixiJS tool, in the order `pixiTools` returns them: sensors, then actuators. */
export const PIXI_TOOL_NAMES: readonly PixiToolName[] = ['position', 'nearby', 'can_see', 'in_view', 'move_to', 'stop', 'say'];

const FACTORIES: Record<PixiToolName, (stage: PixiStage, options?: PixiToolOptions) => ToolDefinition> = {
  position: positionTool,
  nearby: nearbyTool,
  can_see: canSeeTool,
  in_view: inViewTool,
  move_to: moveToTool,
  stop: stopTool,
  say: sayTool,
};

/** Only some of the tools (in PIXI_TOOL_NAMES order), and per-tool overrides of id, limits or capability. */
export type PixiToolsOptions = ToolSelection<PixiToolName, PixiToolOptions>;

/** The PixiJS tools bound to `stage`, ready for `capsule.registerTool`. */
export function pixiTools(stage: PixiStage, options: PixiToolsOptions = {}): ToolDefinition[] {
  return selectTools('pixiTools', 'PixiJS', PIXI_TOOL_NAMES, FACTORIES, stage, options);
}
