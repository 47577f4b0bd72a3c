// The check both adapters' validator tests make: a factory of precompiled validators gives, for every
// tool definition, the verdict and the message ajv gives compiling the same schema at run time.

import fc from 'fast-check';
import { expect } from 'vitest';
import type { JsonObject } from '../../src/protocol/messages.js';
import type { ToolDefinition } from '../../src/runtime/tool.js';
import type { ValidatorFactory } from '../../src/runtime/validator.js';
import { ajvValidators } from '../../src/validators/ajv.js';

const leaf = fc.oneof(
  fc.double(),
  fc.integer({ min: -3000, max: 3000 }),
  fc.string({ maxLength: 150 }),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('character', 'object', 'done', 'stopped', '😀'),
);
// One for all calls: it compiles each distinct schema once.
const ajv = ajvValidators();

const value = fc.oneof(leaf, fc.array(leaf, { maxLength: 3 }), fc.record({ x: fc.double(), y: fc.double(), z: fc.double() }, { requiredKeys: [] }));

/** Values near what `schema` admits: its own fields (and an undeclared one), often of the right type. */
export function samplesOf(schema: JsonObject): fc.Arbitrary<unknown> {
  const names = Object.keys((schema['properties'] as JsonObject | undefined) ?? {});
  const objects = fc.dictionary(fc.constantFrom(...names, 'extra'), value, { maxKeys: names.length + 1 });
  return fc.oneof({ weight: 8, arbitrary: objects }, { weight: 1, arbitrary: fc.anything() });
}

/** Every input and output schema of `tools`: `ours` and ajv agree on `runs` samples of each. */
export function expectAjvVerdicts(ours: ValidatorFactory, tools: readonly ToolDefinition[], runs = 200): void {
  for (const tool of tools) {
    for (const kind of ['input', 'output'] as const) {
      const schema = kind === 'input' ? tool.input_schema : tool.output_schema;
      const purpose = { tool: tool.id, kind, strict: kind === 'input' && tool.strict_input === true };
      const mine = ours.compile(schema, purpose);
      const theirs = ajv.compile(schema, purpose);
      fc.assert(
        fc.property(samplesOf(schema), (sample) => {
          // Each gets its own copy: a lenient validator may remove fields.
          expect(mine(structuredClone(sample)), `${tool.id} ${kind}: ${JSON.stringify(sample)}`).toEqual(theirs(structuredClone(sample)));
        }),
        { numRuns: runs },
      );
    }
  }
}
