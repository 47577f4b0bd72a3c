import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CAPSULE_ERROR_CODES } from '../src/base/errors.js';
import { REFUSALS } from '../src/protocol/refusals.js';

const protocolDoc = readFileSync(new URL('../docs/PROTOCOL.md', import.meta.url), 'utf8');

describe('docs/PROTOCOL.md', () => {
  it('lists every refusal with the code and retryable flag the bridge gives it', () => {
    const rows = [...protocolDoc.matchAll(/^\| `([a-z_]+)` \| .+? \| `([a-z_]+)` \| (true|false) \|$/gm)];
    const documented = Object.fromEntries(rows.map(([, kind, code, retryable]) => [kind, { code, retryable: retryable === 'true' }]));
    expect(documented).toEqual(REFUSALS);
  });
});

describe('docs/ERRORS.md', () => {
  const errorsDoc = readFileSync(new URL('../docs/ERRORS.md', import.meta.url), 'utf8');

  it('has a row for every programmer-error code, and none for a code that does not exist', () => {
    const rows = [...errorsDoc.matchAll(/^\| `(AICC_[A-Z_]+)` \| .+ \| .+ \|$/gm)].map(([, code]) => code);
    expect(rows).toEqual([...CAPSULE_ERROR_CODES]);
  });

  it('lists only codes the library throws', () => {
    const source = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory()
          ? source(join(dir, entry.name))
          : entry.name.endsWith('.ts') && entry.name !== 'errors.ts' // the list itself
            ? [readFileSync(join(dir, entry.name), 'utf8')]
            : [],
      );
    const thrown = new Set(
      source(new URL('../src', import.meta.url).pathname).flatMap((text) => [...text.matchAll(/'(AICC_[A-Z_]+)'/g)].map(([, code]) => code)),
    );
    expect(CAPSULE_ERROR_CODES.filter((code) => !thrown.has(code))).toEqual([]);
  });
});
