// Tool validators generated ahead of time by `aicc compile-schemas`: no ajv and no `new Function` in
// the bundle (CSP-safe). Imports nothing from ajv, on purpose.

import { CapsuleError } from '../base/errors.js';
import type { JsonObject } from '../protocol/messages.js';
import { schemaFingerprint, validatorKey, type SchemaValidator, type ValidatorFactory, type ValidatorPurpose } from '../runtime/validator.js';
import { toSchemaValidator, type GeneratedValidatorFn } from './verdict.js';

export type { GeneratedValidatorFn } from './verdict.js';

/** One generated validator, stored under `validatorKey({ tool, kind })`. */
export interface PrecompiledEntry {
  /** schemaFingerprint of the schema as the tool declares it. */
  fingerprint: string;
  /** For inputs, the strict_input it was generated for; false for outputs. */
  strict: boolean;
  validate: GeneratedValidatorFn;
}

/** The module `aicc compile-schemas` writes: `import * as schemas from './tool-validators.js'`. */
export interface PrecompiledModule {
  readonly validators: Readonly<Record<string, PrecompiledEntry>>;
}

/**
 * A ValidatorFactory that looks validators up instead of compiling them. A schema that was not
 * precompiled, or that changed since (other fingerprint or strict_input), throws
 * AICC_SCHEMA_COMPILE telling to re-run `aicc compile-schemas`.
 */
export function precompiledValidators(module: PrecompiledModule): ValidatorFactory {
  const table: unknown = (module as Partial<PrecompiledModule> | null)?.validators;
  if (table === null || typeof table !== 'object') {
    throw new CapsuleError(
      'AICC_INVALID_OPTION',
      'precompiledValidators: the module has no `validators` table; pass the module `aicc compile-schemas` wrote (import * as m from ...)',
    );
  }
  const validators = table as Readonly<Record<string, PrecompiledEntry>>;
  return {
    compile(schema: JsonObject, purpose: ValidatorPurpose): SchemaValidator {
      const key = validatorKey(purpose);
      const entry = Object.hasOwn(validators, key) ? validators[key] : undefined;
      const reason =
        entry === undefined
          ? `no entry "${key}"`
          : entry.fingerprint !== schemaFingerprint(schema)
            ? 'its schema differs'
            : purpose.kind === 'input' && entry.strict !== purpose.strict
              ? `it was generated for strict_input ${String(entry.strict)}`
              : undefined;
      if (entry === undefined || reason !== undefined) {
        throw new CapsuleError(
          'AICC_SCHEMA_COMPILE',
          `precompiledValidators: tool "${purpose.tool}" ${purpose.kind} schema has no precompiled validator ` +
            `(or it changed since): run \`aicc compile-schemas\` (${reason ?? ''})`,
        );
      }
      return toSchemaValidator(entry.validate, purpose.kind);
    },
  };
}
