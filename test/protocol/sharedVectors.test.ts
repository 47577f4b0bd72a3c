// The shared test vectors (test/vectors/aicc-messages.json): aicc/0.1 messages, valid and invalid,
// from either side, with the verdict every checker of this project gives them. The Python client's
// checker reads the same file (python/tests/test_protocol.py); both must agree with it.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkMessage, type Sender } from '../../src/protocol/messageCheck.js';

const vectors = JSON.parse(readFileSync(new URL('../vectors/aicc-messages.json', import.meta.url), 'utf8')) as {
  cases: Array<{ name: string; sender: Sender; message: unknown; verdict: string }>;
};

describe('the shared aicc/0.1 vectors', () => {
  it('hold valid and invalid messages of both senders and every verdict', () => {
    const kinds = new Set(vectors.cases.map((c) => `${c.sender} ${c.verdict}`));
    for (const sender of ['agent', 'bridge'])
      for (const verdict of ['ok', 'schema_violation', 'wrong_direction']) expect(kinds).toContain(`${sender} ${verdict}`);
    expect(kinds).toContain('bridge protocol_mismatch');
  });

  for (const { name, sender, message, verdict } of vectors.cases)
    it(`${sender}: ${name} → ${verdict}`, () => {
      const checked = checkMessage(message, sender);
      expect(checked.ok ? 'ok' : checked.kind).toBe(verdict);
    });
});
