import { describe, expect, it } from 'vitest';
import { Pilot, type PilotEvents } from '../../../src/agent/pilot/pilot.js';
import { aicc, ScriptedBackend } from './fakeBackend.js';
import { pilotVillager } from './village.js';

/** A backend whose reply ignores the abort signal and comes anyway, late. */
class StubbornBackend extends ScriptedBackend {
  override async reply(): Promise<string | null> {
    return super.reply();
  }
}

describe('abort', () => {
  it("aborts the backend's run and the pending wait for its reply, and pauses", async () => {
    const { backend, pilot, run } = await pilotVillager('bram', [aicc({ tool: 'go', input: { direction: 'south' } })]);
    const pauses: Array<PilotEvents['pause']> = [];
    pilot.on('pause', (pause) => pauses.push(pause));
    backend.hold();
    pilot.start();
    await run(3);
    expect(pilot.status).toBe('thinking');
    await pilot.abort();
    expect(backend.aborts).toBe(1);
    expect(backend.signals[0]?.aborted).toBe(true);
    expect(pilot.status).toBe('paused');
    expect(pauses).toEqual([{ reason: 'aborted', message: 'aborted by the host; resume() carries on' }]);
    await pilot.whenIdle();
    await run(20);
    expect(pilot.stats.callsSent).toBe(0);
    expect(backend.sent).toHaveLength(1);
  });

  it('drops a reply that arrives after the abort: none of its calls is sent', async () => {
    // The village's own pilot stays unstarted; this one drives Bram over a backend that does not
    // honour the signal.
    const { client, village, run } = await pilotVillager('bram', []);
    const backend = new StubbornBackend([aicc({ tool: 'go', input: { direction: 'south' } })]);
    const pilot = new Pilot({ client, backend, clock: village.clock, character: { id: 'bram' } });
    const release = backend.hold();
    pilot.start();
    await run(2);
    expect(backend.signals).toEqual([undefined]);
    await pilot.abort();
    release();
    await run(20);
    expect(pilot.stats.callsSent).toBe(0);
    expect(village.world.character('bram')!.room).toBe('mill');
  });

  it('skips the calls of a reply not yet sent, tells the model so, and resume() carries on', async () => {
    const { backend, pilot, village, run } = await pilotVillager('bram', [
      aicc({ tool: 'look' }, { tool: 'go', input: { direction: 'south' } }, { tool: 'go', input: { direction: 'west' } }),
      aicc(),
    ]);
    pilot.start();
    // Calls run one a tick (fixed mode): after the first result, abort.
    await run(5, () => pilot.stats.callsSent >= 1);
    await pilot.abort();
    await run(10);
    expect(village.world.character('bram')!.room).toBe('lane'); // the go already on the wire went through
    expect(pilot.stats).toMatchObject({ callsSent: 2, callsSkipped: 1 });
    pilot.resume();
    await run(10, () => backend.sent.length >= 2);
    expect(backend.sent[1]!.text).toContain('- skipped go {direction: west}: your turn was aborted');
    expect(backend.sent[1]!.text).toContain('- ok go {direction: south}');
  });

  it('is harmless before start and after stop', async () => {
    const { backend, pilot } = await pilotVillager('bram', []);
    await pilot.abort();
    expect(pilot.status).toBe('new');
    pilot.start();
    pilot.stop('done');
    await pilot.abort();
    expect(pilot.status).toBe('stopped');
    expect(backend.aborts).toBe(0);
  });
});
