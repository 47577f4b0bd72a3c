// aicc-capsule/three: a binding with three's addon lifecycle (connect / dispose) that registers
// sensors built on raycasting, frustums and bounding volumes, actuators that move and turn objects
// smoothly across frames, and collision events from bounding-volume overlaps; the capsule's clock
// comes from setAnimationLoop or the game's own loop. The tool factories one by one, and the
// geometry they measure with, are aicc-capsule/three/tools (toolsEntry.ts). `three` is an optional
// peer dependency, imported, never bundled. Nothing here runs on import.

export { CapsuleBinding } from './binding.js';
export { threeTools, THREE_TOOL_NAMES } from './tools.js';
export { threeValidators } from './validators.js';

export type { CapsuleBindingOptions, ConnectOptions, AnimationLoopHost, FrameStats } from './binding.js';
export type { ToolBinding } from '../shared/toolBinding.js';
// Classes the binding hands out (binding.objects, binding.motion): exported as values, as their
// declarations are (a type-only export of a class reads as a value in the rolled-up .d.ts).
export { ObjectRegistry } from './objects.js';
export type { RegisterOptions, Registered } from './objects.js';
export type { BoundsKind, Point } from './geometry.js';
export type { CollisionOptions, CollisionPayload } from './collisions.js';
export { Motion } from './motion.js';
export type { MotionEnd } from './motion.js';
export type { ThreeToolName, ThreeToolsOptions, ThreeToolOverrides } from './tools.js';
export type { SceneBinding, ThreeToolOptions, Seen } from './threeTool.js';
export type { PositionOutput, NearbyOptions, NearbyOutput } from './sensors.js';
export type { RayOptions, RayHit, LookAheadOutput, LineOfSightOutput } from './raySensors.js';
export type { InViewOptions, InViewOutput } from './viewSensor.js';
export type { Area, MoveToOptions, MoveToInput, MoveToOutput, TurnToOptions, TurnToInput, TurnToOutput, StopOutput } from './actuators.js';
