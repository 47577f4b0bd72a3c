// The one integration shape of the engine adapters: a game binds an adapter's tools to a capsule and
// gets `{ handles, dispose }` back. bindTextWorld returns it, the Three CapsuleBinding holds one from
// connect() to dispose(), and the Phaser plugin's registerTools returns one per call (all disposed
// at the scene's shutdown). Here the rules they share: registration is all or nothing, dispose is
// safe to call twice, and removing the tools tolerates one thing only — a tool already removed.

import { CapsuleError } from '../../base/errors.js';
import type { Capsule } from '../../runtime/capsule.js';
import type { ToolDefinition, ToolHandle } from '../../runtime/tool.js';

export interface ToolBinding {
  /** The tools registered, in registration order: enable, disable or update them one by one. Empty after dispose. */
  readonly handles: readonly ToolHandle[];
  /** Removes the tools and undoes whatever else the binding hooked. Safe to call twice. */
  dispose(): void;
}

/**
 * Registers every definition on `capsule`, then runs `hook` (an adapter's event forwarding), which
 * returns its undo. All or nothing: if a registration or the hook throws, the tools registered so
 * far are removed and the error is thrown — e.g. AICC_DUPLICATE_TOOL when the game has a tool of
 * the same id already (the adapters' `overrides` rename theirs).
 */
export function bindTools(capsule: Capsule, definitions: readonly ToolDefinition[], hook?: () => () => void): ToolBinding {
  const handles: ToolHandle[] = [];
  let unhook: (() => void) | undefined;
  try {
    for (const definition of definitions) handles.push(capsule.registerTool(definition));
    unhook = hook?.();
  } catch (error) {
    removeAll(handles);
    throw error;
  }
  let disposed = false;
  return {
    handles,
    dispose() {
      if (disposed) return;
      disposed = true;
      unhook?.();
      removeAll(handles.splice(0));
    },
  };
}

/**
 * Removes every handle's tool. One rule for every adapter: a tool already removed — the game removed
 * it through its handle — is fine, there is nothing left to undo; any other error is thrown once the
 * rest are removed.
 */
export function removeAll(handles: readonly ToolHandle[]): void {
  let failure: { error: unknown } | undefined;
  for (const handle of handles) {
    try {
      handle.remove();
    } catch (error) {
      if (!(error instanceof CapsuleError && error.code === 'AICC_TOOL_REMOVED')) failure ??= { error };
    }
  }
  if (failure !== undefined) throw failure.error;
}
