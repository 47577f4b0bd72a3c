// The contract between bench/run.ts and each bench/*.bench.ts module, and the check the smoke test
// (test/bench.test.ts) applies to every row so no bench rots unnoticed.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One comparison: the capsule's figure against a baseline doing the same work without it. */
export interface BenchRow {
  name: string;
  /** The capsule path's figure, in `unit`. */
  capsule: number;
  /** The baseline's figure, in `unit`. */
  baseline: number;
  /** What the figures count, e.g. 'ticks/s'. */
  unit: string;
  /**
   * How many times longer (or larger) the capsule's figure is than the baseline's for the same work:
   * baseline ÷ capsule for rates, capsule ÷ baseline for times and sizes. 1 = even; lower is better.
   */
  ratio: number;
  /** The setting, and the target if there is one. */
  note: string;
}

export interface BenchOptions {
  /** A few iterations of a small case: proves the bench runs, measures nothing worth reading. */
  quick: boolean;
}

export interface BenchModule {
  run(options: BenchOptions): Promise<BenchRow[]>;
}

/** What is wrong with a row, or an empty list. */
export function rowProblems(row: unknown): string[] {
  if (typeof row !== 'object' || row === null) return ['not an object'];
  const r = row as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of ['name', 'unit', 'note'] as const) {
    if (typeof r[key] !== 'string' || (key !== 'note' && r[key] === '')) problems.push(`${key} must be a${key === 'note' ? '' : ' non-empty'} string`);
  }
  for (const key of ['capsule', 'baseline', 'ratio'] as const) {
    const value = r[key];
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) problems.push(`${key} must be a finite number > 0, got ${String(value)}`);
  }
  return problems;
}

/** Times the capsule path takes relative to the baseline, from two rates of the same work. */
export function timeRatio(capsulePerSecond: number, baselinePerSecond: number): number {
  return baselinePerSecond / capsulePerSecond;
}

/**
 * The repository's root: the nearest folder above this module with the project's package.json. A
 * bench may run from source (bench/) or bundled (bench/.build/…), so the depth is not fixed.
 */
export function repoRoot(from: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'aicc-capsule') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`bench: no aicc-capsule package.json above ${from}`);
    dir = parent;
  }
}
