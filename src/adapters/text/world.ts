// A text world: rooms joined by exits, items on floors or in hands, characters who move, carry
// and speak. Deterministic — no randomness, no clock — so the same calls always give the same
// world, and a headless run can be replayed. Rule failures throw ToolError in words an agent can
// act on; a bad spec throws CapsuleError at construction.

import { CapsuleError, ToolError } from '../../base/errors.js';
import type { WorldChange, WorldListener } from './change.js';
import { exitFor, listOf, onlyMatch, resolve, the, withRole } from './names.js';
import { checkAddedItem, checkWorldSpec, type IdRegistry, type ItemSpec, type TextWorldSpec } from './spec.js';

export interface Room {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** Direction → room id. */
  readonly exits: Readonly<Record<string, string>>;
}

export interface Item {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** A room id (on the floor) or a character id (carried). */
  readonly location: string;
  readonly portable: boolean;
}

export interface Character {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly room: string;
  readonly role?: string;
}

export interface MoveResult {
  character: string;
  direction: string;
  from: Room;
  to: Room;
}

/** An item that changed place; `from` and `to` are room or character ids. */
export interface ItemMoveResult {
  item: Item;
  from: string;
  to: string;
}

export interface SayResult {
  character: string;
  room: string;
  text: string;
  to?: string;
}

