// aicc-capsule/phaser: a Scene plugin that lets agents play the characters of a Phaser 3.60+ or 4
// scene, and the tool set it registers. The tool factories one by one, and the perception they see
// with, are aicc-capsule/phaser/tools (toolsEntry.ts). Phaser is an optional peer: nothing here
// imports a Phaser value (types only), so this entry loads without it. Nothing runs on import.

import './sceneTypes.js'; // `this.aicc` typed in every Scene

export { AiccScenePlugin, aiccScenePlugin } from './plugin.js';
export { phaserTools, PHASER_TOOL_NAMES } from './tools.js';
export { phaserValidators } from './validators.js';

export type { PluginCounts } from './plugin.js';
export type { AiccPluginOptions } from './pluginOptions.js';
export type { FrameStats } from './meter.js';
// The plugin's walks and speech bubbles (plugin.walks, plugin.bubbles): values, as their declarations are.
export { Bubbles } from './speech.js';
export { Walks } from './motion.js';
export type { BubbleStyle } from './speech.js';
export type { ToolBinding } from '../shared/toolBinding.js';
// A class the plugin hands out (plugin.entities): a value, as its declaration is.
export { EntityRegistry } from './entities.js';
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
export type { PhaserToolName, PhaserToolsOptions } from './tools.js';
export type { ToolOverrides, ToolSelection } from '../../runtime/toolOverrides.js';
export type { PhaserToolOptions, SceneWorld } from './phaserTool.js';
export type { PositionOutput, NearbyOutput, CanSeeOutput } from './sensors.js';
export type { MoveOutput, StopOutput, AnimationOutput, SayOutput } from './actuators.js';
export type { SpawnOutput } from './generators.js';
export type { Seen } from './perception.js';
