// The Phaser tools' validators, generated ahead of time (scripts/generate-validators.ts) for every
// shape their options give: the plugin's capsule checks its tools without compiling a schema, so it
// needs no 'unsafe-eval' and its bundle no ajv.

import type { ValidatorFactory } from '../../runtime/validator.js';
import { shapeValidators } from '../../validators/shapes.js';
import { shapes } from './generated/phaser-validators.js';

/**
 * Validators for the Phaser tools' schemas, whatever options and overrides they were made with;
 * `fallback` checks every other schema (tools of the game's own): ajvValidators() to compile them at
 * run time, or precompiledValidators(…) of `aicc compile-schemas`. Without it they are refused
 * (AICC_SCHEMA_COMPILE). The plugin's own capsule uses this, with `capsuleOptions.validators` as
 * the fallback; a capsule the game makes for the plugin can too.
 */
export function phaserValidators(fallback?: ValidatorFactory): ValidatorFactory {
  return shapeValidators(shapes, {
    fallback,
    owner: 'phaserValidators',
    holds: 'the Phaser tools',
    giveAs: 'the plugin (capsuleOptions.validators) or phaserValidators(fallback)',
  });
}
