// What every text tool shares: the options a game may override, the calling character, and the
// schema pieces the tools are built from.

import type { ToolContext } from '../../runtime/tool.js';
import { withOverrides, type ToolOverrides } from '../../runtime/toolOverrides.js';
import { callerIn } from '../shared/caller.js';
import type { Character, TextWorld } from './world.js';

/** Per-tool overrides of id, limits and capability (see ToolOverrides). */
export type TextToolOptions = ToolOverrides;

export { withOverrides as withOptions };

/**
 * The character the calling session plays. A session connected to a character the world lacks is
 * the game's mistake, but the agent still gets an answer that says so.
 */
export function caller(world: TextWorld, context: ToolContext): Character {
  return callerIn(
    context,
    (id) => world.character(id),
    (id) => `you play "${id}", who is not in this text world; the game must add that character to the TextWorld`,
  );
}

/** `{ id, name }`: how tools name a room, an item or a character in their output. */
export type Ref = { id: string; name: string };

export function ref(thing: { id: string; name: string }): Ref {
  return { id: thing.id, name: thing.name };
}

/** A name as an agent types it: an id, a name, or words of a name. */
export function nameInput(description: string) {
  return { type: 'string', minLength: 1, maxLength: 80, description } as const;
}

export const REF_SCHEMA = {
  type: 'object',
  properties: { id: { type: 'string' }, name: { type: 'string' } },
  required: ['id', 'name'],
} as const;

export const REFS_SCHEMA = { type: 'array', items: REF_SCHEMA } as const;
