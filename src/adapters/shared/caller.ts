// The one thing every tool handler asks first: what does the calling session play? Each adapter
// looks it up in its own world (a text world's characters, a Phaser scene's entities, a Three
// binding's objects); what is the same is the answer when the world lacks it.

import { ToolError } from '../../base/errors.js';
import type { ToolContext } from '../../runtime/tool.js';

/**
 * What the calling session plays, as `find` finds it by the session's character id. A session for
 * a character the world lacks is the game's mistake, but the agent still gets an answer:
 * execution_failed with `missing(id)`, which says what the game must do (retryable when the
 * character may yet appear, as in a Phaser scene that adds characters as it goes).
 */
export function callerIn<T>(context: ToolContext, find: (id: string) => T | undefined, missing: (id: string) => string, retryable = false): T {
  const me = find(context.character);
  if (me === undefined) throw new ToolError(missing(context.character), { retryable });
  return me;
}
