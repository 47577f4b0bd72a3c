// What every text tool shares: the options a game may override, the calling character, and the
// schema pieces the tools are built from.

import { ToolError } from '../../runtime/errors.js';
import type { JsonObject, Limits } from '../../runtime/protocol.js';
import type { ToolContext, ToolDefinition } from '../../runtime/tool.js';
import type { Character, TextWorld } from './world.js';

/** Per-tool overrides; anything left out keeps the factory's default. */
export interface TextToolOptions {
  /** The tool's id in the manifest, e.g. to avoid a clash with a game's own `look`. */
  id?: string;
  /** Replaces the default limits (each factory documents its own). */
  limits?: Limits;
  /** Replaces the default capability (each factory documents its own). */
  requires_capability?: string;
}

/** A factory's definition with the game's overrides applied. */
export function withOptions<I, O extends JsonObject>(definition: ToolDefinition<I, O>, options: TextToolOptions = {}): ToolDefinition<I, O> {
  const out: ToolDefinition<I, O> = { ...definition };
  if (options.id !== undefined) out.id = options.id;
  if (options.limits !== undefined) out.limits = { ...options.limits };
  if (options.requires_capability !== undefined) out.requires_capability = options.requires_capability;
  return out;
}

/**
 * The character the calling session plays. A session connected to a character the world lacks is
 * the game's mistake, but the agent still gets an answer that says so.
 */
export function caller(world: TextWorld, context: ToolContext): Character {
  const me = world.character(context.character);
  if (me === undefined) throw new ToolError(`you play "${context.character}", who is not in this text world; the game must add that character to the TextWorld`);
  return me;
}

/** `{ id, name }`: how tools name a room, an item or a character in their output. */
export type Ref = { id: string; name: string };

export function ref(thing: { id: string; name: string }): Ref {
  return { id: thing.id, name: thing.name };
}

/** A name as an agent types it: an id, a name, or words of a name. */
export function nameInput(description: string): JsonObject {
  return { type: 'string', minLength: 1, maxLength: 80, description };
}

export const REF_SCHEMA: JsonObject = {
  type: 'object',
  properties: { id: { type: 'string' }, name: { type: 'string' } },
  required: ['id', 'name'],
};

export const REFS_SCHEMA: JsonObject = { type: 'array', items: REF_SCHEMA };
