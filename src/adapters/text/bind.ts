// Puts a TextWorld into a capsule: registers its tools and turns every world change into the AICC
// events the characters concerned should perceive. One call to set up, one dispose to undo.

import type { Capsule } from '../../runtime/capsule.js';
import { CapsuleError } from '../../base/errors.js';
import type { ToolHandle } from '../../runtime/tool.js';
import { textTools, type TextToolsOptions } from './tools.js';
import type { TextWorld } from './world.js';
import { worldEvents } from './worldEvents.js';

/** Which tools to register (`only`) and their per-tool overrides; see TextToolsOptions. */
export type BindTextWorldOptions = TextToolsOptions;

export interface TextWorldBinding {
  /** The registered tools, in registration order: enable, disable or update them one by one. */
  readonly handles: ToolHandle[];
  /** Removes the tools and stops forwarding world changes. Safe to call twice. */
  dispose(): void;
}

/**
 * Registers the text tools for `world` on `capsule` and forwards its changes as events (see
 * worldEvents for who gets what). Throws what `registerTool` throws — e.g. AICC_DUPLICATE_TOOL when
 * the game already has a `look`; rename with `overrides` — after removing the tools it registered.
 */
export function bindTextWorld(capsule: Capsule, world: TextWorld, options: BindTextWorldOptions = {}): TextWorldBinding {
  const handles: ToolHandle[] = [];
  try {
    for (const definition of textTools(world, options)) handles.push(capsule.registerTool(definition));
  } catch (error) {
    removeAll(handles);
    throw error;
  }

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

  let disposed = false;
  return {
    handles,
    dispose() {
      if (disposed) return;
      disposed = true;
      forwarding = false;
      stop();
      removeAll(handles);
    },
  };
}

function removeAll(handles: readonly ToolHandle[]): void {
  for (const handle of handles) {
    try {
      handle.remove();
    } catch (error) {
      // The game removed this one itself already; nothing left to undo.
      if (!(error instanceof CapsuleError && error.code === 'AICC_TOOL_REMOVED')) throw error;
    }
  }
}
