// Every Phaser tool at once, bound to one scene: what a game registers to let agents play in it.
// The factories themselves live in sensors.ts, actuators.ts and generators.ts.

import type { ToolDefinition } from '../../runtime/tool.js';
import { selectTools, type ToolSelection } from '../../runtime/toolOverrides.js';
import { moveByTool, moveToTool, playAnimationTool, sayTool, stopTool } from './actuators.js';
import { spawnTool } from './generators.js';
import type { PhaserToolOptions, SceneWorld } from './phaserTool.js';
import { canSeeTool, nearbyTool, positionTool } from './sensors.js';

export type PhaserToolName = 'position' | 'nearby' | 'can_see' | 'move_to' | 'move_by' | 'stop' | 'play_animation' | 'say' | 'spawn';

/** Every Phaser tool, in the order `phaserTools` returns them: sensors, actuators, generator. */
export const PHASER_TOOL_NAMES: readonly PhaserToolName[] = ['position', 'nearby', 'can_see', 'move_to', 'move_by', 'stop', 'play_animation', 'say', 'spawn'];

const FACTORIES: Record<PhaserToolName, (world: SceneWorld, options?: PhaserToolOptions) => ToolDefinition> = {
  position: positionTool,
  nearby: nearbyTool,
  can_see: canSeeTool,
  move_to: moveToTool,
  move_by: moveByTool,
  stop: stopTool,
  play_animation: playAnimationTool,
  say: sayTool,
  spawn: spawnTool,
};

/** Only some of the tools (in PHASER_TOOL_NAMES order), and per-tool overrides of id, limits or capability. */
export type PhaserToolsOptions = ToolSelection<PhaserToolName, PhaserToolOptions>;

/** The Phaser tools bound to `world`, ready for `capsule.registerTool`. */
export function phaserTools(world: SceneWorld, options: PhaserToolsOptions = {}): ToolDefinition[] {
  return selectTools('phaserTools', 'Phaser', PHASER_TOOL_NAMES, FACTORIES, world, options);
}
