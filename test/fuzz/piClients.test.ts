// The pi clients under hostile peers (test/fuzz/targets/peersClient.ts, daemonClient.ts): a few
// seconds' worth here, more under `npm run fuzz`. Each run prints its seed; AICC_FUZZ_SEED=N replays it.

import { describe, it } from 'vitest';
import { expectCleanFuzz, FUZZ_TIMEOUT_MS } from './harness/check.js';

describe('fuzz: the pi clients', () => {
  it(
    'PeersClient takes a hostile pi-peers agent: nothing escapes or hangs, no token leaks, codes documented, requests answered after',
    () => expectCleanFuzz({ name: 'peers-client', module: 'peersClient.ts', quick: 8_000, long: 150_000, seed: 1501 }),
    FUZZ_TIMEOUT_MS,
  );
  it(
    'DaemonClient takes a hostile pi-daemon host: the same, and event streams stay in order',
    () => expectCleanFuzz({ name: 'daemon-client', module: 'daemonClient.ts', quick: 8_000, long: 150_000, seed: 1502 }),
    FUZZ_TIMEOUT_MS,
  );
});
