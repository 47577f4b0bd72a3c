// The Phaser tools ship with precompiled validators (no 'unsafe-eval', no ajv in a game's bundle):
// they give ajv's verdicts for any options a game picks; tools of the game's own need validators it
// gives. What the plugin's capsule does with them: pluginValidators.test.ts.

import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validatorsOf } from '../../../scripts/generate-validators.js';

import { phaserTools, phaserValidators, PHASER_TOOL_NAMES, type SceneWorld } from '../../../src/adapters/phaser/index.js';
import type { ToolDefinition } from '../../../src/runtime/tool.js';
import type { ValidatorFactory } from '../../../src/runtime/validator.js';
import { ajvValidators } from '../../../src/validators/ajv.js';
import { expectAjvVerdicts } from '../../validators/parity.js';

const phaser = await validatorsOf('phaser');

const world = (perceptionRadius: number, templates: string[] = []) =>
  ({ perceptionRadius, entities: { templates: () => templates.map((name) => ({ name, description: `a ${name}` })) } }) as unknown as SceneWorld;

const mine: ToolDefinition = {
  id: 'wave',
  class: 'actuator',
  description: 'Wave.',
  input_schema: { type: 'object', properties: { at: { type: 'string' } } },
  output_schema: { type: 'object' },
  handler: () => ({}),
};

/** A fallback that fails the test if the capsule ever asks it for a Phaser tool's validator. */
function recording(): ValidatorFactory & { asked: string[] } {
  const asked: string[] = [];
  const inner = ajvValidators();
  return { asked, compile: (schema, purpose) => (asked.push(`${purpose.tool}:${purpose.kind}`), inner.compile(schema, purpose)) };
}

describe('src/adapters/phaser/generated/phaser-validators.js', () => {
  it('is what the generator writes now (else run `npm run generate`)', () => {
    expect(readFileSync(phaser.outFile, 'utf8') === phaser.source(), 'stale: run `npm run generate`').toBe(true);
    expect(readFileSync(phaser.typesFile, 'utf8')).toBe(phaser.typesSource());
  });

  it('is CSP-safe and self-contained', () => {
    expect(readFileSync(phaser.outFile, 'utf8')).not.toMatch(/\brequire\(|new Function|\beval\(|^import /m);
  });

  it('covers every Phaser tool in both its shapes (a finite and an unbounded perception radius)', () => {
    expect(new Set(phaser.tools().map((tool) => tool.id))).toEqual(new Set(PHASER_TOOL_NAMES));
  });
});

describe('phaserValidators', () => {
  it('checks every Phaser tool as ajv would, for any perception radius, templates and renames', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.double({ min: 0.001, max: 1e6, noNaN: true }), fc.constant(Number.POSITIVE_INFINITY)),
        fc.array(fc.constantFrom('apple', 'sign', 'fire'), { maxLength: 2 }),
        (radius, templates) => {
          const tools = phaserTools(world(radius, templates), { overrides: { say: { id: 'speak' }, nearby: { id: 'look_around' } } });
          expectAjvVerdicts(phaserValidators(), tools, 20);
        },
      ),
      { numRuns: 12 },
    );
    expectAjvVerdicts(phaserValidators(), phaserTools(world(300)), 300);
  });

  it('hands other schemas to the fallback, and without one refuses them saying what to give', () => {
    const fallback = recording();
    expect(phaserValidators(fallback).compile(mine.input_schema, { tool: 'wave', kind: 'input', strict: false })({ at: 1 })).toEqual({
      ok: false,
      message: 'input.at must be string',
    });
    expect(fallback.asked).toEqual(['wave:input']);
    expect(() => phaserValidators().compile(mine.input_schema, { tool: 'wave', kind: 'input', strict: false })).toThrow(
      expect.objectContaining({
        code: 'AICC_SCHEMA_COMPILE',
        message: expect.stringMatching(
          /^phaserValidators: tool "wave" input schema is none of the Phaser tools'.*capsuleOptions\.validators.*ajvValidators\(\)/,
        ),
      }),
    );
  });
});
