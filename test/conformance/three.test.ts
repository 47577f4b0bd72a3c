// @vitest-environment jsdom
// The conformance suite against the Three.js adapter: a scene bound to a capsule on a ManualClock,
// time moved by the binding's own update(dt) as a game loop moves it.

import { describe, expect, it } from 'vitest';
import { capsuleBridge, formatConformance, runConformance } from '../../src/conformance/index.js';
import { stage } from '../adapters/three/fixture.js';
import { seededBytes } from './seeded.js';

describe('conformance: the Three.js adapter', () => {
  it('passes L1–L3, stepped by binding.update', async () => {
    const report = await runConformance(() => {
      const s = stage({ capsule: { tickMode: 'hybrid', randomBytes: seededBytes(9) }, connect: false });
      return capsuleBridge(s.capsule, { name: 'the Three.js adapter (jsdom)', advance: (ms) => s.binding.update(ms) });
    });
    if (!report.passed) console.log(formatConformance(report));
    expect(report.results.filter((r) => r.outcome !== 'passed').map((r) => `${r.id}: ${r.outcome} ${r.detail ?? ''}`)).toEqual([]);
  }, 90_000);
});
