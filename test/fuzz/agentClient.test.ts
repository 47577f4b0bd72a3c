// AgentClient under a hostile bridge (test/fuzz/targets/agentClient.ts).

import { describe, it } from 'vitest';
import { expectCleanFuzz, FUZZ_TIMEOUT_MS } from './harness/check.js';

describe('fuzz: AgentClient', () => {
  it(
    'takes whatever a bridge sends: nothing escapes, and a genuine result still resolves its call',
    () => expectCleanFuzz({ name: 'agent-client', module: 'agentClient.ts', quick: 9_000, long: 200_000, seed: 1401 }),
    FUZZ_TIMEOUT_MS,
  );
});

describe('fuzz: AgentClient calls with hostile inputs', () => {
  it(
    'ends every call without a timeout: served, refused here as the capsule would, or answered by its refusal',
    () => expectCleanFuzz({ name: 'agent-calls', module: 'agentCalls.ts', quick: 2_000, long: 60_000, seed: 1402 }),
    FUZZ_TIMEOUT_MS,
  );
});
