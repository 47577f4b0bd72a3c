// Which AICC events a world change becomes, and who gets each. Perception is local: what happens in
// a room is seen by those in it, words are heard by those in the room, and from next door only
// the sound of voices carries.

import type { EventPayloads } from '../../runtime/events.js';
import type { WorldChange } from './change.js';
import type { TextWorld } from './world.js';

/** How loud voices are heard from a neighbouring room. */
export const VOICES_VOLUME = 0.5;
/** How loud a dropped item lands, for those in the room. */
export const THUD_VOLUME = 0.3;

type Routed<T extends 'state_change' | 'agent_message' | 'audio'> = { topic: T; payload: EventPayloads[T]; to: string[] };

/** An event for `capsule.emit(topic, payload, { to })`: `to` lists character ids, never empty. */
export type WorldEvent = Routed<'state_change'> | Routed<'agent_message'> | Routed<'audio'>;

/**
 * The events for one change, read from the world as it is just after the change:
 * - `moved` → `state_change { entity, field: 'room', value, previous }` to everyone in the room left
 *   and the room entered, the mover included.
 * - `item_moved` → `state_change { entity, field: 'location', value, previous }` to everyone in the
 *   rooms involved; an item dropped to a floor also makes a `thud` for the others in that room.
 * - `item_added` → `state_change` (no `previous`) to everyone in the room where it appeared.
 * - `said` → `agent_message { from, text, to? }` to everyone else in the room, and
 *   `audio { source, sound: 'voices', volume, room }` — not the words — to everyone in the
 *   neighbouring rooms.
 */
export function worldEvents(world: TextWorld, change: WorldChange): WorldEvent[] {
  const events: WorldEvent[] = [];
  const add = (event: WorldEvent): void => {
    if (event.to.length > 0) events.push(event);
  };
  switch (change.kind) {
    case 'moved':
      add({
        topic: 'state_change',
        payload: { entity: change.character, field: 'room', value: change.to, previous: change.from },
        to: peopleIn(world, [change.from, change.to]),
      });
      break;
    case 'item_moved': {
      add({
        topic: 'state_change',
        payload: { entity: change.item, field: 'location', value: change.to, previous: change.from },
        to: peopleIn(world, [roomAt(world, change.from), roomAt(world, change.to)]),
      });
      const floor = world.room(change.to);
      if (floor !== undefined && world.character(change.from) !== undefined) {
        // The one who dropped it knows; the others in the room hear it land.
        const others = peopleIn(world, [floor.id]).filter((id) => id !== change.by);
        add({ topic: 'audio', payload: { source: change.item, sound: 'thud', volume: THUD_VOLUME, room: floor.id, by: change.by }, to: others });
      }
      break;
    }
    case 'item_added':
      add({
        topic: 'state_change',
        payload: { entity: change.item, field: 'location', value: change.location },
        to: peopleIn(world, [roomAt(world, change.location)]),
      });
      break;
    case 'said': {
      const message: EventPayloads['agent_message'] = { from: change.character, text: change.text };
      if (change.to !== undefined) message.to = change.to;
      add({ topic: 'agent_message', payload: message, to: peopleIn(world, [change.room]).filter((id) => id !== change.character) });
      const next = world.neighbours(change.room).map((room) => room.id);
      add({ topic: 'audio', payload: { source: change.character, sound: 'voices', volume: VOICES_VOLUME, room: change.room }, to: peopleIn(world, next) });
      break;
    }
  }
  return events;
}

/** The room a location is in: the room itself, or the room of the character holding it. */
function roomAt(world: TextWorld, location: string): string {
  return world.character(location)?.room ?? location;
}

/** Ids of everyone in these rooms, each once, in room then spec order. */
function peopleIn(world: TextWorld, rooms: readonly string[]): string[] {
  const ids = new Set<string>();
  for (const room of new Set(rooms)) for (const character of world.charactersIn(room)) ids.add(character.id);
  return [...ids];
}
