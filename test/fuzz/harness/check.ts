// One fuzz run as a vitest test body: run the target in its worker, print its summary line (with
// the seed, so a failure can be replayed with AICC_FUZZ_SEED), append the report to
// $AICC_FUZZ_REPORT when set (npm run fuzz reads it), and fail on any finding.

import { appendFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { framesFor, LONG, seedFor } from './budget.js';
import { findings, summary } from './report.js';
import { fuzzInWorker } from './run.js';

export interface FuzzPlan {
  /** The report's name, e.g. "capsule/json". */
  name: string;
  /** The target module, relative to test/fuzz/targets/ (it exports `target`). */
  module: string;
  /** Frames in `npm test` (a few seconds' worth) and under `npm run fuzz`. */
  quick: number;
  long: number;
  /** The fixed seed. */
  seed: number;
}

/** A vitest timeout that fits the plan's run (long runs take minutes). */
export const FUZZ_TIMEOUT_MS = LONG ? 900_000 : 90_000;

export async function expectCleanFuzz(plan: FuzzPlan): Promise<void> {
  const file = fileURLToPath(new URL(`../targets/${plan.module}`, import.meta.url));
  const report = await fuzzInWorker(plan.name, file, {
    frames: framesFor(plan.quick, plan.long),
    seed: seedFor(plan.seed),
    stallMs: LONG ? 60_000 : 15_000,
    deadlineMs: FUZZ_TIMEOUT_MS - 10_000,
  });
  console.log(
    `fuzz ${summary(report)}\n  outcomes: ${Object.entries(report.tallies)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
  );
  const out = process.env['AICC_FUZZ_REPORT'];
  if (out) appendFileSync(out, `${JSON.stringify(report)}\n`);
  expect(findings(report), `fuzz ${plan.name}, seed ${report.seed}`).toEqual([]);
  expect(report.frames).toBeGreaterThanOrEqual(framesFor(plan.quick, plan.long));
}
