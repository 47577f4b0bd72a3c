// Puts a TextWorld into a capsule: registers its tools and turns every world change into the AICC
// events the characters concerned should perceive. One call to set up, one dispose to undo — the
// shape every adapter shares (shared/toolBinding.ts).

import { CapsuleError } from '../../base/errors.js';
import type { Capsule } from '../../runtime/capsule.js';
import { bindTools, type ToolBinding } from '../shared/toolBinding.js';
import { textTools, type TextToolsOptions } from './tools.js';
import type { TextWorld } from './world.js';
import { worldEvents } from './worldEvents.js';

/**
 * Registers the text tools for `world` on `capsule` (`options`: which ones, and per-tool overrides)
 * and forwards its changes as events (see worldEvents for who gets what); `dispose()` removes the
 * tools and stops forwarding. Throws what `registerTool` throws — e.g. AICC_DUPLICATE_TOOL when the
 * game already has a `look`; rename with `overrides` — after removing the tools it registered.
 *
 * @example
 * const world = new TextWorld(spec);
 * const binding = bindTextWorld(capsule, world, { only: ['look', 'go', 'say'] });
 * // …later, the world goes away:
 * binding.dispose();
 */
export function bindTextWorld(capsule: Capsule, world: TextWorld, options: TextToolsOptions = {}): ToolBinding {
  return bindTools(capsule, textTools(world, options), () => forwardChanges(capsule, world));
}

/** Emits each change of `world` as its events; returns the stop. */
function forwardChanges(capsule: Capsule, world: TextWorld): () => void {
  let forwarding = true;
  const stop = world.on((change) => {
    if (!forwarding) return;
    try {
      for (const event of worldEvents(world, change)) capsule.emit(event.topic, event.payload, { to: event.to });
    } catch (error) {
      // A disposed capsule has no one left to tell: stop forwarding instead of failing every change.
      if (!(error instanceof CapsuleError && error.code === 'AICC_DISPOSED')) throw error;
      forwarding = false;
    }
  });
  return () => {
    forwarding = false;
    stop();
  };
}
