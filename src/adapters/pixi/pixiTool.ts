// What every PixiJS tool shares: the stage it reads and moves (PixiBinding is one), the calling
// character, the game's per-tool overrides, and the schema pieces the tools are built from.

import { ToolError } from '../../base/errors.js';
import type { ToolContext } from '../../runtime/tool.js';
import { withOverrides, type ToolOverrides } from '../../runtime/toolOverrides.js';
import { callerIn } from '../shared/caller.js';
import type { Box } from '../shared/plane.js';
import type { BodyRegistry, PixiBody } from './bodies.js';
import type { Walks } from './walks.js';

/** What the tools need of a stage; PixiBinding provides it. */
export interface PixiStage {
  readonly bodies: BodyRegistry;
  readonly walks: Walks;
  /** How far characters see and hear, px. */
  readonly perceptionRadius: number;
  /** The width of a character's view cone, degrees (in_view). */
  readonly fieldOfView: number;
  /** Where characters may walk, when the game set bounds. */
  readonly bounds: Box | undefined;
  /** Sends `text` from `speaker` as agent_message to the characters in earshot; returns who heard it. */
  say(speaker: PixiBody, text: string, to?: string): string[];
  /** What a character is saying now (the game's bubble shows it), if anything. */
  saying(id: string): string | undefined;
}

/** Per-tool overrides of id, limits and capability: the same as every adapter's (ToolOverrides). */
export type PixiToolOptions = ToolOverrides;

export { withOverrides as withOptions };

/** The character the calling session plays. */
export function caller(stage: PixiStage, context: ToolContext): PixiBody {
  return callerIn(
    context,
    (id) => {
      const body = stage.bodies.get(id);
      return body?.role === 'character' ? body : undefined;
    },
    (id) => `you play "${id}", who is not a character on this stage (yet); the game adds characters with binding.addCharacter("${id}", sprite)`,
    true,
  );
}

/** Another character or object, by the id an agent names. */
export function target(stage: PixiStage, id: string, me: PixiBody): PixiBody {
  const found = stage.bodies.get(id);
  if (found === undefined || found.role === 'obstacle')
    throw new ToolError(`there is no character or object "${id}" here; \`nearby\` lists the ids around you`);
  if (found.id === me.id) throw new ToolError(`"${id}" is you; name another character or object`);
  return found;
}

/** A coordinate as agents send it, px. */
export function coordinate(description: string) {
  return { type: 'number', minimum: -100_000, maximum: 100_000, description } as const;
}

/** An id as agents type it. */
export const ID_INPUT = { type: 'string', minLength: 1, maxLength: 64 } as const;

/** One body as the sensors report it. */
export const SEEN_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    kind: { type: 'string' },
    role: { enum: ['character', 'object'] },
    x: { type: 'number' },
    y: { type: 'number' },
    distance: { type: 'number' },
    visible: { type: 'boolean' },
  },
  required: ['id', 'kind', 'role', 'x', 'y', 'distance', 'visible'],
} as const;

/** Most bodies one answer lists. */
export const MAX_RESULTS = 32;

/** Degrees in (-180, 180], to a tenth. */
export function degrees(radians: number): number {
  const d = Math.round((((((radians * 180) / Math.PI + 180) % 360) + 360) % 360) * 10) / 10 - 180;
  return d === -180 ? 180 : d;
}
