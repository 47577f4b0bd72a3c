import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shapeTableSource } from '../../scripts/generate-validators.js';
import type { JsonObject } from '../../src/protocol/messages.js';
import type { ToolDefinition } from '../../src/runtime/tool.js';
import type { ValidatorFactory } from '../../src/runtime/validator.js';
import { ajvValidators } from '../../src/validators/ajv.js';
import { schemaShape, shapeKey, shapeValidators, type ShapeTable } from '../../src/validators/shapes.js';

/** A tool whose schemas carry a game's numbers in their bounds, as the adapters' do. */
function look(radius: number, longest: number): ToolDefinition {
  return {
    id: 'look',
    class: 'sensor',
    description: `Look up to ${radius} px.`,
    input_schema: {
      type: 'object',
      properties: {
        radius: { type: 'number', exclusiveMinimum: 0, maximum: radius, description: `at most ${radius}` },
        kind: { type: 'string', minLength: 1, maxLength: longest },
        mode: { enum: ['near', 'far'] },
      },
      required: [],
    },
    output_schema: { type: 'object', properties: { seen: { type: 'array', items: { type: 'string' }, maxItems: 10 } }, required: ['seen'] },
    strict_input: true,
    handler: () => ({ seen: [] }),
  };
}

let dir: string;
let table: ShapeTable;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aicc-shapes-'));
  const file = join(dir, 'look-validators.js');
  // Generated from one set of numbers: the table must serve any other.
  writeFileSync(file, shapeTableSource([look(400, 32)], '// test table'));
  table = ((await import(pathToFileURL(file).href)) as { shapes: ShapeTable }).shapes;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('schemaShape', () => {
  it('lifts each bound out, in the order met, and drops annotations', () => {
    const { shape, bounds } = schemaShape(look(300, 8).input_schema);
    expect(bounds).toEqual([0, 300, 1, 8]);
    expect(shape).toEqual({
      type: 'object',
      properties: {
        radius: { type: 'number', exclusiveMinimum: { $data: '/0' }, maximum: { $data: '/1' } },
        kind: { type: 'string', minLength: { $data: '/2' }, maxLength: { $data: '/3' } },
        mode: { enum: ['near', 'far'] },
      },
      required: [],
    });
  });

  it('gives schemas that differ only in bounds and annotations one shape, and others another', () => {
    const key = (schema: JsonObject) => shapeKey(schemaShape(schema).shape, { kind: 'input', strict: true });
    expect(key(look(300, 8).input_schema)).toBe(key(look(12.5, 64).input_schema));
    expect(key({ type: 'object', properties: { radius: { type: 'number' } } })).not.toBe(key({ type: 'object', properties: { radius: { type: 'integer' } } }));
    expect(shapeKey(schemaShape({}).shape, { kind: 'input', strict: true })).not.toBe(shapeKey(schemaShape({}).shape, { kind: 'input', strict: false }));
    expect(shapeKey(schemaShape({}).shape, { kind: 'output', strict: false })).toMatch(/^output:/);
  });

  it('leaves data alone: enum and const values, property names, and bounds ajv would refuse', () => {
    const schema: JsonObject = {
      properties: { maximum: { const: { maximum: 3, description: 'data' } }, n: { maxLength: 1.5 }, m: { minItems: -1 } },
      enum: [{ minimum: 1 }],
    };
    expect(schemaShape(schema)).toEqual({ shape: schema, bounds: [] });
  });

  it('keeps a property named "__proto__" as a property', () => {
    const schema = JSON.parse('{"properties":{"__proto__":{"type":"number","maximum":3}}}') as JsonObject;
    const { shape, bounds } = schemaShape(schema);
    expect(Object.keys(shape['properties'] as object)).toEqual(['__proto__']);
    expect(bounds).toEqual([3]);
  });
});

describe('shapeValidators', () => {
  const purpose = { tool: 'look', kind: 'input', strict: true } as const;
  const factory = (fallback?: ValidatorFactory) => shapeValidators(table, { fallback, owner: 'lookValidators', holds: 'the look tools' });

  it('checks a schema with the bounds it declares, whatever numbers the table was generated with', () => {
    const wide = factory().compile(look(400, 32).input_schema, purpose);
    const narrow = factory().compile(look(50, 3).input_schema, purpose);
    expect(wide({ radius: 300, kind: 'tree' })).toEqual({ ok: true });
    expect(narrow({ radius: 300 })).toEqual({ ok: false, message: 'input.radius must be <= 50' });
    expect(narrow({ kind: 'tree' })).toEqual({ ok: false, message: 'input.kind must NOT have more than 3 characters' });
    expect(narrow({ radius: 0 })).toEqual({ ok: false, message: 'input.radius must be > 0' });
  });

  it('gives the verdicts and messages ajv compiling the same schema gives', () => {
    const ajv = ajvValidators();
    const samples: unknown[] = [
      {},
      null,
      [],
      'x',
      { radius: 10 },
      { radius: 11 },
      { radius: -1 },
      { radius: '1' },
      { kind: '' },
      { kind: 'abcd' },
      { kind: '😀😀😀' },
      { mode: 'mid' },
      { extra: 1 },
      { radius: 5, kind: 'ab', mode: 'far' },
      { radius: Number.NaN },
    ];
    for (const [radius, longest] of [
      [10, 3],
      [0.5, 0],
      [1e9, 100],
    ] as const) {
      const definition = look(radius, longest);
      const ours = factory().compile(definition.input_schema, purpose);
      const theirs = ajv.compile(definition.input_schema, purpose);
      for (const sample of samples) expect(ours(sample), `${radius}/${longest}: ${JSON.stringify(sample)}`).toEqual(theirs(sample));
      const out = factory().compile(definition.output_schema, { tool: 'look', kind: 'output', strict: false });
      const outTheirs = ajv.compile(definition.output_schema, { tool: 'look', kind: 'output', strict: false });
      for (const sample of [{ seen: [] }, { seen: Array(11).fill('a') }, { seen: [1] }, {}]) expect(out(sample)).toEqual(outTheirs(sample));
    }
  });

  it('refuses a schema it has no shape for, naming the tool, the owner and what to give instead', () => {
    expect(() => factory().compile({ type: 'object', properties: { other: { type: 'string' } } }, { tool: 'mine', kind: 'input', strict: true })).toThrow(
      expect.objectContaining({
        code: 'AICC_SCHEMA_COMPILE',
        message: expect.stringMatching(
          /^lookValidators: tool "mine" input schema is none of the look tools'.*lookValidators\(fallback\).*ajvValidators\(\).*unsafe-eval.*aicc compile-schemas/,
        ),
      }),
    );
    // The same shape compiled another way (lenient) is another shape.
    expect(() => factory().compile(look(1, 1).input_schema, { tool: 'look', kind: 'input', strict: false })).toThrow(/none of the look tools/);
  });

  it('hands a schema it has no shape for to the fallback', () => {
    const asked: string[] = [];
    const fallback: ValidatorFactory = { compile: (_schema, p) => (asked.push(`${p.tool}:${p.kind}`), () => ({ ok: false, message: 'fallback' })) };
    expect(factory(fallback).compile({ type: 'string' }, { tool: 'mine', kind: 'output', strict: false })('x')).toEqual({ ok: false, message: 'fallback' });
    expect(factory(fallback).compile(look(9, 9).input_schema, purpose)({})).toEqual({ ok: true });
    expect(asked).toEqual(['mine:output']);
  });
});
