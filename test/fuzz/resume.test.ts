// Resume under forced link drops (test/fuzz/targets/resumeChaos.ts): every call runs exactly once
// and is answered once, every event arrives once and in order.

import { describe, it } from 'vitest';
import { expectCleanFuzz, FUZZ_TIMEOUT_MS } from './harness/check.js';

describe('fuzz: resume under forced drops', () => {
  it(
    'loses nothing and doubles nothing, however the links are cut',
    () => expectCleanFuzz({ name: 'resume/drops', module: 'resumeChaos.ts', quick: 300, long: 10_000, seed: 1701 }),
    FUZZ_TIMEOUT_MS,
  );
});
