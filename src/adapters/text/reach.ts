// What a character can refer to without moving: the room they stand in, the items in their hands
// or on its floor, and the characters present. `inspect` and `compose` resolve names against this,
// so an agent cannot read the description of something in a room it has never been to.

import { ToolError } from '../../base/errors.js';
import { listOf, onlyMatch, resolve } from './names.js';
import type { Character, Item, Room, TextWorld } from './world.js';

export type Reachable =
  | { kind: 'room'; id: string; name: string; room: Room }
  | { kind: 'item'; id: string; name: string; item: Item; carried: boolean }
  | { kind: 'character'; id: string; name: string; character: Character };

/** Words that mean the room the character stands in, and the character itself. */
const HERE = new Set(['here', 'room', 'this room', 'around', 'surroundings']);
const SELF = new Set(['me', 'myself', 'self']);

/**
 * The thing `ref` names within reach of `me`. `rooms` admits the current room as an answer ("here"
 * or its name). Throws a ToolError listing what can be named when nothing or several things match.
 */
export function reach(world: TextWorld, me: Character, ref: string, verb: string, rooms: boolean): Reachable {
  const room = world.room(me.room)!;
  const typed = ref
    .trim()
    .toLowerCase()
    .replace(/^the\s+/, '');
  if (rooms && HERE.has(typed)) return { kind: 'room', id: room.id, name: room.name, room };
  if (SELF.has(typed)) return { kind: 'character', id: me.id, name: me.name, character: me };
  const candidates: Reachable[] = [
    ...(rooms ? [{ kind: 'room' as const, id: room.id, name: room.name, room }] : []),
    ...world.itemsAt(me.id).map((item) => ({ kind: 'item' as const, id: item.id, name: item.name, item, carried: true })),
    ...world.itemsAt(room.id).map((item) => ({ kind: 'item' as const, id: item.id, name: item.name, item, carried: false })),
    ...world.charactersIn(room.id).map((character) => ({ kind: 'character' as const, id: character.id, name: character.name, character })),
  ];
  const found = onlyMatch(
    ref,
    resolve(ref, candidates, (c) => (c.kind === 'character' && c.character.role !== undefined ? [c.character.role] : [])),
  );
  if (found !== undefined) return found;
  const names = candidates.filter((c) => c.kind !== 'room' && c.id !== me.id).map((c) => c.name);
  throw new ToolError(`there is no "${ref}" here to ${verb}; you can ${verb}: ${listOf(rooms ? ['here', ...names] : names)}`);
}
