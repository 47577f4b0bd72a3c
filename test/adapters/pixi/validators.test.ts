// The PixiJS tools ship with precompiled validators: a capsule made with pixiValidators() checks a
// binding's tools without compiling a schema (no 'unsafe-eval', no ajv in a game's bundle), with
// ajv's verdicts, for any perception radius and field of view a game picks.

import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validatorsOf } from '../../../scripts/generate-validators.js';
import { PIXI_TOOL_NAMES, PixiBinding, pixiTools, pixiValidators, type PixiStage } from '../../../src/adapters/pixi/index.js';
import { ManualClock } from '../../../src/base/clock.js';
import { createCapsule } from '../../../src/runtime/capsule.js';
import { expectAjvVerdicts } from '../../validators/parity.js';

const pixi = await validatorsOf('pixi');

describe('src/adapters/pixi/generated/pixi-validators.js', () => {
  it('is what the generator writes now (else run `npm run generate`)', () => {
    expect(readFileSync(pixi.outFile, 'utf8') === pixi.source(), 'stale: run `npm run generate`').toBe(true);
    expect(readFileSync(pixi.typesFile, 'utf8')).toBe(pixi.typesSource());
  });

  it('is CSP-safe and self-contained, and covers every PixiJS tool', () => {
    expect(readFileSync(pixi.outFile, 'utf8')).not.toMatch(/\brequire\(|new Function|\beval\(|^import /m);
    expect(new Set(pixi.tools().map((tool) => tool.id))).toEqual(new Set(PIXI_TOOL_NAMES));
  });
});

describe('pixiValidators', () => {
  it('checks every PixiJS tool as ajv would, for any perception radius, field of view and renames', () => {
    const stage = fc.record({ perceptionRadius: fc.double({ min: 0.001, max: 1e5, noNaN: true }), fieldOfView: fc.double({ min: 1, max: 359, noNaN: true }) });
    fc.assert(
      fc.property(stage, (chosen) => expectAjvVerdicts(pixiValidators(), pixiTools(chosen as PixiStage, { overrides: { say: { id: 'speak' } } }), 20)),
      { numRuns: 12 },
    );
    expectAjvVerdicts(pixiValidators(), pixiTools({ perceptionRadius: 250, fieldOfView: 90 } as PixiStage), 300);
  });

  it('lets a capsule made with them, and no ajv, take a binding’s tools and refuse bad input', async () => {
    const capsule = createCapsule({ world: { name: 'Pixiland', kind: '2d' }, clock: new ManualClock(), validators: pixiValidators() });
    new PixiBinding(capsule, { perceptionRadius: 120 }).connect();
    expect(capsule.tools().map((tool) => tool.id)).toEqual([...PIXI_TOOL_NAMES]);
    expect(() =>
      capsule.registerTool({
        id: 'wave',
        class: 'actuator',
        description: 'Wave.',
        input_schema: { type: 'object' },
        output_schema: { type: 'object' },
        handler: () => ({}),
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'AICC_SCHEMA_COMPILE',
        message: expect.stringMatching(/^pixiValidators: tool "wave" input schema is none of the PixiJS tools'/),
      }),
    );
    capsule.dispose();
  });
});
