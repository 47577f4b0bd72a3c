// The conformance suite against the capsule itself, in each tick mode and codec.

import { describe, expect, it } from 'vitest';
import { capsuleBridge, formatConformance, runConformance, type OpenOptions } from '../../src/conformance/index.js';
import type { Link } from '../../src/links/link.js';
import { wrapLink } from '../../src/links/wrapLink.js';
import { binaryCodec } from '../../src/protocol/binaryCodec.js';
import { createCapsule } from '../../src/runtime/capsule.js';
import { ManualClock } from '../../src/base/clock.js';
import { seededBytes } from './seeded.js';
import { ajvValidators } from '../../src/validators/ajv.js';

const bridgeOf = (tickMode: 'event' | 'fixed' | 'hybrid', codec?: typeof binaryCodec) => () =>
  capsuleBridge(
    createCapsule({
      world: { name: `capsule, ${tickMode} mode${codec ? ', binary' : ''}`, kind: 'abstract' },
      validators: ajvValidators(),
      tickMode,
      clock: new ManualClock(),
      randomBytes: seededBytes(7),
    }),
    codec ? { codec } : {},
  );

describe('conformance: the capsule', () => {
  it.each(['event', 'fixed', 'hybrid'] as const)(
    'passes L1–L3 in %s mode',
    async (mode) => {
      const report = await runConformance(bridgeOf(mode));
      if (!report.passed) console.log(formatConformance(report));
      expect(report.results.filter((r) => r.outcome !== 'passed').map((r) => `${r.id}: ${r.outcome} ${r.detail ?? ''}`)).toEqual([]);
    },
    60_000,
  );

  it('passes L1–L3 with the binary codec', async () => {
    const report = await runConformance(bridgeOf('hybrid', binaryCodec));
    if (!report.passed) console.log(formatConformance(report));
    expect(report.results.filter((r) => r.outcome !== 'passed').map((r) => `${r.id}: ${r.outcome} ${r.detail ?? ''}`)).toEqual([]);
  }, 60_000);
});

describe('conformance: a bridge that breaks the rules', () => {
  it('fails the checks it breaks, naming the first with what was sent and received', async () => {
    // A capsule whose refusals lose their retryable flag and whose every `error` goes missing.
    const capsule = createCapsule({ world: { name: 'sloppy', kind: 'abstract' }, validators: ajvValidators(), tickMode: 'event', clock: new ManualClock() });
    const honest = capsuleBridge(capsule);
    const sloppy = {
      ...honest,
      name: 'sloppy',
      open: (options: OpenOptions) =>
        wrapLink(honest.open(options) as Link, {
          message: (frame, deliver) => {
            const message = JSON.parse(String(frame));
            if (message.type === 'error') return;
            if (message.type === 'tool_result' && message.error) message.error.retryable = !message.error.retryable;
            deliver(JSON.stringify(message));
          },
        }),
    };
    const report = await runConformance(() => sloppy, { levels: [1, 2], waitMs: 300 });
    const failed = report.results.filter((r) => r.outcome === 'failed').map((r) => r.id);
    expect(report.passed).toBe(false);
    expect(failed).toEqual(expect.arrayContaining(['L1.not_json', 'L1.protocol', 'L1.schema', 'L2.unknown_tool', 'L2.disabled']));
    expect(failed).not.toContain('L1.session_init');
    const text = formatConformance(report);
    expect(text).toContain('L1.not_json failed: a frame that is not JSON is refused invalid_input: no refusal within 300 ms (expected invalid_input)');
    expect(text).toMatch(/→ \{"protocol": "aicc\/0\.1", /);
    expect(text).toMatch(/not conformant: \d+ check\(s\) failed; the first is L1\.not_json/);
  }, 60_000);
});

describe('conformance: one seed, one stream', () => {
  it('fails L3.same_seed for a capsule whose ids come from crypto: two runs differ', async () => {
    const unseeded = () =>
      capsuleBridge(createCapsule({ world: { name: 'unseeded', kind: 'abstract' }, validators: ajvValidators(), tickMode: 'event', clock: new ManualClock() }));
    const report = await runConformance(unseeded, { only: 'same_seed' });
    expect(report.results).toMatchObject([{ id: 'L3.same_seed', outcome: 'failed', detail: expect.stringMatching(/different streams/) }]);
  });
});
