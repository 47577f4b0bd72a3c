// @vitest-environment jsdom
// The plugin's capsule checks the Phaser tools with their precompiled validators, never compiling a
// schema; tools of the game's own are checked by the validators it gives (capsuleOptions.validators).

import { afterEach, expect, it } from 'vitest';
import { PHASER_TOOL_NAMES } from '../../../src/adapters/phaser/index.js';
import type { ToolDefinition } from '../../../src/runtime/tool.js';
import type { ValidatorFactory } from '../../../src/runtime/validator.js';
import { ajvValidators } from '../../../src/validators/ajv.js';
import { stage, type Stage } from './harness.js';

const mine: ToolDefinition = {
  id: 'wave',
  class: 'actuator',
  description: 'Wave.',
  input_schema: { type: 'object', properties: { at: { type: 'string' } } },
  output_schema: { type: 'object' },
  handler: () => ({}),
};

/** ajv, noting each schema it is asked for. */
function recording(): ValidatorFactory & { asked: string[] } {
  const asked: string[] = [];
  const inner = ajvValidators();
  return { asked, compile: (schema, purpose) => (asked.push(`${purpose.tool}:${purpose.kind}`), inner.compile(schema, purpose)) };
}

let s: Stage | undefined;
afterEach(() => s?.destroy());

it('registers the Phaser tools without compiling a schema', async () => {
  const fallback = recording();
  s = await stage({ plugin: { capsuleOptions: { validators: fallback }, perceptionRadius: 250 } });
  s.plugin.registerTools({ overrides: { move_to: { id: 'walk_to' } } });
  expect(s.plugin.capsule.tools().map((tool) => tool.id)).toEqual(PHASER_TOOL_NAMES.map((name) => (name === 'move_to' ? 'walk_to' : name)));
  expect(fallback.asked).toEqual([]);
  // The game's own tool is checked by the validators it gave.
  s.plugin.capsule.registerTool(mine);
  expect(fallback.asked).toEqual(['wave:input', 'wave:output']);
});

it('refuses a tool of the game’s own when the game gave no validators, saying how to give them', async () => {
  s = await stage();
  s.plugin.registerTools();
  expect(() => s!.plugin.capsule.registerTool(mine)).toThrow(
    expect.objectContaining({ code: 'AICC_SCHEMA_COMPILE', message: expect.stringContaining('capsuleOptions.validators') }),
  );
});