/** The most a character says at once; the `say` tool's schema uses the same bound. */
export const MAX_SAY_LENGTH = 280;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export class TextWorld {
  private readonly rooms = new Map<string, { id: string; name: string; description: string; exits: Map<string, string> }>();
  private readonly items = new Map<string, Mutable<Item>>();
  private readonly people = new Map<string, Mutable<Character>>();
  private readonly ids: IdRegistry;
  private readonly listeners = new Set<{ listener: WorldListener }>();
  private readonly told: WorldChange[] = [];
  private telling = false;

  constructor(spec: TextWorldSpec) {
    this.ids = checkWorldSpec(spec);
    // Copied, so later edits to the game's spec objects cannot change the world behind its back.
    for (const room of spec.rooms)
      this.rooms.set(room.id, { id: room.id, name: room.name, description: room.description, exits: new Map(Object.entries(room.exits)) });
    for (const c of spec.characters ?? [])
      this.people.set(
        c.id,
        c.role === undefined
          ? { id: c.id, name: c.name, description: c.description, room: c.room }
          : { id: c.id, name: c.name, description: c.description, room: c.room, role: c.role },
      );
    for (const item of spec.items ?? [])
      this.items.set(item.id, { id: item.id, name: item.name, description: item.description, location: item.location, portable: item.portable ?? true });
  }

  // ── queries: snapshots, never the world's own records ───────────────────────────────────

  /** Where every character and every item is, by id (ids in code-point order): the world's state in one object. */
  snapshot(): { characters: Record<string, string>; items: Record<string, string> } {
    const where = <T>(records: Map<string, T>, place: (record: T) => string): Record<string, string> =>
      Object.fromEntries([...records.keys()].sort().map((id) => [id, place(records.get(id)!)]));
    return { characters: where(this.people, (c) => c.room), items: where(this.items, (item) => item.location) };
  }

  room(id: string): Room | undefined {
    const room = this.rooms.get(id);
    return room && { id: room.id, name: room.name, description: room.description, exits: Object.fromEntries(room.exits) };
  }

  item(id: string): Item | undefined {
    const item = this.items.get(id);
    return item && { ...item };
  }

  character(id: string): Character | undefined {
    const character = this.people.get(id);
    return character && { ...character };
  }

  roomOf(characterId: string): Room {
    const character = this.people.get(characterId);
    if (character === undefined)
      throw new CapsuleError('AICC_INVALID_OPTION', `TextWorld.roomOf: no character "${characterId}"; pass the id of a character in the spec`);
    return this.room(character.room)!;
  }

  /** Everyone in the room, in the order the spec listed them. */
  charactersIn(roomId: string): Character[] {
    this.knownRoom('charactersIn', roomId);
    return [...this.people.values()].filter((c) => c.room === roomId).map((c) => ({ ...c }));
  }

  /** What lies on a room's floor, or what a character carries. */
  itemsAt(locationId: string): Item[] {
    this.knownPlace('itemsAt', locationId);
    return [...this.items.values()].filter((item) => item.location === locationId).map((item) => ({ ...item }));
  }

  /** Rooms one exit away from this one (through its own exits), each once, never the room itself. */
  neighbours(roomId: string): Room[] {
    const room = this.knownRoom('neighbours', roomId);
    const ids = new Set([...room.exits.values()].filter((id) => id !== roomId));
    return [...ids].map((id) => this.room(id)!);
  }

  /**
   * The item an agent means by `ref` (an id, its name, or words of its name, case-insensitive, "the"
   * ignored) among the items at the `scope` locations. Undefined when none matches; a ToolError
   * listing the candidates when several match equally well.
   */
  findItem(ref: string, scope: string | readonly string[]): Item | undefined {
    const places = typeof scope === 'string' ? [scope] : scope;
    const candidates = places.flatMap((place) => this.itemsAt(place));
    return onlyMatch(ref, resolve(ref, candidates));
  }

  /** The character in the room an agent means by `ref`: an id, a name, or a role ("the miller"). */
  findCharacter(ref: string, roomId: string): Character | undefined {
    return onlyMatch(
      ref,
      resolve(ref, this.charactersIn(roomId), (c) => (c.role === undefined ? [] : [c.role])),
    );
  }

  /** `base` if no room, item or character uses it yet, else `base_2`, `base_3`, … (deterministic). */
  uniqueId(base: string): string {
    if (!this.ids.has(base)) return base;
    let n = 2;
    while (this.ids.has(`${base}_${n}`)) n++;
    return `${base}_${n}`;
  }

  /**
   * Calls `listener` after every change; returns the function that stops it. A listener may change
   * the world (an NPC answering); that change reaches every listener after the current one does.
   */
  on(listener: WorldListener): () => void {
    const entry = { listener };
    this.listeners.add(entry);
    return () => void this.listeners.delete(entry);
  }

  // ── changes ───────────────────────────────────────────────────────────────────────────────

  move(characterId: string, direction: string): MoveResult {
    const mover = this.actor(characterId);
    const from = this.rooms.get(mover.room)!;
    const way = exitFor(direction, from.exits);
    if (way === undefined) throw new ToolError(`there is no exit ${direction.trim() || '""'} from ${the(from.name)}; exits: ${listOf([...from.exits.keys()])}`);
    const target = from.exits.get(way)!;
    mover.room = target;
    this.notify({ kind: 'moved', character: mover.id, from: from.id, to: target, direction: way });
    return { character: mover.id, direction: way, from: this.room(from.id)!, to: this.room(target)! };
  }

  take(characterId: string, itemRef: string): ItemMoveResult {
    const taker = this.actor(characterId);
    const item = this.findItem(itemRef, taker.room);
    if (item === undefined) {
      // Not on the floor: say why, if it is in someone's hands here, before saying it is absent.
      const held = this.findItem(itemRef, [taker.id, ...this.othersWith(taker).map((c) => c.id)]);
      if (held?.location === taker.id) throw new ToolError(`you already carry ${the(held.name)}`);
      if (held !== undefined) throw new ToolError(`${this.people.get(held.location)!.name} has ${the(held.name)}; ask them to give it to you`);
      throw new ToolError(`there is no "${itemRef}" here to take; on the floor: ${listOf(this.itemsAt(taker.room).map((i) => i.name))}`);
    }
    if (!item.portable) throw new ToolError(`${the(item.name)} cannot be taken; it stays where it is`);
    return this.relocate(item.id, taker.id, taker.id);
  }

  drop(characterId: string, itemRef: string): ItemMoveResult {
    const dropper = this.actor(characterId);
    const item = this.carried(dropper, itemRef);
    return this.relocate(item.id, dropper.room, dropper.id);
  }

  /** Hands a carried item to a character in the same room, named by id, name or role. */
  give(characterId: string, itemRef: string, toCharacter: string): ItemMoveResult {
    const giver = this.actor(characterId);
    const item = this.carried(giver, itemRef);
    const recipient = this.present(giver, toCharacter, 'give to');
    if (recipient.id === giver.id) throw new ToolError(`you already have ${the(item.name)}; give it to someone else here`);
    return this.relocate(item.id, recipient.id, giver.id);
  }

  /** Speaks to the room, or to one character in it (`to`: id, name or role); everyone here hears. */
  say(characterId: string, text: string, to?: string): SayResult {
    const speaker = this.actor(characterId);
    const spoken = text.trim();
    if (spoken === '') throw new ToolError('say what? the text is empty');
    // Counted in code points, as the say tool's JSON Schema maxLength counts them.
    const length = [...spoken].length;
    if (length > MAX_SAY_LENGTH) throw new ToolError(`that is ${length} characters; say at most ${MAX_SAY_LENGTH} at once`);
    const result: SayResult = { character: speaker.id, room: speaker.room, text: spoken };
    if (to !== undefined) {
      const listener = this.present(speaker, to, 'speak to');
      if (listener.id === speaker.id) throw new ToolError('you cannot address yourself; leave out "to" to speak to the room');
      result.to = listener.id;
    }
    this.notify({ kind: 'said', ...result });
    return result;
  }

  /** Puts a new item in the world (a generator's product). A bad spec is a CapsuleError. */
  addItem(spec: ItemSpec): Item {
    checkAddedItem(this.ids, spec);
    this.items.set(spec.id, { id: spec.id, name: spec.name, description: spec.description, location: spec.location, portable: spec.portable ?? true });
    this.notify({ kind: 'item_added', item: spec.id, location: spec.location });
    return this.item(spec.id)!;
  }

  // ── internals ─────────────────────────────────────────────────────────────────────────────

  private actor(characterId: string): Mutable<Character> {
    const character = this.people.get(characterId);
    if (character === undefined)
      throw new ToolError(`"${characterId}" is not a character in this world; the game must add it to the TextWorld before an agent acts as it`);
    return character;
  }

  private othersWith(character: Character): Character[] {
    return this.charactersIn(character.room).filter((c) => c.id !== character.id);
  }

  private carried(character: Character, itemRef: string): Item {
    const item = this.findItem(itemRef, character.id);
    if (item === undefined) throw new ToolError(`you are not carrying "${itemRef}"; you carry: ${listOf(this.itemsAt(character.id).map((i) => i.name))}`);
    return item;
  }

  private present(actor: Character, ref: string, doing: string): Character {
    const found = this.findCharacter(ref, actor.room);
    if (found !== undefined) return found;
    const here = listOf(this.othersWith(actor).map(withRole));
    // Someone who exists elsewhere is "not here", without saying where they are.
    const elsewhere = resolve(ref, [...this.people.values()]);
    const who = elsewhere.kind === 'one' ? `${elsewhere.found.name} is not here` : `there is no one called "${ref}" here`;
    throw new ToolError(`${who} to ${doing}; here with you: ${here}`);
  }

  private relocate(itemId: string, to: string, by: string): ItemMoveResult {
    const item = this.items.get(itemId)!;
    const from = item.location;
    item.location = to;
    this.notify({ kind: 'item_moved', item: itemId, from, to, by });
    return { item: { ...item }, from, to };
  }

  private knownRoom(method: string, id: string) {
    const room = this.rooms.get(id);
    if (room === undefined) throw new CapsuleError('AICC_INVALID_OPTION', `TextWorld.${method}: no room "${id}"; pass the id of a room in the spec`);
    return room;
  }

  private knownPlace(method: string, id: string): void {
    if (!this.rooms.has(id) && !this.people.has(id)) {
      throw new CapsuleError('AICC_INVALID_OPTION', `TextWorld.${method}: "${id}" is neither a room nor a character; pass the id of one in the spec`);
    }
  }

  /**
   * Every listener hears every change, in the order they happened, even if one throws: the change
   * has happened and cannot be undone, so a throw is rethrown on its own (a microtask) where the
   * host sees it, never into the agent's call.
   */
  private notify(change: WorldChange): void {
    this.told.push(change);
    if (this.telling) return;
    this.telling = true;
    try {
      for (let next = this.told.shift(); next !== undefined; next = this.told.shift()) {
        for (const { listener } of [...this.listeners]) {
          try {
            listener(next);
          } catch (error) {
            queueMicrotask(() => {
              throw error;
            });
          }
        }
      }
    } finally {
      this.telling = false;
    }
  }
}
