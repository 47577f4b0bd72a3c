// A game's per-tool overrides of an adapter's tool factories — the id in the manifest, the limits
// and the capability — and its pick of an adapter's tools. Every adapter takes these, so a game
// tunes them one way.

import { CapsuleError } from '../base/errors.js';
import type { JsonObject, Limits } from '../protocol/messages.js';
import type { ToolDefinition } from './tool.js';

/** Per-tool overrides; anything left out keeps the factory's default. */
export interface ToolOverrides {
  /** The tool's id in the manifest, e.g. to avoid a clash with a game's own `look`. */
  id?: string;
  /** Replaces the default limits (each factory documents its own). */
  limits?: Limits;
  /** Replaces the default capability (each factory documents its own). */
  requires_capability?: string;
}

/** A factory's definition with the game's overrides applied. */
export function withOverrides<I, O extends JsonObject>(definition: ToolDefinition<I, O>, overrides: ToolOverrides = {}): ToolDefinition<I, O> {
  const out: ToolDefinition<I, O> = { ...definition };
  if (overrides.id !== undefined) out.id = overrides.id;
  if (overrides.limits !== undefined) out.limits = { ...overrides.limits };
  if (overrides.requires_capability !== undefined) out.requires_capability = overrides.requires_capability;
  return out;
}

/** How a game picks from an adapter's tools: some of them (`only`), each with its own overrides. */
export interface ToolSelection<Name extends string, Options> {
  /** Only these tools (in the adapter's order). Default: all of them. */
  only?: readonly Name[];
  /** Per-tool options, keyed by the tool's default name. */
  overrides?: Partial<Record<Name, Options>>;
}

/**
 * An adapter's tool factories bound to one world, in `names` order, as `selection` picks them. A name
 * the set lacks is the game's mistake: `place` (e.g. "textTools") and `kind` ("text") name it.
 */
export function selectTools<Name extends string, World, Options>(
  place: string,
  kind: string,
  names: readonly Name[],
  factories: Record<Name, (world: World, options?: Options) => ToolDefinition>,
  world: World,
  selection: ToolSelection<Name, Options> = {},
): ToolDefinition[] {
  const refuse = (what: string, name: string): never => {
    throw new CapsuleError('AICC_INVALID_OPTION', `${place}: options.${what} names "${name}", which is not a ${kind} tool; use some of ${names.join(', ')}`);
  };
  const only = selection.only;
  for (const name of only ?? []) if (!names.includes(name)) refuse('only', String(name));
  for (const name of Object.keys(selection.overrides ?? {})) if (!names.includes(name as Name)) refuse('overrides', name);
  return names.filter((name) => only === undefined || only.includes(name)).map((name) => factories[name](world, selection.overrides?.[name]));
}
