// aicc-capsule/inspector: a plain-DOM overlay that shows a capsule's sessions, manifest, tool calls
// with their results and latency, events and quota use. Nothing runs on import.

export { mountInspector, DEFAULT_MAX_ROWS, MAX_ROWS_LIMIT, DEFAULT_TOGGLE_KEY } from './inspector.js';
export { animationFrames, REDRAW_INTERVAL_MS } from './frames.js';

export type { Inspector, InspectorOptions } from './inspector.js';
export type { FrameScheduler } from './frames.js';
