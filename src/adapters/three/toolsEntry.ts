// aicc-capsule/three/tools: for a game that registers the Three tools itself (CapsuleBinding with
// `tools: false`) — each tool's factory, bound to a SceneBinding, and the geometry the tools
// measure with: headings, bearings, bounding volumes and the gap between them. Most games need only
// aicc-capsule/three. `three` is an optional peer dependency, imported, never bundled.

export { positionTool, nearbyTool } from './sensors.js';
export { lookAheadTool, lineOfSightTool } from './raySensors.js';
export { inViewTool } from './viewSensor.js';
export { moveToTool, turnToTool, stopTool } from './actuators.js';
export { headingOf, bearing, gap, overlaps, measure } from './geometry.js';

export type { Volume } from './geometry.js';
