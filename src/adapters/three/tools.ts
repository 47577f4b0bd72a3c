// Every Three tool at once, bound to one scene binding: what `CapsuleBinding.connect()` registers.
// The factories themselves live in sensors.ts, raySensors.ts, viewSensor.ts and actuators.ts.

import type { ToolDefinition } from '../../runtime/tool.js';
import { selectTools } from '../../runtime/toolOverrides.js';
import { moveToTool, stopTool, turnToTool, type MoveToOptions, type TurnToOptions } from './actuators.js';
import { lineOfSightTool, lookAheadTool, type RayOptions } from './raySensors.js';
import { nearbyTool, positionTool, type NearbyOptions } from './sensors.js';
import type { SceneBinding, ThreeToolOptions } from './threeTool.js';
import { inViewTool, type InViewOptions } from './viewSensor.js';

export type ThreeToolName = 'position' | 'nearby' | 'look_ahead' | 'line_of_sight' | 'in_view' | 'move_to' | 'turn_to' | 'stop';

/** Every Three tool, in the order `threeTools` returns them: sensors, then actuators. */
export const THREE_TOOL_NAMES: readonly ThreeToolName[] = ['position', 'nearby', 'look_ahead', 'line_of_sight', 'in_view', 'move_to', 'turn_to', 'stop'];

/** Each tool's own options (id, limits, capability, and its ranges, speeds and caps). */
export interface ThreeToolOverrides {
  position?: ThreeToolOptions;
  nearby?: NearbyOptions;
  look_ahead?: RayOptions;
  line_of_sight?: RayOptions;
  in_view?: InViewOptions;
  move_to?: MoveToOptions;
  turn_to?: TurnToOptions;
  stop?: ThreeToolOptions;
}

export interface ThreeToolsOptions {
  /** Only these tools (in THREE_TOOL_NAMES order). Default: all of them. */
  only?: readonly ThreeToolName[];
  /** Per-tool options, keyed by the tool's default name. */
  overrides?: ThreeToolOverrides;
}

// biome-ignore lint/suspicious/noExplicitAny: each factory takes its own options type; the table holds them all.
type Factory = (binding: SceneBinding, options?: any) => ToolDefinition;

const FACTORIES: Record<ThreeToolName, Factory> = {
  position: positionTool,
  nearby: nearbyTool,
  look_ahead: lookAheadTool,
  line_of_sight: lineOfSightTool,
  in_view: inViewTool,
  move_to: moveToTool,
  turn_to: turnToTool,
  stop: stopTool,
};

/** The Three tools bound to `binding`, ready for `capsule.registerTool`. */
export function threeTools(binding: SceneBinding, options: ThreeToolsOptions = {}): ToolDefinition[] {
  return selectTools('threeTools', 'Three', THREE_TOOL_NAMES, FACTORIES, binding, options);
}
