// A game's per-tool overrides of an adapter's tool factories: the id in the manifest, the limits
// and the capability. Every adapter's factories take these, so a game tunes them one way.

import type { JsonObject, Limits } from './protocol.js';
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
