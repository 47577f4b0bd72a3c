// Every Phaser tool at once, bound to one scene: what a game registers to let agents play in it.
// The factories themselves live in sensors.ts, actuators.ts and generators.ts.

import { CapsuleError } from '../../runtime/errors.js';
import type { ToolDefinition } from '../../runtime/tool.js';
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

export interface PhaserToolsOptions {
  /** Only these tools (in PHASER_TOOL_NAMES order). Default: all of them. */
  only?: readonly PhaserToolName[];
  /** Per-tool overrides of id, limits or capability, keyed by the tool's default name. */
  overrides?: Partial<Record<PhaserToolName, PhaserToolOptions>>;
}

/** The Phaser tools bound to `world`, ready for `capsule.registerTool`. */
export function phaserTools(world: SceneWorld, options: PhaserToolsOptions = {}): ToolDefinition[] {
  const only = options.only;
  const fail = (what: string, name: string): never => {
    throw new CapsuleError('AICC_INVALID_OPTION', `phaserTools: options.${what} names "${name}", which is not a Phaser tool; use some of ${PHASER_TOOL_NAMES.join(', ')}`);
  };
  for (const name of only ?? []) if (!PHASER_TOOL_NAMES.includes(name)) fail('only', String(name));
  for (const name of Object.keys(options.overrides ?? {})) if (!PHASER_TOOL_NAMES.includes(name as PhaserToolName)) fail('overrides', name);
  return PHASER_TOOL_NAMES.filter((name) => only === undefined || only.includes(name)).map((name) => FACTORIES[name](world, options.overrides?.[name]));
}
