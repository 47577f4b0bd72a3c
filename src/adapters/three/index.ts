// The Three.js adapter (aicc-capsule/three): a binding with three's addon lifecycle (connect /
// dispose) that registers sensors built on raycasting, frustums and bounding volumes, actuators
// that move and turn objects smoothly across frames, and collision events from bounding-volume
// overlaps; the capsule's clock comes from setAnimationLoop or the game's own loop. `three` is an
// optional peer dependency, imported, never bundled. Nothing here runs on import.

export { CapsuleBinding } from './binding.js';
export { ObjectRegistry, DEFAULT_MAX_OBJECTS, OBJECT_ID } from './objects.js';
export { Motion } from './motion.js';
export { CollisionWatcher } from './collisions.js';
export { threeTools, THREE_TOOL_NAMES } from './tools.js';
export { threeValidators } from './validators.js';
export { positionTool, nearbyTool } from './sensors.js';
export { lookAheadTool, lineOfSightTool } from './raySensors.js';
export { inViewTool } from './viewSensor.js';
export { moveToTool, turnToTool, stopTool } from './actuators.js';
export { headingOf, bearing, gap, overlaps, measure } from './geometry.js';

export type { CapsuleBindingOptions, ConnectOptions, AnimationLoopHost, FrameStats } from './binding.js';
export type { RegisterOptions, Registered } from './objects.js';
export type { MotionEnd } from './motion.js';
export type { CollisionOptions, CollisionPayload, CollisionSink } from './collisions.js';
export type { ThreeToolName, ThreeToolsOptions, ThreeToolOverrides } from './tools.js';
export type { SceneBinding, ThreeToolOptions, Seen } from './threeTool.js';
export type { PositionOutput, NearbyOptions, NearbyOutput } from './sensors.js';
export type { RayOptions, RayHit, LookAheadOutput, LineOfSightOutput } from './raySensors.js';
export type { InViewOptions, InViewOutput } from './viewSensor.js';
export type { Area, MoveToOptions, MoveToInput, MoveToOutput, TurnToOptions, TurnToInput, TurnToOutput, StopOutput } from './actuators.js';
export type { Volume, BoundsKind, Point } from './geometry.js';
