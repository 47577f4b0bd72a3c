// Smoke test: every bench module still runs and returns well-formed rows. It runs each with
// { quick: true } (a few iterations of a small case) and asserts nothing about speed.

import { describe, expect, it } from 'vitest';
import { benchFiles, formatTable, runBench } from '../bench/run.js';
import { rowProblems, timeRatio } from '../bench/row.js';

describe('bench', () => {
  const files = benchFiles();

  it('finds the bench modules', () => {
    expect(files).toContain('swarm.bench.ts');
    // Runs the Phaser demo in Chromium: it needs demos/phaser and Chromium, and fails naming either.
    expect(files).toContain('phaserFrame.bench.ts');
  });

  for (const file of files) {
    it(`${file} runs quick and returns well-formed rows`, { timeout: 60_000 }, async () => {
      const rows = await runBench(file, { quick: true });
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(rowProblems(row)).toEqual([]);
        // A rate's ratio is baseline ÷ capsule (times longer); a size's or a time's is capsule ÷ baseline.
        const rate = /\/s\b|per s\b/.test(row.unit);
        expect(row.ratio).toBeCloseTo(rate ? timeRatio(row.capsule, row.baseline) : row.capsule / row.baseline, 9);
      }
      expect(formatTable(rows)).toHaveLength(rows.length + 2);
    });
  }

  it('names what is wrong with a malformed row', () => {
    expect(rowProblems({ name: '', capsule: 1, baseline: Number.NaN, unit: 'x', ratio: 0, note: 'n' })).toEqual([
      'name must be a non-empty string',
      'baseline must be a finite number > 0, got NaN',
      'ratio must be a finite number > 0, got 0',
    ]);
    expect(rowProblems(null)).toEqual(['not an object']);
  });
});
