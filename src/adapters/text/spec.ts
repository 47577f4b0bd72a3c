// What a game writes to describe a text world, and the checks that turn a mistake in it into a
// CapsuleError at construction, naming the entry — not a confusing refusal the first time an agent
// walks through a broken exit.

import { CapsuleError } from '../../base/errors.js';
import { ID_PATTERN } from './names.js';

export interface RoomSpec {
  id: string;
  name: string;
  description: string;
  /** Direction (lowercase snake_case, e.g. `north`, `up`, `trapdoor`) → id of the room it leads to. */
  exits: Record<string, string>;
}

export interface ItemSpec {
  id: string;
  name: string;
  description: string;
  /** Where it is: a room id (on the floor) or a character id (carried). */
  location: string;
  /** Whether a character can take it. Default true. */
  portable?: boolean;
}

export interface CharacterSpec {
  id: string;
  name: string;
  description: string;
  /** The room the character starts in. */
  room: string;
  /** What others know them as ("miller"); agents may name them by it. */
  role?: string;
}

export interface TextWorldSpec {
  rooms: readonly RoomSpec[];
  items?: readonly ItemSpec[];
  characters?: readonly CharacterSpec[];
}

/** The ids taken so far and what each names, so a clash can say what it clashes with. */
export type IdRegistry = Map<string, 'room' | 'item' | 'character'>;

function fail(what: string): never {
  throw new CapsuleError('AICC_INVALID_OPTION', `TextWorld: ${what}`);
}

/** Checks the whole spec; every reference must point at an entry of the right kind. */
export function checkWorldSpec(spec: TextWorldSpec): IdRegistry {
  if (spec === null || typeof spec !== 'object') fail('expected { rooms, items?, characters? }');
  if (!Array.isArray(spec.rooms) || spec.rooms.length === 0) fail('rooms must be a non-empty array; a world needs at least one room');
  for (const key of ['items', 'characters'] as const) {
    if (spec[key] !== undefined && !Array.isArray(spec[key])) fail(`${key} must be an array when given`);
  }
  const ids: IdRegistry = new Map();
  spec.rooms.forEach((room, index) => checkEntry(ids, 'room', `rooms[${index}]`, room));
  (spec.characters ?? []).forEach((character, index) => checkEntry(ids, 'character', `characters[${index}]`, character));
  (spec.items ?? []).forEach((item, index) => checkEntry(ids, 'item', `items[${index}]`, item));

  // References are checked once every id is known, so entries may come in any order.
  spec.rooms.forEach((room, index) => {
    const where = `rooms[${index}] ("${room.id}")`;
    if (room.exits === null || typeof room.exits !== 'object' || Array.isArray(room.exits))
      fail(`${where}: exits must be an object of direction → room id (use {} for none)`);
    for (const [direction, target] of Object.entries(room.exits as Record<string, unknown>)) {
      if (!ID_PATTERN.test(direction)) fail(`${where}: exit direction "${direction}" must be lowercase snake_case (e.g. north, up, trapdoor)`);
      if (typeof target !== 'string' || ids.get(target) !== 'room')
        fail(`${where}: exit "${direction}" leads to unknown room "${String(target)}"; add that room or fix the exit`);
    }
  });
  (spec.characters ?? []).forEach((character, index) => {
    const where = `characters[${index}] ("${character.id}")`;
    if (ids.get(character.room) !== 'room') fail(`${where}: room "${String(character.room)}" is not a room of this world; use one of the room ids`);
    if (character.role !== undefined && (typeof character.role !== 'string' || character.role.trim() === ''))
      fail(`${where}: role must be a non-empty string when given`);
  });
  (spec.items ?? []).forEach((item, index) => checkItemPlacement(ids, `items[${index}] ("${item.id}")`, item));
  return ids;
}

/** Checks one item added after construction (a generator's output) against the ids in use. */
export function checkAddedItem(ids: IdRegistry, item: ItemSpec): void {
  // Checked against a copy, so a refused item leaves no id behind.
  const trial: IdRegistry = new Map(ids);
  checkEntry(trial, 'item', 'addItem', item);
  checkItemPlacement(trial, `addItem ("${item.id}")`, item);
  ids.set(item.id, 'item');
}

function checkEntry(ids: IdRegistry, kind: 'room' | 'item' | 'character', where: string, entry: { id: string; name: string; description: string }): void {
  if (entry === null || typeof entry !== 'object') fail(`${where}: expected an object with id, name and description`);
  if (typeof entry.id !== 'string' || !ID_PATTERN.test(entry.id))
    fail(`${where}: id ${JSON.stringify(entry.id)} must be lowercase snake_case (^[a-z][a-z0-9_]*$)`);
  const clash = ids.get(entry.id);
  // One namespace for all three kinds: an item's location names a room or a character by id alone.
  if (clash !== undefined)
    fail(`${where}: id "${entry.id}" is already used by ${clash === 'item' ? 'an' : 'a'} ${clash}; ids must be unique across rooms, items and characters`);
  if (typeof entry.name !== 'string' || entry.name.trim() === '') fail(`${where} ("${entry.id}"): name must be a non-empty string`);
  if (typeof entry.description !== 'string') fail(`${where} ("${entry.id}"): description must be a string`);
  ids.set(entry.id, kind);
}

function checkItemPlacement(ids: IdRegistry, where: string, item: ItemSpec): void {
  const place = ids.get(item.location);
  if (place !== 'room' && place !== 'character')
    fail(`${where}: location "${String(item.location)}" is neither a room nor a character; items lie in a room or are carried`);
  if (item.portable !== undefined && typeof item.portable !== 'boolean') fail(`${where}: portable must be true or false when given`);
}
