// aicc-capsule/inspector: a plain-DOM overlay that shows a capsule's sessions, manifest, tool calls
// with their outputs and latency, events and quota use. Nothing runs on import.

export { mountInspector, DEFAULT_MAX_ROWS, DEFAULT_CALLS_PER_CHARACTER, MAX_ROWS_LIMIT, DEFAULT_TOGGLE_KEY, DEFAULT_DOCK } from './inspector.js';
export { DOCKS } from './overlay.js';
export { animationFrames, REDRAW_INTERVAL_MS } from './frames.js';

export type { Inspector, InspectorOptions, CapsuleHolder } from './inspector.js';
export type { DecisionShown } from './record.js';
export type { Dock, InspectorFilter } from './overlay.js';
export type { FrameScheduler } from './frames.js';
