// What every Three tool shares: the scene binding it reads and moves, the calling character, the
// game's per-tool overrides, and the schema pieces the tools are built from.

import type { Object3D, Vector3 } from 'three';
import { CapsuleError, ToolError } from '../../base/errors.js';
import type { ToolContext } from '../../runtime/tool.js';
import { withOverrides, type ToolOverrides } from '../../runtime/toolOverrides.js';
import { callerIn } from '../shared/caller.js';
import type { Motion } from './motion.js';
import type { ObjectRegistry, Registered } from './objects.js';

/** Per-tool overrides of id, limits and capability: the same as every adapter's (ToolOverrides). */
export type ThreeToolOptions = ToolOverrides;

export { withOverrides as withOptions };

/** What the tool factories need of a binding (CapsuleBinding is one). */
export interface SceneBinding {
  readonly scene: Object3D;
  readonly objects: ObjectRegistry;
  readonly motion: Motion;
  /** Where rays and view cones start above an object's origin, unless the object says otherwise. */
  readonly eyeHeight: number;
  /** What rays test against (recursively). Default: the scene. */
  readonly raycastTargets: readonly Object3D[];
}

/** The registered object the calling session plays. */
export function caller(binding: SceneBinding, context: ToolContext): Registered {
  return callerIn(
    context,
    (id) => binding.objects.get(id),
    (id) => `you play "${id}", which is not in this scene; the game must register it with binding.add("${id}", object)`,
  );
}

/** Another registered object, by id, as an agent names it. */
export function target(binding: SceneBinding, id: string, me: Registered): Registered {
  const found = binding.objects.get(id);
  if (found === undefined) throw new ToolError(`there is no "${id}" here; use an id that nearby or in_view reported`);
  if (found === me) throw new ToolError(`"${id}" is you; name another object`);
  return found;
}

/** The world point rays and views start from: the object's origin, raised by its eye height. */
export function eyeOf(binding: SceneBinding, entry: Registered, into: Vector3): Vector3 {
  entry.object.getWorldPosition(into);
  into.y += entry.eyeHeight ?? binding.eyeHeight;
  return into;
}

/** Checks a factory option at build time: a positive finite number or the default. */
export function positive(where: string, name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(Number.isFinite(value) && value > 0)) throw new CapsuleError('AICC_INVALID_OPTION', `${where}: ${name} must be a finite number > 0, got ${value}`);
  return value;
}

/** A positive whole number option (result caps). */
export function count(where: string, name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(Number.isInteger(value) && value >= 1)) throw new CapsuleError('AICC_INVALID_OPTION', `${where}: ${name} must be an integer >= 1, got ${value}`);
  return value;
}

/** An id as agents type it (the pattern of ObjectRegistry ids). */
export function idInput(description: string) {
  return { type: 'string', minLength: 1, maxLength: 64, description } as const;
}

/** One registered object as sensors report it. */
export const SEEN_SCHEMA = {
  type: 'object',
  properties: { id: { type: 'string' }, kind: { type: 'string' }, distance: { type: 'number' }, bearing: { type: 'number' } },
  required: ['id', 'kind', 'distance', 'bearing'],
} as const;

export type Seen = { id: string; kind: string; distance: number; bearing: number };
