// Prose from world data: what `look` reads out and what `compose` writes down. Built only from the
// world's fields, in a fixed order, so the same world always reads the same way.

import { listOf, withRole } from './names.js';
import type { Character, Item, Room, TextWorld } from './world.js';

/** A room as someone standing in it sees it; `viewer` is left out of those present. */
export function describeRoom(world: TextWorld, room: Room, viewer?: string): string {
  const exits = Object.entries(room.exits).map(([direction, id]) => `${direction} (${world.room(id)!.name})`);
  const items = world.itemsAt(room.id).map((item) => item.name);
  const others = world
    .charactersIn(room.id)
    .filter((c) => c.id !== viewer)
    .map(withRole);
  return join([
    sentence(room.name),
    sentence(room.description),
    `Exits: ${listOf(exits)}.`,
    items.length > 0 ? `You see: ${items.join(', ')}.` : '',
    others.length > 0 ? `Here: ${others.join(', ')}.` : '',
  ]);
}

/** An item, and where it is: on a floor or in someone's hands. */
export function describeItem(world: TextWorld, item: Item): string {
  const holder = world.character(item.location);
  const where = holder !== undefined ? `Carried by ${holder.name}.` : `It lies in ${world.room(item.location)!.name}.`;
  return join([sentence(capitalise(item.name)), sentence(item.description), item.portable ? '' : 'It cannot be carried.', where]);
}

/** A character, with their role and what they carry (carried things are in plain sight). */
export function describeCharacter(world: TextWorld, character: Character): string {
  const carrying = world.itemsAt(character.id).map((item) => item.name);
  return join([
    sentence(character.role === undefined ? character.name : `${character.name}, the ${character.role}`),
    sentence(character.description),
    `Carrying: ${carrying.length > 0 ? carrying.join(', ') : 'nothing'}.`,
  ]);
}

/** Trimmed, with a full stop unless it already ends a sentence; empty stays empty. */
export function sentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  return /[.!?…"')]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function join(parts: readonly string[]): string {
  return parts.filter((part) => part !== '').join(' ');
}
