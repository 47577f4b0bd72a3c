// The capsule under hostile frames (test/fuzz/targets/capsule.ts): a few seconds' worth here,
// millions under `npm run fuzz`. Each run prints its seed; AICC_FUZZ_SEED=N replays it.

import { describe, it } from 'vitest';
import { expectCleanFuzz, FUZZ_TIMEOUT_MS } from './harness/check.js';

describe('fuzz: the capsule', () => {
  it(
    'takes JSON frames on memory links: nothing escapes, the loop ticks, calls are served',
    () => expectCleanFuzz({ name: 'capsule/json', module: 'capsuleJson.ts', quick: 12_000, long: 600_000, seed: 1301 }),
    FUZZ_TIMEOUT_MS,
  );
  it(
    'takes binary frames on memory links: the same',
    () => expectCleanFuzz({ name: 'capsule/binary', module: 'capsuleBinary.ts', quick: 12_000, long: 300_000, seed: 1302 }),
    FUZZ_TIMEOUT_MS,
  );
  it(
    'takes JSON and binary frames over real WebSockets on 127.0.0.1, into sessions and accept()ed links',
    () => expectCleanFuzz({ name: 'capsule/websocket', module: 'capsuleWebSocket.ts', quick: 4_000, long: 200_000, seed: 1303 }),
    FUZZ_TIMEOUT_MS,
  );
});
