// Finds the world a sweep names, the same way in the coordinator, in a worker thread and in a queue
// worker on another machine: a built-in world's name (village, swarm), or the path of a compiled
// JavaScript module whose default export (or export `world`) is a world made with defineWorld.

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CapsuleError } from '../../base/errors.js';
import { defineWorld, type World, type WorldDefinition, type Params } from '../../research/world.js';
import { worlds } from '../../worlds/index.js';

/** The built-in worlds' names. */
export const BUILT_IN_WORLDS = Object.keys(worlds);

/** A world by built-in name, or from a module (a path, resolved from `cwd`, or a file: URL). */
export async function loadWorld(spec: string, cwd: string = process.cwd()): Promise<World> {
  if (Object.hasOwn(worlds, spec)) return worlds[spec as keyof typeof worlds] as unknown as World;
  if (!/[./\\]/.test(spec)) {
    throw new CapsuleError(
      'AICC_INVALID_OPTION',
      `no built-in world named ${JSON.stringify(spec)}; the built-in ones are ${BUILT_IN_WORLDS.join(', ')}, or name a module file (./my-world.js)`,
    );
  }
  const url = spec.startsWith('file:') ? spec : pathToFileURL(resolve(cwd, spec)).href;
  let module: Record<string, unknown>;
  try {
    module = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    throw new CapsuleError(
      'AICC_INVALID_OPTION',
      `the world module ${spec} does not load (${(error as Error).message}); it must be JavaScript that Node can import (compile TypeScript first)`,
    );
  }
  const found = module.default ?? module.world;
  if (found === null || typeof found !== 'object' || typeof (found as WorldDefinition<Params>).setup !== 'function') {
    throw new CapsuleError('AICC_INVALID_OPTION', `the world module ${spec} must export a world made with defineWorld, as its default export or as \`world\``);
  }
  const world = found as World;
  // A plain definition object works too: checked here, as defineWorld would have.
  return typeof world.resolveParams === 'function' ? world : defineWorld(found as WorldDefinition<Params>);
}
