// callerIn: what every adapter's tools ask first — the thing the calling session plays — and the
// answer an agent gets when the world lacks it.

import { describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/base/errors.js';
import type { ToolContext } from '../../../src/runtime/tool.js';
import { callerIn } from '../../../src/adapters/shared/caller.js';

const context = { character: 'wren' } as ToolContext;
const missing = (id: string) => `you play "${id}", who is not here; the game must add them`;

describe('callerIn', () => {
  it('finds the calling session’s character by its id', () => {
    const world = new Map([['wren', { name: 'Wren' }]]);
    expect(callerIn(context, (id) => world.get(id), missing)).toEqual({ name: 'Wren' });
  });

  it('refuses with the adapter’s message when the world lacks it, retryable only when asked', () => {
    let thrown: unknown;
    try {
      callerIn(context, () => undefined, missing);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ToolError);
    expect(thrown).toMatchObject({ message: 'you play "wren", who is not here; the game must add them', retryable: false });
    expect(() => callerIn(context, () => undefined, missing, true)).toThrow(expect.objectContaining({ retryable: true }));
  });
});
