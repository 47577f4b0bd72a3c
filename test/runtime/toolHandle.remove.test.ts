// ToolHandle.remove(): idempotent, and bound to its own registration.
import { describe, expect, it } from 'vitest';
import { createCapsule } from '../../src/index.js';
import { ManualClock } from '../../src/base/clock.js';

const tool = (id: string, description = `The ${id} tool.`) => ({
  id,
  class: 'sensor' as const,
  description,
  input_schema: { type: 'object' },
  output_schema: { type: 'object' },
  handler: () => ({}),
});

describe('ToolHandle.remove', () => {
  it('is safe to call twice', () => {
    const capsule = createCapsule({ world: { name: 'w', kind: 'abstract' }, clock: new ManualClock() });
    const look = capsule.registerTool(tool('look'));
    look.remove();
    expect(() => look.remove()).not.toThrow();
    expect(capsule.tools()).toEqual([]);
  });

  it('never touches a later tool of the same id, even after an update', () => {
    const capsule = createCapsule({ world: { name: 'w', kind: 'abstract' }, clock: new ManualClock() });
    const adapters = capsule.registerTool(tool('look'));
    adapters.update({ description: 'Updated.' });
    adapters.remove();
    capsule.registerTool(tool('look', 'The game’s own look.'));
    adapters.remove();
    expect(capsule.tools().map((t) => t.description)).toEqual(['The game’s own look.']);
    expect(() => adapters.enable()).toThrow(expect.objectContaining({ code: 'AICC_TOOL_REMOVED' }));
    expect(() => adapters.enabled).toThrow(expect.objectContaining({ code: 'AICC_TOOL_REMOVED' }));
  });

  it('an updated handle still removes its tool', () => {
    const capsule = createCapsule({ world: { name: 'w', kind: 'abstract' }, clock: new ManualClock() });
    const look = capsule.registerTool(tool('look'));
    look.update({ description: 'Updated.' });
    look.disable();
    look.enable();
    look.remove();
    expect(capsule.tools()).toEqual([]);
  });
});
