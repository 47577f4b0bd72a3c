// The public API, pinned: every entry's exported names and their kinds, read from the built package,
// must match api-report.md. An unreviewed change to any entry fails here; a reviewed one is
// accepted with `npx vitest run test/api -u` (after `npm run build`).

import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { apiReport, formatReport, type EntryReport } from './apiReport.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
let reports: EntryReport[] | undefined;
const report = async (): Promise<EntryReport[]> => (reports ??= await apiReport(root));
const entry = async (name: string): Promise<EntryReport> => (await report()).find((each) => each.entry === name)!;
const valueNames = (each: EntryReport): string[] => each.names.filter((name) => ['class', 'function', 'const'].includes(name.kind)).map((name) => name.name);

describe('the public API', () => {
  it('is what api-report.md says, entry by entry', async () => {
    await expect(formatReport(await report())).toMatchFileSnapshot('./api-report.md');
  }, 60_000);

  it('exports at run time exactly the values its types declare, in every entry', async () => {
    const drift = (await report()).filter((each) => each.untypedValues.length + each.missingValues.length > 0);
    expect(drift.map((each) => ({ entry: each.entry, untyped: each.untypedValues, missing: each.missingValues }))).toEqual([]);
  }, 60_000);

  it("gives the root core's types and a part of its values: the root holds nothing core does not", async () => {
    const root = await entry('aicc-capsule');
    const core = await entry('aicc-capsule/core');
    const coreNames = new Set([...core.names, { name: 'CapsuleOptionsWithDefaults', kind: 'type' }].map((each) => `${each.kind} ${each.name}`));
    expect(root.names.map((each) => `${each.kind} ${each.name}`).filter((name) => !coreNames.has(name))).toEqual([]);
    const isValue = (each: { kind: string }) => !['type', 'interface'].includes(each.kind);
    expect(root.names.filter((each) => !isValue(each)).length).toBe(core.names.filter((each) => !isValue(each)).length + 1);
  }, 60_000);

  it('keeps the root to a short list of values: no internals, and Session only as a read-only view', async () => {
    const values = valueNames(await entry('aicc-capsule'));
    expect(values.length).toBeLessThanOrEqual(15);
    for (const internal of ['Session', 'EventQueue', 'Wire', 'checkAgentMessage', 'schemaFingerprint', 'IMMEDIATE_MARK', 'isManualClock', 'cryptoBytes'])
      expect(values).not.toContain(internal);
    expect((await entry('aicc-capsule')).names).toContainEqual({ name: 'SessionView', kind: 'interface' });
  }, 60_000);
});
