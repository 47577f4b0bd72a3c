import { describe, expect, it } from 'vitest';
import { Cadence } from '../../../src/agent/pilot/cadence.js';
import { LoopGuards } from '../../../src/agent/pilot/guards.js';
import type { PilotEvents } from '../../../src/agent/pilot/pilot.js';
import { Quotas } from '../../../src/agent/pilot/quotas.js';
import { CapsuleError } from '../../../src/base/errors.js';
import { ManualClock } from '../../../src/base/clock.js';
import { aicc } from './fakeBackend.js';
import { pilotVillager } from './village.js';

describe('loop guards', () => {
  it('allow a set number of decisions in any 60 s window of the injected clock', () => {
    const clock = new ManualClock();
    const guards = new LoopGuards(clock, { maxDecisionsPerMinute: 2 });
    expect(guards.waitMs()).toBe(0);
    guards.decided();
    clock.advance(10_000);
    guards.decided();
    expect(guards.waitMs()).toBe(50_000);
    clock.advance(50_000);
    expect(guards.waitMs()).toBe(0);
  });

  it('trip after a run of failed replies; a usable one, or a reset, starts the count over', () => {
    const guards = new LoopGuards(new ManualClock(), { maxFailedReplies: 2 });
    expect(guards.replied(false)).toBe(false);
    expect(guards.replied(true)).toBe(false);
    expect(guards.replied(false)).toBe(false);
    expect(guards.replied(false)).toBe(true);
    guards.reset();
    expect(guards.failures).toBe(0);
  });

  it('refuse nonsense limits at once, naming the option', () => {
    expect(() => new LoopGuards(new ManualClock(), { maxDecisionsPerMinute: 0 })).toThrow(
      new CapsuleError('AICC_INVALID_OPTION', 'Pilot: maxDecisionsPerMinute must be a whole number >= 1, got 0'),
    );
  });
});

describe('cadence', () => {
  it("gathers for a quarter of the declared budget or the class's, raised to the measured latency, at most 2 s", () => {
    const clock = new ManualClock();
    expect(new Cadence(clock, { class: 'edge_small' }).gatherMs()).toBe(12.5);
    expect(new Cadence(clock, { class: 'cloud_large' }).gatherMs()).toBe(1000);
    expect(new Cadence(clock, { class: 'cloud_large', expected_full_response_ms: 800 }).gatherMs()).toBe(200);
    const slow = new Cadence(clock, { class: 'edge_medium' });
    slow.record(6000);
    expect(slow.budgetMs()).toBe(6000);
    expect(slow.gatherMs()).toBe(1500);
    slow.record(40_000);
    expect(slow.gatherMs()).toBe(2000);
  });

  it('keeps an open gathering window, and cancel forgets everything', () => {
    const clock = new ManualClock();
    const cadence = new Cadence(clock, { class: 'cloud_medium' });
    const fired: string[] = [];
    cadence.gather(() => fired.push('first'));
    clock.advance(200);
    cadence.gather(() => fired.push('second'));
    clock.advance(175);
    expect(fired).toEqual(['first']);
    cadence.wakeAfterQuiet(() => fired.push('wake'));
    cadence.cancel();
    clock.advance(60_000);
    expect(fired).toEqual(['first']);
  });
});

describe('quotas', () => {
  it('count calls that reached a handler in a sliding minute, and show the tools just used or running low', () => {
    const clock = new ManualClock();
    const quotas = new Quotas(clock);
    quotas.setTools([
      { id: 'go', class: 'actuator', description: '', input_schema: {}, output_schema: {}, limits: { calls_per_minute: 4 } },
      { id: 'compose', class: 'generator', description: '', input_schema: {}, output_schema: {}, limits: { calls_per_minute: 10, calls_per_session: 12 } },
      { id: 'look', class: 'sensor', description: '', input_schema: {}, output_schema: {} },
    ]);
    quotas.used('go');
    quotas.used('look');
    expect(quotas.summary(new Set(['go', 'look']))).toBe('go 3/4 per min');
    clock.advance(30_000);
    for (let i = 0; i < 9; i++) quotas.used('compose');
    quotas.used('go');
    quotas.used('go');
    // go is at a quarter, compose at a quarter of its session: both are low, told unasked.
    expect(quotas.summary()).toBe('go 1/4 per min; compose 1/10 per min, 3/12 per session');
    clock.advance(30_000);
    expect(quotas.left('go')).toMatchObject({ perMinute: 2 });
    expect(quotas.summary()).toBe('compose 1/10 per min, 3/12 per session');
  });
});

