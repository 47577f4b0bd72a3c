// aicc-capsule/phaser/tools: for a game that builds on the Phaser tools rather than only
// registering them (registerTools) — each tool's factory with its limits, bound to a SceneWorld
// (the plugin is one), and the perception they see and hear with: who is near, line of sight past
// obstacles, who is in earshot. Most games need only aicc-capsule/phaser.

export { positionTool, nearbyTool, canSeeTool, MAX_NEARBY } from './sensors.js';
export { moveToTool, moveByTool, stopTool, playAnimationTool, sayTool, MAX_SPEED, MAX_LINE_LENGTH } from './actuators.js';
export { spawnTool } from './generators.js';
export { nearby, lineOfSight, audience, segmentEntersBox } from './perception.js';

export type { SightLine } from './perception.js';
