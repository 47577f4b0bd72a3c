// The adapters' one integration shape: tools bound to a capsule as `{ handles, dispose }` —
// registered all or none, disposed once, and removed under one rule (a tool already removed is
// fine, anything else is thrown once the rest are gone).

import { describe, expect, it } from 'vitest';
import { CapsuleError } from '../../../src/base/errors.js';
import type { ToolDefinition, ToolHandle } from '../../../src/runtime/tool.js';
import { bindTools, removeAll } from '../../../src/adapters/shared/toolBinding.js';
import { makeCapsule } from '../../helpers.js';

function tool(id: string): ToolDefinition {
  return { id, class: 'sensor', description: `The ${id} tool.`, input_schema: { type: 'object' }, output_schema: { type: 'object' }, handler: () => ({}) };
}

const ids = (capsule: { tools(): readonly { id: string }[] }) => capsule.tools().map((descriptor) => descriptor.id);

describe('bindTools', () => {
  it('registers every tool in order and hands back their handles', () => {
    const { capsule } = makeCapsule();
    const binding = bindTools(capsule, [tool('look'), tool('listen')]);
    expect(binding.handles.map((handle) => handle.id)).toEqual(['look', 'listen']);
    expect(ids(capsule)).toEqual(['look', 'listen']);
  });

  it('is all or nothing: a clash throws after the tools it registered are removed again', () => {
    const { capsule } = makeCapsule();
    capsule.registerTool(tool('listen'));
    expect(() => bindTools(capsule, [tool('look'), tool('listen'), tool('smell')])).toThrow(expect.objectContaining({ code: 'AICC_DUPLICATE_TOOL' }));
    expect(ids(capsule)).toEqual(['listen']);
  });

  it('is all or nothing with its hook too: a hook that throws leaves no tool behind', () => {
    const { capsule } = makeCapsule();
    const hook = (): (() => void) => {
      throw new Error('no scene to hook');
    };
    expect(() => bindTools(capsule, [tool('look')], hook)).toThrow('no scene to hook');
    expect(ids(capsule)).toEqual([]);
  });

  it('dispose removes the tools and runs the hook’s undo, once however often it is called; handles are empty after', () => {
    const { capsule } = makeCapsule();
    let undone = 0;
    const binding = bindTools(capsule, [tool('look'), tool('listen')], () => () => void undone++);
    binding.dispose();
    binding.dispose();
    expect(undone).toBe(1);
    expect(ids(capsule)).toEqual([]);
    expect(binding.handles).toEqual([]);
  });

  it('dispose tolerates a tool the game removed itself, and removes the others', () => {
    const { capsule } = makeCapsule();
    const binding = bindTools(capsule, [tool('look'), tool('listen'), tool('smell')]);
    binding.handles[1]!.remove();
    expect(() => binding.dispose()).not.toThrow();
    expect(ids(capsule)).toEqual([]);
  });

  it('dispose after the capsule is disposed still lets go of the tools', () => {
    const { capsule } = makeCapsule();
    const binding = bindTools(capsule, [tool('look')]);
    capsule.dispose();
    expect(() => binding.dispose()).not.toThrow();
  });
});

describe('removeAll', () => {
  it('throws any other error, after removing the rest', () => {
    const removed: string[] = [];
    const handle = (id: string, fails?: Error): ToolHandle =>
      ({
        id,
        remove: () => {
          if (fails !== undefined) throw fails;
          removed.push(id);
        },
      }) as ToolHandle;
    const broken = new CapsuleError('AICC_INVALID_OPTION', 'a handle that fails');
    expect(() => removeAll([handle('a'), handle('b', broken), handle('c', new CapsuleError('AICC_TOOL_REMOVED', 'gone')), handle('d')])).toThrow(broken);
    expect(removed).toEqual(['a', 'd']);
  });
});
