// aicc-capsule/text/tools: for a game that registers the text tools itself rather than through
// bindTextWorld — each tool's factory with its limits, and worldEvents, the events a world change
// becomes and who perceives each. Most games need only aicc-capsule/text.

export { lookTool, inspectTool, whoTool } from './sensors.js';
export { goTool, takeTool, dropTool, giveTool, sayTool } from './actuators.js';
export { composeTool, MAX_REMARK_LENGTH } from './compose.js';
export { MAX_SAY_LENGTH } from './world.js';
export { worldEvents, VOICES_VOLUME, THUD_VOLUME } from './worldEvents.js';

export type { WorldEvent } from './worldEvents.js';
