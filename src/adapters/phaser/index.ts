// aicc-capsule/phaser: a Scene plugin that lets agents play the characters of a Phaser 3.60+ or 4
// scene, and the tools it registers. Phaser is an optional peer: nothing here imports a Phaser value
// (types only), so this entry loads without it. Nothing runs on import.

import './sceneTypes.js'; // `this.aicc` typed in every Scene

export { AiccScenePlugin, aiccScenePlugin } from './plugin.js';
export { phaserValidators } from './validators.js';
export { PLUGIN_DEFAULTS } from './pluginOptions.js';
export { phaserTools, PHASER_TOOL_NAMES } from './tools.js';
export { positionTool, nearbyTool, canSeeTool, MAX_NEARBY } from './sensors.js';
export { moveToTool, moveByTool, stopTool, playAnimationTool, sayTool, MAX_SPEED, MAX_LINE_LENGTH } from './actuators.js';
export { spawnTool } from './generators.js';
export { EntityRegistry, ENTITY_ID, TEMPLATE_NAME, DEFAULT_SPEED } from './entities.js';
export { nearby, lineOfSight, audience, segmentEntersBox } from './perception.js';
export { jsonValue, DATA_VALUE_LIMITS } from './dataChanges.js';
export { readingTimeMs } from './speech.js';
export { FrameMeter } from './meter.js';

export type { PluginCounts } from './plugin.js';
export type { AiccPluginOptions } from './pluginOptions.js';
export type { PhaserToolName, PhaserToolsOptions } from './tools.js';
export type { PhaserToolOptions, SceneWorld } from './phaserTool.js';
export type { PositionOutput, NearbyOutput, CanSeeOutput } from './sensors.js';
export type { MoveOutput, StopOutput, AnimationOutput, SayOutput } from './actuators.js';
export type { SpawnOutput } from './generators.js';
export type {
  Entity,
  EntityRole,
  Positioned,
  Box,
  CharacterOptions,
  ObjectOptions,
  ObstacleOptions,
  SpawnFactory,
  TemplateOptions,
  Template,
} from './entities.js';
export type { Seen, SightLine } from './perception.js';
export type { Contact, ContactKind } from './contacts.js';
export type { DataChange } from './dataChanges.js';
export type { Walk, StopReason } from './motion.js';
export type { BubbleStyle } from './speech.js';
export type { FrameStats } from './meter.js';
