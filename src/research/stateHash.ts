// The state hash: one short string that says whether two episodes ended (or passed tick K) in the
// same state. It hashes the world's declared state written canonically (object keys sorted, so the
// order a world builds its objects in does not matter), with cyrb128 — the hash the seeded random
// source already uses. Not cryptographic: it detects divergence, it does not resist forgery.

import { cyrb128 } from '../adapters/headless/random.js';
import type { JsonValue } from './world.js';
import { stableStringify } from '../runtime/validator.js';

/** 32 hex digits (128 bits) of the canonical JSON of `state`: the same on every machine and worker. */
export function stateHash(state: JsonValue): string {
  return cyrb128(stableStringify(state))
    .map((word) => word.toString(16).padStart(8, '0'))
    .join('');
}
