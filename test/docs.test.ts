import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REFUSALS } from '../src/protocol/refusals.js';

const protocolDoc = readFileSync(new URL('../docs/PROTOCOL.md', import.meta.url), 'utf8');

describe('docs/PROTOCOL.md', () => {
  it('lists every refusal with the code and retryable flag the bridge gives it', () => {
    const rows = [...protocolDoc.matchAll(/^\| `([a-z_]+)` \| .+? \| `([a-z_]+)` \| (true|false) \|$/gm)];
    const documented = Object.fromEntries(rows.map(([, kind, code, retryable]) => [kind, { code, retryable: retryable === 'true' }]));
    expect(documented).toEqual(REFUSALS);
  });
});
