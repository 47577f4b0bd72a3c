// The fuzz harness itself: each finding it reports, it reports from a target made to have it.

import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findings, MAX_HEAP_GROWTH_MIB } from './harness/report.js';
import { fuzzInWorker } from './harness/run.js';

const broken = (name: string) => fileURLToPath(new URL(`./targets/broken/${name}.ts`, import.meta.url));

describe('the fuzz harness', () => {
  it('counts errors that escape to the process, from a microtask and from a rejected promise', async () => {
    const report = await fuzzInWorker('broken-escapes', broken('escapes'), { frames: 10, seed: 1 });
    expect(report.escapes).toBe(2);
    expect(report.firstEscape).toMatch(/escaped from a microtask|nobody caught me/);
    expect(findings(report)).toEqual([expect.stringMatching(/^2 escapes/)]);
  });

  it('stops a target that freezes its thread and reports a hang', async () => {
    const report = await fuzzInWorker('broken-freezes', broken('freezes'), { frames: 10, seed: 1, stallMs: 1500 });
    expect(report.hangs).toBe(1);
    expect(report.frames).toBeLessThan(10);
    expect(findings(report)).toContain('the target hung');
  }, 20_000);

  it('reports undocumented codes, secrets, broken promises and heap growth, each once', async () => {
    const report = await fuzzInWorker('broken-leaks', broken('leaksAndLies'), { frames: 200, seed: 1 });
    expect(report.undocumented).toEqual(['teapot at a reply']);
    expect(report.secrets).toEqual(['a close reason']);
    expect(report.problems).toEqual(['a call was answered twice']);
    expect(report.heapEndMiB - report.heapWarmMiB).toBeGreaterThan(MAX_HEAP_GROWTH_MIB);
    expect(findings(report)).toHaveLength(4);
  }, 20_000);
});
