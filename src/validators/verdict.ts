// Turns an ajv validate function (run-time or generated) into a SchemaValidator, so all the
// factories word their verdicts the same way.

import { describeAjvError, type AjvErrorLike } from '../protocol/ajvError.js';
import type { SchemaValidator, Validation } from '../runtime/validator.js';

/** What ajv's validate functions look like, compiled or generated ahead of time. */
export interface GeneratedValidatorFn {
  (data: unknown): boolean;
  errors?: AjvErrorLike[] | null | undefined;
}

const OK: Validation = Object.freeze({ ok: true });

export function toSchemaValidator(validate: GeneratedValidatorFn, kind: 'input' | 'output'): SchemaValidator {
  return (data) => verdict(validate(data), validate, kind);
}

/** The Validation of one run of `validate` that returned `passed`. */
export function verdict(passed: boolean, validate: Pick<GeneratedValidatorFn, 'errors'>, kind: 'input' | 'output'): Validation {
  // The message is built before returning: ajv overwrites `errors` on its next call.
  return passed ? OK : { ok: false, message: describeAjvError(kind, validate.errors?.[0]) };
}
