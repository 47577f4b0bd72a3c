// aicc-capsule/text: a deterministic world of rooms, exits, items and characters, and the binding
// that puts it into a capsule — its tools registered, its changes forwarded as events. The tool
// factories one by one, and the event mapping, are aicc-capsule/text/tools (toolsEntry.ts). Browser
// safe: it imports only from the runtime. Nothing here runs on import.

export { TextWorld } from './world.js';
export { bindTextWorld } from './bind.js';
export { textTools, TEXT_TOOL_NAMES } from './tools.js';

export type { ToolBinding } from '../shared/toolBinding.js';
export type { RoomSpec, ItemSpec, CharacterSpec, TextWorldSpec } from './spec.js';
export type { Room, Item, Character, MoveResult, ItemMoveResult, SayResult } from './world.js';
export type { WorldChange, WorldListener, MovedChange, ItemMovedChange, SaidChange, ItemAddedChange } from './change.js';
export type { TextToolName, TextToolsOptions } from './tools.js';
export type { ToolOverrides, ToolSelection } from '../../runtime/toolOverrides.js';
export type { TextToolOptions, Ref } from './textTool.js';
export type { LookOutput, InspectOutput, WhoOutput, Person } from './sensors.js';
export type { GoOutput, TakeOutput, DropOutput, GiveOutput, SayOutput } from './actuators.js';
export type { ComposeInput, ComposeOutput } from './compose.js';
