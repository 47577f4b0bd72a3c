// aicc-capsule/pixi: a binding for PixiJS v8 stages — the game's display objects as characters,
// objects and obstacles; sensors built on the shared perception (nearby, line of sight, a view cone);
// walking, speech and overlap collisions; the capsule's clock from a PixiJS Ticker or the game's own
// loop; and the tools' precompiled validators for pages under a strict CSP. `pixi.js` is an optional
// peer dependency, imported for its types only, never bundled. Nothing here runs on import.

export { PixiBinding } from './binding.js';
export { pixiTools, PIXI_TOOL_NAMES } from './tools.js';
export { pixiValidators } from './validators.js';

export type { PixiBindingOptions, PixiConnectOptions, FrameStats } from './binding.js';
export type { ToolBinding } from '../shared/toolBinding.js';
// The classes the binding hands out (binding.bodies, binding.walks): exported as values, as their declarations are.
export { BodyRegistry } from './bodies.js';
export type { BodyOptions, BodyRole, PixiBody } from './bodies.js';
export { Walks } from './walks.js';
export type { Walk, WalkEnd } from './walks.js';
export type { Blocker, Box, Point2 } from '../shared/plane.js';
export type { PixiStage, PixiToolOptions } from './pixiTool.js';
export type { PixiToolName, PixiToolsOptions } from './tools.js';
export type { Seen } from './perception.js';
export type { PositionOutput, NearbyOutput, CanSeeOutput, InViewOutput } from './sensors.js';
export type { MoveOutput, StopOutput, SayOutput } from './actuators.js';
