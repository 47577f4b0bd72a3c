// The gateway's MCP endpoint under hostile clients (test/fuzz/targets/gatewayMcp.ts): every request
// answered within a bound, with a documented status and code, no secret shown, and no client locked
// out once the clients before it vanished. A few seconds' worth here, 100,000 requests under
// `npm run fuzz` (AICC_FUZZ=long). Each run prints its seed; AICC_FUZZ_SEED=N replays it.

import { describe, it } from 'vitest';
import { expectCleanFuzz, FUZZ_TIMEOUT_MS } from './harness/check.js';

describe('fuzz: the gateway serving MCP', () => {
  it(
    'every POST answered in time and as documented, no key shown, no client locked out after its peers vanished',
    () => expectCleanFuzz({ name: 'gateway/mcp', module: 'gatewayMcp.ts', quick: 1_500, long: 100_000, seed: 1604 }),
    FUZZ_TIMEOUT_MS,
  );
});
