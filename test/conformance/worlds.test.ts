// The conformance suite against the worlds the project ships: a text world, and the village the
// headless runner drives (stepped as runHeadless steps it). Each builds its own bridge per run.

import { describe, expect, it } from 'vitest';
import { buildVillage } from '../../src/worlds/village/world.js';
import { bindTextWorld, TextWorld } from '../../src/adapters/text/index.js';
import { capsuleBridge, formatConformance, runConformance, type BridgeFactory } from '../../src/conformance/index.js';
import { createCapsule } from '../../src/runtime/capsule.js';
import { ManualClock } from '../../src/base/clock.js';
import { ajvValidators } from '../../src/validators/ajv.js';
import { seededBytes } from './seeded.js';

async function expectConformant(factory: BridgeFactory): Promise<void> {
  const report = await runConformance(factory);
  if (!report.passed) console.log(formatConformance(report));
  expect(report.results.filter((r) => r.outcome !== 'passed').map((r) => `${r.id}: ${r.outcome} ${r.detail ?? ''}`)).toEqual([]);
}

describe('conformance: the worlds', () => {
  it('a text world (aicc-capsule/text) passes L1–L3', async () => {
    await expectConformant(() => {
      const capsule = createCapsule({
        world: { name: 'a text world', kind: 'text' },
        validators: ajvValidators(),
        tickMode: 'hybrid',
        clock: new ManualClock(),
        randomBytes: seededBytes(3),
      });
      bindTextWorld(
        capsule,
        new TextWorld({
          rooms: [{ id: 'hall', name: 'Hall', description: 'A hall.', exits: {} }],
          items: [{ id: 'lamp', name: 'lamp', description: 'A lamp.', location: 'hall' }],
          characters: [{ id: 'probe', name: 'Probe', description: 'Someone.', room: 'hall' }],
        }),
      );
      return capsuleBridge(capsule);
    });
  }, 60_000);

  it('the village the headless runner drives (aicc demo) passes L1–L3', async () => {
    await expectConformant(() => capsuleBridge(buildVillage(1).capsule, { name: 'Millbrook, headless' }));
  }, 60_000);
});
