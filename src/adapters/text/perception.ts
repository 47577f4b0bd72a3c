// Perception in a text world: the shared perception (adapters/shared) over its characters, with
// rooms apart as the distance — 0 in the same room, 1 through one exit — so a text world answers
// "who is near" with the same rules as a 2D or 3D scene (nearest first, ties by id, bounded).

import { type PerceptionPort, type Survey, within } from '../shared/perception.js';
import type { Character, TextWorld } from './world.js';

/** A text world's characters as perception reads them: how many exits apart their rooms are. */
export function perceptionOf(world: TextWorld): PerceptionPort<Character> {
  return {
    bodies: () => Object.keys(world.snapshot().characters).map((id) => world.character(id)!),
    idOf: (character) => character.id,
    // Characters are the only bodies a text world's perception lists; their role is their kind, when they have one.
    kindOf: (character) => character.role ?? 'character',
    distancesFrom(from) {
      const apart = roomsApart(world, from.room);
      return (character) => apart.get(character.room) ?? Number.POSITIVE_INFINITY;
    },
  };
}

/** The characters at most `rooms` exits away from `me` (0: in the same room), nearest first, ties by id. */
export function charactersNear(world: TextWorld, me: Character, rooms: number): Survey<Character> {
  return within(perceptionOf(world), me, rooms, Number.MAX_SAFE_INTEGER);
}

/** How many exits away every room reachable from `start` is (breadth first, through rooms' own exits). */
function roomsApart(world: TextWorld, start: string): Map<string, number> {
  const apart = new Map([[start, 0]]);
  for (let frontier = [start], hops = 1; frontier.length > 0; hops++) {
    const next: string[] = [];
    for (const room of frontier)
      for (const { id } of world.neighbours(room))
        if (!apart.has(id)) {
          apart.set(id, hops);
          next.push(id);
        }
    frontier = next;
  }
  return apart;
}
