// docs/CONFORMANCE.md's code, run as written (its imports resolved to this checkout's sources).

import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import * as conformance from '../../src/conformance/index.js';
import * as headless from '../../src/adapters/headless/index.js';
import * as aicc from '../../src/index.js';

const doc = readFileSync(new URL('../../docs/CONFORMANCE.md', import.meta.url), 'utf8');

describe('docs/CONFORMANCE.md', () => {
  it('its example runs the suite against a capsule, every check passing', async () => {
    const code = doc.match(/## From code[\s\S]*?```ts[^\n]*\n([\s\S]*?)```/)![1]!;
    const body = code.replace(/^import .*$/gm, '').replace(/^const report = /m, 'report = ');
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const run = new Function(
      'aicc',
      'headless',
      'conformance',
      `return (async () => { const { createCapsule, ManualClock } = aicc; const { SeededRandom } = headless; const { capsuleBridge, formatConformance, runConformance } = conformance; let report; ${body}; return report; })();`,
    );
    const report = await run(aicc, headless, conformance);
    const printed = log.mock.calls.map((args) => String(args[0]));
    log.mockRestore();
    expect(report.passed).toBe(true);
    expect(report.results.every((r: { outcome: string }) => r.outcome === 'passed')).toBe(true);
    expect(printed).toEqual([expect.stringMatching(/^aicc\/0\.1 conformance: my world\n[\s\S]*conformant at L1, L2, L3: every check passed$/)]);
  }, 60_000);
});
