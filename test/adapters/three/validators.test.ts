// The Three tools ship with precompiled validators: a capsule made with threeValidators() checks a
// binding's tools without compiling a schema (no 'unsafe-eval', no ajv in a game's bundle), with
// ajv's verdicts, for any ranges, speeds and area a game picks; tools of its own need a fallback.

import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { Scene } from 'three';
import { describe, expect, it } from 'vitest';
import { validatorsOf } from '../../../scripts/generate-validators.js';

import { CapsuleBinding, threeTools, threeValidators, THREE_TOOL_NAMES, type SceneBinding, type ThreeToolsOptions } from '../../../src/adapters/three/index.js';
import { createCapsule } from '../../../src/runtime/capsule.js';
import { ManualClock } from '../../../src/base/clock.js';
import type { ValidatorFactory } from '../../../src/runtime/validator.js';
import { ajvValidators } from '../../../src/validators/ajv.js';
import { expectAjvVerdicts } from '../../validators/parity.js';

const three = await validatorsOf('three');

const binding = {} as SceneBinding; // the factories read options only until a tool is called

describe('src/adapters/three/generated/three-validators.js', () => {
  it('is what the generator writes now (else run `npm run generate`)', () => {
    expect(readFileSync(three.outFile, 'utf8') === three.source(), 'stale: run `npm run generate`').toBe(true);
    expect(readFileSync(three.typesFile, 'utf8')).toBe(three.typesSource());
  });

  it('is CSP-safe and self-contained', () => {
    expect(readFileSync(three.outFile, 'utf8')).not.toMatch(/\brequire\(|new Function|\beval\(|^import /m);
  });

  it('covers every Three tool in both its shapes (move_to with and without an area)', () => {
    expect(new Set(three.tools().map((tool) => tool.id))).toEqual(new Set(THREE_TOOL_NAMES));
  });
});

describe('threeValidators', () => {
  const positive = fc.double({ min: 0.001, max: 1e5, noNaN: true });
  const options: fc.Arbitrary<ThreeToolsOptions> = fc
    .record(
      {
        nearby: fc.record({ radius: positive, maxRadius: positive, maxResults: fc.integer({ min: 1, max: 50 }) }, { requiredKeys: [] }),
        look_ahead: fc.record({ range: positive, maxRange: positive, id: fc.constant('peek') }, { requiredKeys: [] }),
        line_of_sight: fc.record({ range: positive }, { requiredKeys: [] }),
        move_to: fc.record(
          {
            speed: positive,
            maxSpeed: positive,
            timeoutMs: positive,
            area: fc
              .tuple(fc.double({ min: -1e4, max: 1e4, noNaN: true }), fc.double({ min: 0, max: 1e4, noNaN: true }))
              .map(([min, size]) => ({ minX: min, maxX: min + size, minZ: -min, maxZ: -min + size })),
          },
          { requiredKeys: [] },
        ),
        turn_to: fc.record({ turnSpeed: positive }, { requiredKeys: [] }),
      },
      { requiredKeys: [] },
    )
    .map((overrides) => ({ overrides }));

  it('checks every Three tool as ajv would, for any ranges, speeds, area and renames', () => {
    fc.assert(
      fc.property(options, (chosen) => expectAjvVerdicts(threeValidators(), threeTools(binding, chosen), 20)),
      { numRuns: 12 },
    );
    expectAjvVerdicts(threeValidators(), threeTools(binding), 300);
  });

  it('lets a capsule made with them take a binding’s tools, and a game’s own tool through the fallback', () => {
    const asked: string[] = [];
    const inner = ajvValidators();
    const fallback: ValidatorFactory = { compile: (schema, purpose) => (asked.push(purpose.tool), inner.compile(schema, purpose)) };
    const capsule = createCapsule({ world: { name: 'Meadow', kind: '3d' }, clock: new ManualClock(), validators: threeValidators(fallback) });
    new CapsuleBinding(capsule, new Scene(), { tools: { overrides: { move_to: { area: { minX: -5, maxX: 5, minZ: -5, maxZ: 5 } } } } }).connect();
    expect(capsule.tools().map((tool) => tool.id)).toEqual([...THREE_TOOL_NAMES]);
    expect(asked).toEqual([]);
    capsule.registerTool({
      id: 'wave',
      class: 'actuator',
      description: 'Wave.',
      input_schema: { type: 'object' },
      output_schema: { type: 'object' },
      handler: () => ({}),
    });
    expect(asked).toEqual(['wave', 'wave']);
    expect(() => threeValidators().compile({ type: 'object' }, { tool: 'wave', kind: 'input', strict: false })).toThrow(
      expect.objectContaining({
        code: 'AICC_SCHEMA_COMPILE',
        message: expect.stringMatching(/^threeValidators: tool "wave" input schema is none of the Three tools'.*threeValidators\(fallback\)/),
      }),
    );
    capsule.dispose();
  });
});
