// Compiled, not run (typedTools.types.test.ts): the adapters' tool definitions are typed by their
// schemas, as registerTool types a game's own; their exported input types are the schemas' too.
// Each `@ts-expect-error` must meet an error; an unused one fails the compile.

import type { moveToTool as phaserMoveTo, nearbyTool as phaserNearby } from '../../src/adapters/phaser/toolsEntry.js';
import type { ComposeInput } from '../../src/adapters/text/index.js';
import type { composeTool, giveTool } from '../../src/adapters/text/toolsEntry.js';
import type { MoveToInput, TurnToInput } from '../../src/adapters/three/index.js';
import type { moveToTool as threeMoveTo, turnToTool } from '../../src/adapters/three/toolsEntry.js';
import type { ToolContext } from '../../src/runtime/tool.js';

declare const context: ToolContext;

// Phaser: move_to { x, y, speed? }, nearby { radius?, limit?, kind? }.
declare const phaserMove: ReturnType<typeof phaserMoveTo>;
void phaserMove.handler({ x: 10, y: 20, speed: 80 }, context);
// @ts-expect-error x is a number
void phaserMove.handler({ x: '10', y: 20 }, context);
// @ts-expect-error y is required
void phaserMove.handler({ x: 10 }, context);
declare const nearby: ReturnType<typeof phaserNearby>;
void nearby.handler({}, context);
// @ts-expect-error limit is a number
void nearby.handler({ limit: 'all' }, context);

// Three: move_to's bounds come from options at run time; its input is still { x, z, y?, speed? }.
declare const threeMove: ReturnType<typeof threeMoveTo>;
void threeMove.handler({ x: 1, z: 2 }, context);
const move: MoveToInput = { x: 1, z: 2, y: 0.5, speed: 3 };
// @ts-expect-error z is required
const nowhere: MoveToInput = { x: 1 };
// turn_to: a heading or an object to face (oneOf beside the properties).
declare const turn: ReturnType<typeof turnToTool>;
void turn.handler({ toward: 'tree' }, context);
const face: TurnToInput = { heading: 90 };
// @ts-expect-error one of heading and toward is required
const still: TurnToInput = {};
// @ts-expect-error heading is a number
const north: TurnToInput = { heading: 'north' };

// Text: give { item, to }; compose { kind, subject, remark? }.
declare const give: ReturnType<typeof giveTool>;
void give.handler({ item: 'lantern', to: 'mira' }, context);
// @ts-expect-error to is required
void give.handler({ item: 'lantern' }, context);
declare const compose: ReturnType<typeof composeTool>;
void compose.handler({ kind: 'note', subject: 'here' }, context);
const note: ComposeInput = { kind: 'note', subject: 'here', remark: 'Dusty.' };
// @ts-expect-error kind is "description" or "note"
const poem: ComposeInput = { kind: 'poem', subject: 'here' };

void [move, nowhere, face, still, north, note, poem];
