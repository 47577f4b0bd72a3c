// The PixiJS tools' validators, generated ahead of time (scripts/generate-validators.ts) for every
// shape their options give: a capsule made with them checks the binding's tools without compiling a
// schema, so it needs no 'unsafe-eval' and its bundle no ajv.

import type { ValidatorFactory } from '../../runtime/validator.js';
import { shapeValidators } from '../../validators/shapes.js';
import { shapes } from './generated/pixi-validators.js';

/**
 * Validators for the PixiJS tools' schemas, whatever options and overrides they were made with, for
 * `createCapsule({ validators: pixiValidators() })` from aicc-capsule/core; `fallback` checks every
 * other schema (tools of the game's own): ajvValidators() to compile them at run time, or
 * precompiledValidators(…) of `aicc compile-schemas`. Without it they are refused (AICC_SCHEMA_COMPILE).
 */
export function pixiValidators(fallback?: ValidatorFactory): ValidatorFactory {
  return shapeValidators(shapes, { fallback, owner: 'pixiValidators', holds: 'the PixiJS tools' });
}
