import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileToolSchemas, type ToolSchemas } from '../../src/node/compileSchemas.js';
import { CapsuleError } from '../../src/base/errors.js';
import type { ValidatorPurpose } from '../../src/runtime/validator.js';
import { ajvValidators } from '../../src/validators/ajv.js';
import { precompiledValidators, type PrecompiledModule } from '../../src/validators/precompiled.js';

const tools: ToolSchemas[] = [
  {
    id: 'move_to',
    strict_input: true,
    input_schema: {
      type: 'object',
      required: ['target'],
      properties: {
        target: { type: 'object', required: ['x', 'y'], properties: { x: { type: 'number' }, y: { type: 'number' } } },
        label: { type: 'string', minLength: 1, maxLength: 3, description: 'shown above the character' },
        at: { type: 'string', format: 'date-time' },
        tags: { type: 'array', uniqueItems: true },
        mode: { enum: ['walk', 'run'] },
        pose: { const: { title: 'kept: data, not an annotation' } },
      },
    },
    output_schema: { type: 'object', required: ['arrived'], properties: { arrived: { type: 'boolean' } } },
  },
  {
    id: 'say',
    input_schema: {
      type: 'object',
      required: ['text'],
      properties: { text: { type: 'string' }, to: { type: 'string', format: 'uuid' }, description: { type: 'string' } },
      additionalProperties: false,
    },
    output_schema: { type: 'object', properties: { heard: { type: 'integer' } }, additionalProperties: false },
  },
  {
    id: 'look',
    input_schema: { type: 'object', properties: { area: { type: 'object', properties: { r: { type: 'number' } } } } },
    output_schema: { type: 'object' },
  },
];

/** Every input goes to every validator: most fail, which is the point (same message both ways). */
const samples: unknown[] = [
  {},
  null,
  [],
  'text',
  7,
  { target: { x: 1, y: 2 } },
  { target: { x: '1', y: 2 } },
  { target: { x: Infinity, y: 0 } },
  { target: { x: 1, y: 2 }, extra: true },
  { target: { x: 1, y: 2, z: 3 } },
  { target: { x: 1, y: 2 }, label: '' },
  { target: { x: 1, y: 2 }, label: '😀😀😀' },
  { target: { x: 1, y: 2 }, label: 'abcd' },
  { target: { x: 1, y: 2 }, at: '2024-05-01T10:00:00Z' },
  { target: { x: 1, y: 2 }, at: 'yesterday' },
  { target: { x: 1, y: 2 }, tags: [{ a: 1 }, { a: 1 }] },
  { target: { x: 1, y: 2 }, mode: 'fly' },
  { target: { x: 1, y: 2 }, pose: { title: 'kept: data, not an annotation' } },
  { target: { x: 1, y: 2 }, pose: {} },
  { text: 'hi' },
  { text: 'hi', junk: 1, description: 'a field, not an annotation' },
  { text: 5 },
  { text: 'hi', to: 'not-a-uuid' },
  { text: 'hi', to: '123e4567-e89b-12d3-a456-426614174000' },
  { area: { r: 1, q: 2 } },
  { area: { r: 'far' } },
  { arrived: true },
  { arrived: 'yes' },
  { heard: 1, more: 2 },
  { heard: 1.5 },
];

const dir = join(fileURLToPath(new URL('..', import.meta.url)), '.tmp');
let tmp = '';
let source = '';
let generated: PrecompiledModule;

beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  // Inside the project, so the module resolves packages the way a host's bundle would.
  tmp = mkdtempSync(join(dir, 'precompiled-'));
  source = compileToolSchemas(tools);
  writeFileSync(join(tmp, 'validators.js'), source);
  generated = (await import(pathToFileURL(join(tmp, 'validators.js')).href)) as PrecompiledModule;
});

afterAll(() => {
  if (tmp !== '') rmSync(tmp, { recursive: true, force: true });
});

function purposes(tool: ToolSchemas): Array<[ValidatorPurpose, ToolSchemas['input_schema']]> {
  const strict = tool.strict_input ?? false;
  return [
    [{ tool: tool.id, kind: 'input', strict }, tool.input_schema],
    [{ tool: tool.id, kind: 'output', strict: false }, tool.output_schema],
  ];
}

describe('precompiledValidators', () => {
  it('gives the verdicts, messages and stripped data ajvValidators gives', () => {
    const runtime = ajvValidators();
    const precompiled = precompiledValidators(generated);
    for (const tool of tools) {
      for (const [purpose, schema] of purposes(tool)) {
        const expected = runtime.compile(schema, purpose);
        const actual = precompiled.compile(schema, purpose);
        for (const sample of samples) {
          const a = structuredClone(sample);
          const b = structuredClone(sample);
          expect({ verdict: actual(b), data: b }, `${tool.id} ${purpose.kind} ${JSON.stringify(sample)}`).toEqual({
            verdict: expected(a),
            data: a,
          });
        }
      }
    }
  });

  it('refuses a schema that changed, is missing or has other strictness, with the fix', () => {
    const precompiled = precompiledValidators(generated);
    const say = tools[1]!;
    const refused = (schema: ToolSchemas['input_schema'], purpose: ValidatorPurpose): CapsuleError => {
      try {
        precompiled.compile(schema, purpose);
      } catch (err) {
        if (err instanceof CapsuleError) return err;
        throw err;
      }
      throw new Error('did not throw');
    };
    const changed = refused({ ...say.input_schema, required: [] }, { tool: 'say', kind: 'input', strict: false });
    expect(changed.code).toBe('AICC_SCHEMA_COMPILE');
    expect(changed.message).toContain('tool "say" input schema has no precompiled validator (or it changed since): run `aicc compile-schemas`');
    expect(refused(say.input_schema, { tool: 'shout', kind: 'input', strict: false }).message).toContain('tool "shout" input schema');
    expect(refused(say.input_schema, { tool: 'say', kind: 'input', strict: true }).message).toContain('strict_input false');
    // Key order does not count as a change.
    const reordered = Object.fromEntries(Object.entries(say.input_schema).reverse());
    expect(precompiled.compile(reordered, { tool: 'say', kind: 'input', strict: false })({ text: 'hi' })).toEqual({ ok: true });
  });

  it('refuses a module without a validators table', () => {
    expect(() => precompiledValidators({} as PrecompiledModule)).toThrow(/no `validators` table/);
  });

  it('generates CSP-safe code: no require( and no new Function', () => {
    expect(source).not.toMatch(/\brequire\(/);
    expect(source).not.toMatch(/new Function|\beval\(/);
    expect(source).not.toMatch(/^import /m); // self-contained: no ajv in the host's bundle
  });

  it('does not import ajv itself', () => {
    for (const file of ['precompiled.ts', 'verdict.ts']) {
      const text = readFileSync(new URL(`../../src/validators/${file}`, import.meta.url), 'utf8');
      expect(text, file).not.toMatch(/from '(ajv|ajv-formats)[/']/);
    }
  });
});
