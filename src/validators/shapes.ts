// Validators generated ahead of time for schema *shapes*: a schema whose numeric bounds (maximum,
// maxLength, …) are lifted out as parameters. An adapter's tool schemas carry options in their bounds
// (the Phaser perception radius, the Three walkable area), so one generated validator serves every
// value a game picks: the bounds are read at run time through ajv's `$data` pointers, with the
// bounds array passed as the validator's root data. No ajv and no `new Function` here (CSP-safe).

import { CapsuleError } from '../base/errors.js';
import type { JsonObject } from '../protocol/messages.js';
import { schemaFingerprint, type SchemaValidator, type ValidatorFactory, type ValidatorPurpose } from '../runtime/validator.js';
import { verdict, type GeneratedValidatorFn } from './verdict.js';
import { ANNOTATIONS, SCHEMA_MAPS, SUBSCHEMAS } from './schemaKeywords.js';

/** A shape's generated validator: its `$data` pointers read the bounds from the root data. */
export interface ShapeValidatorFn {
  (data: unknown, context: { rootData: readonly number[] }): boolean;
  errors?: GeneratedValidatorFn['errors'];
}

/** Generated validators by shapeKey: what scripts/generate-validators.ts writes for an adapter. */
export type ShapeTable = Readonly<Record<string, ShapeValidatorFn>>;

/** A schema with its bounds lifted out: `shape` holds `{ $data: '/i' }` where `bounds[i]` was. */
export interface SchemaShape {
  shape: JsonObject;
  bounds: number[];
}

/** Bounds any finite number may take; a shape's validator reads them from its parameters. */
const NUMBER_BOUNDS = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']);
/** Bounds that must be whole counts (ajv refuses others when it compiles, so they are not lifted). */
const COUNT_BOUNDS = new Set(['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties']);

/**
 * The shape of `schema`: annotations dropped, each valid bound replaced by a `$data` pointer to its
 * index in `bounds` (in the order met). Walks schema positions only: `enum` and `const` values are
 * data and stay as written.
 */
export function schemaShape(schema: JsonObject): SchemaShape {
  const bounds: number[] = [];
  const walk = (node: unknown): unknown => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
    // Built with fromEntries, never `out[key] =`: a key "__proto__" must stay a key.
    const entries: Array<[string, unknown]> = [];
    for (const [key, value] of Object.entries(node)) {
      if (ANNOTATIONS.has(key)) continue;
      if (isBound(key, value)) {
        entries.push([key, { $data: `/${bounds.length}` }]);
        bounds.push(value);
      } else if (SCHEMA_MAPS.has(key) && value !== null && typeof value === 'object' && !Array.isArray(value)) {
        entries.push([key, Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, walk(sub)]))]);
      } else if (SUBSCHEMAS.has(key)) {
        entries.push([key, Array.isArray(value) ? value.map(walk) : walk(value)]);
      } else entries.push([key, value]);
    }
    return Object.fromEntries(entries);
  };
  return { shape: walk(schema) as JsonObject, bounds };
}

function isBound(key: string, value: unknown): value is number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return false;
  return NUMBER_BOUNDS.has(key) || (COUNT_BOUNDS.has(key) && Number.isInteger(value) && value >= 0);
}

/** How a schema is compiled for a purpose, as ajvValidators tells them apart. */
export function shapeMode(purpose: Pick<ValidatorPurpose, 'kind' | 'strict'>): 'strict' | 'lenient' | 'output' {
  return purpose.kind === 'output' ? 'output' : purpose.strict ? 'strict' : 'lenient';
}

/** The key a shape's generated validator is stored under, e.g. `strict:1a2b3c4d5f`. */
export function shapeKey(shape: JsonObject, purpose: Pick<ValidatorPurpose, 'kind' | 'strict'>): string {
  return `${shapeMode(purpose)}:${schemaFingerprint(shape)}`;
}

export interface ShapeValidatorsOptions {
  /** Compiles the schemas the table lacks (a game's own tools). Default: none, they are refused. */
  fallback?: ValidatorFactory | undefined;
  /** Who refuses, for the error: e.g. 'phaserValidators'. */
  owner: string;
  /** Whose schemas the table holds, for the error: e.g. 'the Phaser tools'. */
  holds: string;
  /** Where a game gives the fallback, for the error. Default `${owner}(fallback)`. */
  giveAs?: string;
}

/**
 * A ValidatorFactory that looks a schema's shape up in `table` and binds the schema's own bounds to
 * it. A shape the table lacks goes to `fallback`; without one it throws AICC_SCHEMA_COMPILE saying
 * how to check tools of the game's own.
 */
export function shapeValidators(table: ShapeTable, options: ShapeValidatorsOptions): ValidatorFactory {
  const { fallback, owner, holds, giveAs = `${owner}(fallback)` } = options;
  return {
    compile(schema: JsonObject, purpose: ValidatorPurpose): SchemaValidator {
      const { shape, bounds } = schemaShape(schema);
      const key = shapeKey(shape, purpose);
      const validate = Object.hasOwn(table, key) ? table[key] : undefined;
      if (validate !== undefined) {
        // The data is checked as ajv checks it; only the $data pointers look at the root.
        const context = { rootData: bounds };
        return (data) => verdict(validate(data, context), validate, purpose.kind);
      }
      if (fallback !== undefined) return fallback.compile(schema, purpose);
      throw new CapsuleError(
        'AICC_SCHEMA_COMPILE',
        `${owner}: tool "${purpose.tool}" ${purpose.kind} schema is none of ${holds}' (only theirs are precompiled here); ` +
          `for tools of your own, give ${giveAs} validators for them: ajvValidators() from aicc-capsule/ajv (compiles at run time: ` +
          "a CSP must allow 'unsafe-eval') or precompiledValidators(…) from aicc-capsule/precompiled with `aicc compile-schemas`",
      );
    },
  };
}
