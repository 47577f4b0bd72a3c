// Tool schemas compiled at run time by ajv (2020-12, "fast" formats). Needs `new Function`: pages
// whose CSP forbids it use precompiledValidators (./precompiled.ts) with `aicc compile-schemas`.

import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { CapsuleError } from '../base/errors.js';
import type { JsonObject } from '../protocol/messages.js';
import { schemaFingerprint, strictSchema, type SchemaValidator, type ValidatorFactory, type ValidatorPurpose } from '../runtime/validator.js';
import { AJV_OPTIONS, ASYNC_REASON, FORMATS_MODE, schemaCompileMessage } from './ajvOptions.js';
import { toSchemaValidator } from './verdict.js';

export interface AjvValidatorsOptions {
  /** Most compiled schemas kept (oldest used dropped first). Default 1000. */
  maxCachedSchemas?: number;
}

type Mode = 'strict' | 'lenient' | 'output';

/**
 * A ValidatorFactory that compiles each distinct schema once (cached by fingerprint and mode).
 *
 * - input, `strict: true`: compiles `strictSchema(schema)`, so an undeclared field is an error
 *   naming it (`input.extra is not a declared field`).
 * - input, `strict: false`: compiles the schema as written with `removeAdditional: true`, so an
 *   undeclared field is ignored: deleted from the data where the schema says
 *   `additionalProperties: false`, left alone elsewhere.
 * - output: compiled as written, nothing removed; `strict` is not looked at.
 *
 * An unknown keyword or an invalid schema throws CapsuleError AICC_SCHEMA_COMPILE naming the tool.
 */
export function ajvValidators(options: AjvValidatorsOptions = {}): ValidatorFactory {
  const max = options.maxCachedSchemas ?? 1000;
  if (!Number.isInteger(max) || max < 1) {
    throw new CapsuleError('AICC_INVALID_OPTION', `ajvValidators: maxCachedSchemas must be an integer >= 1, got ${String(max)}`);
  }
  // Created on first compile, so importing or calling this costs nothing until a tool is registered.
  let plain: Ajv2020 | undefined;
  let removing: Ajv2020 | undefined;
  const cache = new Map<string, { validator: SchemaValidator; ajv: Ajv2020; schema: JsonObject }>();

  const instance = (mode: Mode): Ajv2020 => (mode === 'lenient' ? (removing ??= newAjv(true)) : (plain ??= newAjv(false)));

  return {
    compile(schema: JsonObject, purpose: ValidatorPurpose): SchemaValidator {
      const mode: Mode = purpose.kind === 'output' ? 'output' : purpose.strict ? 'strict' : 'lenient';
      const key = `${mode}:${schemaFingerprint(schema)}`;
      const hit = cache.get(key);
      if (hit !== undefined) {
        cache.delete(key); // re-insert: Map order is the eviction order
        cache.set(key, hit);
        return hit.validator;
      }
      const ajv = instance(mode);
      const compiled = mode === 'strict' ? strictSchema(schema) : schema;
      let validate;
      try {
        validate = ajv.compile(compiled);
        if ((validate as { $async?: unknown }).$async === true) throw new Error(ASYNC_REASON);
      } catch (err) {
        ajv.removeSchema(compiled); // ajv keeps even failed schemas in its own cache
        throw new CapsuleError('AICC_SCHEMA_COMPILE', schemaCompileMessage(purpose.tool, purpose.kind, err));
      }
      const validator = toSchemaValidator(validate, purpose.kind);
      cache.set(key, { validator, ajv, schema: compiled });
      if (cache.size > max) {
        const [oldKey, old] = cache.entries().next().value!;
        cache.delete(oldKey);
        old.ajv.removeSchema(old.schema); // lets ajv free it too; validators handed out keep working
      }
      return validator;
    },
  };
}

function newAjv(removeAdditional: boolean): Ajv2020 {
  const ajv = new Ajv2020({ ...AJV_OPTIONS, removeAdditional });
  addFormats(ajv, { mode: FORMATS_MODE });
  return ajv;
}
