// The text-world adapter: a deterministic world of rooms, exits, items and characters, the AICC
// tools that let agents act in it, and the binding that forwards its changes as events. Browser
// safe: it imports only from the runtime. Nothing here runs on import.

export { TextWorld, MAX_SAY_LENGTH } from './world.js';
export { ID_PATTERN } from './names.js';
export { textTools, TEXT_TOOL_NAMES } from './tools.js';
export { lookTool, inspectTool, whoTool } from './sensors.js';
export { goTool, takeTool, dropTool, giveTool, sayTool } from './actuators.js';
export { composeTool, MAX_REMARK_LENGTH } from './compose.js';
export { bindTextWorld } from './bind.js';
export { worldEvents, VOICES_VOLUME, THUD_VOLUME } from './worldEvents.js';
export { describeRoom, describeItem, describeCharacter } from './describe.js';

export type { RoomSpec, ItemSpec, CharacterSpec, TextWorldSpec } from './spec.js';
export type { Room, Item, Character, MoveResult, ItemMoveResult, SayResult } from './world.js';
export type { WorldChange, WorldListener, MovedChange, ItemMovedChange, SaidChange, ItemAddedChange } from './change.js';
export type { TextToolName, TextToolsOptions } from './tools.js';
export type { TextToolOptions, Ref } from './textTool.js';
export type { LookOutput, InspectOutput, WhoOutput, Person } from './sensors.js';
export type { GoOutput, TakeOutput, DropOutput, GiveOutput, SayOutput } from './actuators.js';
export type { ComposeInput, ComposeOutput } from './compose.js';
export type { BindTextWorldOptions, TextWorldBinding } from './bind.js';
export type { WorldEvent } from './worldEvents.js';
