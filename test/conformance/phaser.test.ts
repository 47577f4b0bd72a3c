// @vitest-environment jsdom
// The conformance suite against the Phaser adapter: a HEADLESS game under jsdom, the plugin's own
// capsule on the scene's clock, sessions through plugin.connect, time moved by stepping the game.

import { afterAll, describe, expect, it } from 'vitest';
import { capsuleBridge, formatConformance, runConformance, type ConformanceBridge } from '../../src/conformance/index.js';
import { createMemoryLinkPair } from '../../src/links/memory.js';
import { installCanvasStub, stage, type Stage } from '../adapters/phaser/harness.js';
import { ajvValidators } from '../../src/validators/ajv.js';
import { seededBytes } from './seeded.js';

const stages: Stage[] = [];
afterAll(() => stages.forEach((s) => s.destroy()));

async function phaserBridge(): Promise<ConformanceBridge> {
  installCanvasStub();
  // The suite registers probe tools of its own: the plugin's capsule checks those with ajv, as a game's own tools.
  const s = await stage({ plugin: { capsuleOptions: { randomBytes: seededBytes(5), tickMode: 'hybrid', validators: ajvValidators() } } });
  stages.push(s);
  const capsule = s.plugin.capsule;
  return {
    ...capsuleBridge(capsule, { name: 'the Phaser adapter (HEADLESS, jsdom)', advance: (ms) => s.step(1, ms) }),
    open(options) {
      const [gameEnd, agentEnd] = createMemoryLinkPair();
      s.plugin.connect(gameEnd, options);
      return agentEnd;
    },
    close: () => s.destroy(),
  };
}

describe('conformance: the Phaser adapter', () => {
  it('passes L1–L3 on the scene clock', async () => {
    const report = await runConformance(phaserBridge);
    if (!report.passed) console.log(formatConformance(report));
    expect(report.results.filter((r) => r.outcome !== 'passed').map((r) => `${r.id}: ${r.outcome} ${r.detail ?? ''}`)).toEqual([]);
  }, 90_000);
});
