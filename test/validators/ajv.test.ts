import { describe, expect, it } from 'vitest';
import { CapsuleError } from '../../src/base/errors.js';
import type { JsonObject } from '../../src/protocol/messages.js';
import type { ValidatorPurpose } from '../../src/runtime/validator.js';
import { ajvValidators } from '../../src/validators/ajv.js';

const strictIn: ValidatorPurpose = { tool: 'move_to', kind: 'input', strict: true };
const lenientIn: ValidatorPurpose = { tool: 'move_to', kind: 'input', strict: false };
const output: ValidatorPurpose = { tool: 'move_to', kind: 'output', strict: false };

const moveTo: JsonObject = {
  type: 'object',
  required: ['target'],
  properties: {
    target: { type: 'object', required: ['x', 'y'], properties: { x: { type: 'number' }, y: { type: 'number' } } },
  },
};
const closed: JsonObject = { type: 'object', properties: { text: { type: 'string' } }, additionalProperties: false };

function compileError(fn: () => unknown): CapsuleError {
  try {
    fn();
  } catch (err) {
    if (err instanceof CapsuleError) return err;
    throw err;
  }
  throw new Error('did not throw');
}

describe('ajvValidators', () => {
  it('strict input rejects an undeclared field and names it', () => {
    const check = ajvValidators().compile(moveTo, strictIn);
    expect(check({ target: { x: 1, y: 2 } })).toEqual({ ok: true });
    expect(check({ target: { x: 1, y: 2 }, speed: 3 })).toEqual({ ok: false, message: 'input.speed is not a declared field' });
    expect(check({ target: { x: 1, y: 2, z: 0 } })).toEqual({ ok: false, message: 'input.target.z is not a declared field' });
  });

  it('strict input rejects, not strips, where the schema says additionalProperties: false', () => {
    const data = { text: 'hi', junk: 1 };
    expect(ajvValidators().compile(closed, { ...strictIn, tool: 'say' })(data)).toEqual({
      ok: false,
      message: 'input.junk is not a declared field',
    });
    expect(data).toEqual({ text: 'hi', junk: 1 });
  });

  it('lenient input ignores an undeclared field and leaves it alone', () => {
    const data = { target: { x: 1, y: 2, z: 0 }, speed: 3 };
    expect(ajvValidators().compile(moveTo, lenientIn)(data)).toEqual({ ok: true });
    expect(data).toEqual({ target: { x: 1, y: 2, z: 0 }, speed: 3 });
  });

  it('lenient input strips undeclared fields where additionalProperties is false', () => {
    const data = { text: 'hi', junk: 1 };
    expect(ajvValidators().compile(closed, { ...lenientIn, tool: 'say' })(data)).toEqual({ ok: true });
    expect(data).toEqual({ text: 'hi' });
  });

  it('compiles output schemas as written: nothing removed, whatever strict says', () => {
    const data = { text: 'hi', junk: 1 };
    const check = ajvValidators().compile(closed, { ...output, strict: true });
    expect(check(data)).toEqual({ ok: false, message: 'output.junk is not a declared field' });
    expect(data).toEqual({ text: 'hi', junk: 1 });
    expect(ajvValidators().compile(moveTo, { ...output, strict: true })({ target: { x: 1, y: 2 }, extra: 1 })).toEqual({ ok: true });
  });

  it('names the path of a nested field', () => {
    const check = ajvValidators().compile(moveTo, lenientIn);
    expect(check({ target: { x: '1', y: 2 } })).toEqual({ ok: false, message: 'input.target.x must be number' });
    expect(check({ target: { x: 1 } })).toEqual({ ok: false, message: 'input.target.y is required' });
    expect(check({ target: { x: Infinity, y: 0 } })).toEqual({ ok: false, message: 'input.target.x must be number' });
  });

  it('checks "fast" formats', () => {
    const check = ajvValidators().compile({ type: 'object', properties: { at: { type: 'string', format: 'date-time' } } }, lenientIn);
    expect(check({ at: '2024-05-01T10:00:00Z' })).toEqual({ ok: true });
    expect(check({ at: 'yesterday' })).toEqual({ ok: false, message: 'input.at must match format "date-time"' });
  });

  it('throws AICC_SCHEMA_COMPILE naming the tool, the kind and the reason', () => {
    const typo = compileError(() => ajvValidators().compile({ type: 'object', minimun: 1 }, strictIn));
    expect(typo.code).toBe('AICC_SCHEMA_COMPILE');
    expect(typo.message).toBe('tool "move_to" input schema does not compile: strict mode: unknown keyword: "minimun"');
    const invalid = compileError(() => ajvValidators().compile({ type: 'nope' }, output));
    expect(invalid.code).toBe('AICC_SCHEMA_COMPILE');
    expect(invalid.message).toMatch(/^tool "move_to" output schema does not compile: schema is invalid: /);
    const async = compileError(() => ajvValidators().compile({ $async: true, type: 'object' }, lenientIn));
    expect(async.message).toContain('$async');
  });

  it('compiles each schema once per mode, even from an equal copy', () => {
    const factory = ajvValidators();
    const first = factory.compile(moveTo, strictIn);
    expect(factory.compile(structuredClone(moveTo), { ...strictIn, tool: 'other' })).toBe(first);
    expect(factory.compile(moveTo, lenientIn)).not.toBe(first);
    expect(factory.compile(moveTo, output)).not.toBe(first);
  });

  it('keeps at most maxCachedSchemas; validators handed out keep working', () => {
    const factory = ajvValidators({ maxCachedSchemas: 1 });
    const first = factory.compile(moveTo, strictIn);
    factory.compile(closed, strictIn);
    expect(factory.compile(moveTo, strictIn)).not.toBe(first);
    expect(first({ target: { x: 1, y: 2 }, speed: 3 })).toEqual({ ok: false, message: 'input.speed is not a declared field' });
    expect(compileError(() => ajvValidators({ maxCachedSchemas: 0 })).code).toBe('AICC_INVALID_OPTION');
  });
});
