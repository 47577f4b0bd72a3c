// The gateway under hostile pages, in each of its modes (test/fuzz/targets/gateway*.ts): a few
// seconds' worth here, 100,000 frames each under `npm run fuzz` (AICC_FUZZ=long). Each run prints
// its seed; AICC_FUZZ_SEED=N replays it.

import { describe, it } from 'vitest';
import { expectCleanFuzz, FUZZ_TIMEOUT_MS } from './harness/check.js';

describe('fuzz: the gateway', () => {
  it(
    'relay mode: no key or token shown, every code documented, a well-formed page still reaches the agent',
    () => expectCleanFuzz({ name: 'gateway/relay', module: 'gatewayRelay.ts', quick: 3_000, long: 100_000, seed: 1601 }),
    FUZZ_TIMEOUT_MS,
  );
  it(
    'host mode: the same, through a hosted fake pi that lives through it',
    () => expectCleanFuzz({ name: 'gateway/host', module: 'gatewayHost.ts', quick: 3_000, long: 100_000, seed: 1602 }),
    FUZZ_TIMEOUT_MS,
  );
  it(
    'daemon mode: the same, and only whole frames the policy allows reach the daemon',
    () => expectCleanFuzz({ name: 'gateway/daemon', module: 'gatewayDaemon.ts', quick: 3_000, long: 100_000, seed: 1603 }),
    FUZZ_TIMEOUT_MS,
  );
});