describe('a piloted villager', () => {
  it('pauses at its cap of decisions per minute, and carries on by itself when the minute allows', async () => {
    const { backend, pilot, village, run } = await pilotVillager('bram', [], { maxDecisionsPerMinute: 4 }, aicc({ tool: 'look' }));
    const pauses: Array<PilotEvents['pause'] & { at: number }> = [];
    pilot.on('pause', (pause) => pauses.push({ ...pause, at: village.clock.now() }));
    const resumed: string[] = [];
    pilot.on('resume', ({ reason }) => resumed.push(reason));
    pilot.start();
    await run(100);
    expect(pilot.stats.decisions).toBe(4);
    expect(pilot.status).toBe('paused');
    expect(pauses).toHaveLength(1);
    expect(pauses[0]).toMatchObject({ reason: 'rate' });
    expect(pauses[0]!.message).toMatch(/^4 decisions in the last minute; the next in \d+ ms$/);
    await run(600, () => pilot.stats.decisions > 4);
    expect(resumed).toEqual(['rate']);
    // The fifth decision came a full minute after the first.
    expect(village.clock.now()).toBeGreaterThanOrEqual(60_000);
    expect(backend.sent).toHaveLength(5);
    expect(pilot.stats.pauses).toBe(1);
  });

  it('pauses after consecutive failed replies, tells the model each time, and goes on only when resumed', async () => {
    const { backend, pilot, village, run } = await pilotVillager(
      'bram',
      [null, 'Hmm, let me think about where to go.', '```aicc\nwalk north\n```', aicc({ tool: 'look' })],
      { maxFailedReplies: 3 },
    );
    const pauses: Array<PilotEvents['pause']> = [];
    pilot.on('pause', (pause) => pauses.push(pause));
    pilot.start();
    await run(50);
    expect(pilot.status).toBe('paused');
    expect(pauses).toEqual([{ reason: 'failures', message: '3 replies in a row had no usable calls; resume() to try again' }]);
    expect(backend.sent).toHaveLength(3);
    expect(backend.sent[1]!.text).toContain('- Your reply was empty. Reply with an aicc block of calls, or an empty aicc block to wait.');
    expect(backend.sent[2]!.text).toContain('- I found no calls in your reply. Put them in an aicc block');
    expect(pilot.stats).toMatchObject({ failedReplies: 3, parseFailures: 1, callsSent: 0 });
    // News keeps coming; a paused pilot sends nothing.
    village.world.move('ada', 'south');
    village.world.move('ada', 'west');
    village.world.move('ada', 'north');
    await run(50);
    expect(backend.sent).toHaveLength(3);
    pilot.resume();
    await run(10, () => pilot.stats.callsSent > 0);
    expect(backend.sent[3]!.text).toContain('- I could not read line 1: walk north (not a JSON object');
    expect(backend.sent[3]!.text).toContain('- ada.room: lane → mill');
    expect(pilot.stats.callsSent).toBe(1);
  });

  it('counts a backend that refuses to send as a failure, and resends the text it refused', async () => {
    const { backend, pilot, run } = await pilotVillager('bram', [aicc({ tool: 'look' })], { maxFailedReplies: 2 });
    const errors: string[] = [];
    pilot.on('error', ({ message }) => errors.push(message));
    backend.failSends = 'peer unavailable';
    pilot.start();
    await run(20);
    expect(pilot.status).toBe('paused');
    expect(errors).toEqual(['backend.send(prompt): peer unavailable', 'backend.send(prompt): peer unavailable']);
    backend.failSends = undefined;
    pilot.resume();
    await run(10, () => backend.sent.length >= 2);
    // The briefing is sent whole once the backend takes it.
    expect(backend.sent[0]!.text).toMatch(/^You are Bram/);
    expect(backend.sent[1]!.text).toContain('- ok look');
  });
});
