// The pilot over the real pi-daemon 0.3.3: Bram of Millbrook (src/worlds/village) played by the stub
// model through the daemon, DaemonClient on its Unix socket and DaemonBackend; every call a real
// AICC tool_call. Then what the real daemon does to a session that the backend must survive: a
// restart, idle eviction, a new run of the same character, a run cut short mid-wake, a folder
// outside the daemon's roots.

import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { runHeadless } from '../../../src/adapters/headless/runner.js';
import { connectInProcess } from '../../../src/agent/inProcess.js';
import { DaemonBackend, Pilot } from '../../../src/agent/pilot/index.js';
import { connectSocketLink } from '../../../src/node/socketLink.js';
import { DaemonClient } from '../../../src/pi/index.js';
import type { CallRecord } from '../../../src/runtime/calls.js';
import { buildVillage, VILLAGER_SESSION } from '../../../src/worlds/village/world.js';
import { aicc } from '../../agent/pilot/fakeBackend.js';
import { startStubModel, userTexts, type StubModel } from '../stubModel.js';
import { describeWithRealDaemon, startRealDaemon, type RealDaemon } from './realDaemon.js';

describeWithRealDaemon('the pilot over the real pi-daemon', () => {
  let stub: StubModel;
  let daemon: RealDaemon;
  const clients: DaemonClient[] = [];
  const pilots: Pilot[] = [];

  beforeAll(async () => {
    stub = await startStubModel({ fallbackReply: aicc({ tool: 'look' }) });
    daemon = await startRealDaemon({ modelBaseUrl: stub.baseUrl });
  }, 240_000);
  afterEach(async () => {
    for (const pilot of pilots.splice(0)) pilot.stop('test over');
    for (const client of clients.splice(0)) client.disconnect('test over');
  });
  afterAll(async () => {
    await daemon?.dispose();
    await stub?.close();
  });

  async function client(): Promise<DaemonClient> {
    const connected = await DaemonClient.connect(await connectSocketLink(daemon.socket), {
      reconnect: { connect: () => connectSocketLink(daemon.socket), baseDelayMs: 50 },
    });
    clients.push(connected);
    return connected;
  }

  /** Bram, piloted through the daemon: the village, its capsule run headless on wall time, the backend. */
  async function bram(sessionId: string) {
    const village = buildVillage(7);
    const calls: CallRecord[] = [];
    village.capsule.on('call', (record) => calls.push(record));
    const backend = await DaemonBackend.open(await client(), {
      sessionId,
      cwd: daemon.workDir,
      open: { systemPrompt: 'You play a villager. Answer with aicc blocks.' },
    });
    const agent = await connectInProcess(village.capsule, {
      character: 'bram',
      ...VILLAGER_SESSION,
      agent: { randomBytes: village.random.fork('agent:bram').bytes },
    });
    const spec = village.world.character('bram')!;
    const pilot = new Pilot({ client: agent, backend, clock: village.clock, character: { id: 'bram', name: spec.name, description: spec.description } });
    pilots.push(pilot);
    // The model answers in wall time: each tick waits a little of it.
    const run = (until: () => boolean, ticks = 600) =>
      runHeadless({ capsule: village.capsule, ticks, stopWhen: until, onTick: () => new Promise((resolve) => setTimeout(resolve, 5)) });
    return { village, calls, backend, pilot, run };
  }

  it('decides several times and corrects an invalid call the model made', async () => {
    const { village, calls, pilot, run } = await bram('e2e-bram-decides');
    const first = stub.requests.length;
    stub.script(aicc({ tool: 'look' }), aicc({ tool: 'go', input: { dir: 'south' } }), aicc({ tool: 'go', input: { direction: 'south' } }));
    pilot.start();
    await run(() => calls.some((call) => call.tool === 'go' && call.result.ok));
    expect(calls.slice(0, 3).map((call) => [call.tool, call.result.ok])).toEqual([
      ['look', true],
      ['go', false],
      ['go', true],
    ]);
    expect(village.world.character('bram')!.room).toBe('lane');
    // The model was briefed once, and told of its refused call in the digest that followed.
    const requests = stub.requests.slice(first);
    expect(userTexts(requests[0]!).join('\n')).toMatch(/^You are Bram in Millbrook/);
    expect(userTexts(requests[2]!).join('\n')).toMatch(/REFUSED go \{dir: south\} \(invalid_input\)/);
  }, 60_000);

  it("measures each decision through the real daemon: the first token streamed, pi's usage of the model's counts", async () => {
    const { calls, pilot, run } = await bram('e2e-bram-costs');
    stub.script({ text: aicc({ tool: 'look' }), chunkChars: 8, chunkDelayMs: 20, usage: { promptTokens: 1234, completionTokens: 56 } });
    pilot.start();
    await run(() => pilot.stats.costs.decisions >= 1);
    expect(calls.map((call) => call.tool)).toEqual(['look']);
    const [cost] = pilot.stats.costs.recent;
    // The stub's model has no price in models.json: pi reports a cost of 0, and that is what is shown.
    expect(cost).toMatchObject({ decision: 1, inputTokens: 1234, outputTokens: 56, costUsd: 0, calls: 1, ended: 'replied' });
    expect(cost!.firstTokenMs).toBeDefined();
    expect(cost!.firstTokenMs!).toBeLessThanOrEqual(cost!.replyMs!);
    expect(cost!.replyMs!).toBeLessThanOrEqual(cost!.firstToolCallMs!);
    expect(cost!.firstToolCallMs!).toBeLessThanOrEqual(cost!.totalMs);
  }, 60_000);

  it("opens a new run of a character as the next generation: none of the last run's conversation comes along", async () => {
    const before = await bram('e2e-bram-again');
    stub.script(aicc({ tool: 'look' }));
    before.pilot.start();
    await before.run(() => before.calls.length > 0);
    before.pilot.stop('the run is cut short');
    const generation = before.backend.session.generation;
    const first = stub.requests.length;
    const after = await bram('e2e-bram-again');
    expect(after.backend.session.generation).toBe(generation + 1);
    stub.script(aicc({ tool: 'look' }));
    after.pilot.start();
    await after.run(() => after.calls.length > 0);
    // One briefing in the new conversation: the model saw nothing of the last run.
    const texts = userTexts(stub.requests[first]!);
    expect(texts.filter((text) => text.startsWith('You are Bram in Millbrook'))).toHaveLength(1);
  }, 60_000);

  it('answers an urgent steer within the running wake, and stops a wake with abort', async () => {
    const { village, calls, backend, pilot, run } = await bram('e2e-bram-steer');
    // Bram walks to the lane, where Ada can reach him.
    stub.script(aicc({ tool: 'go', input: { direction: 'south' } }));
    pilot.start();
    await run(() => calls.length > 0);
    expect(village.world.character('bram')!.room).toBe('lane');
    // The next reply streams slowly: Ada speaks to Bram while the model is still answering.
    const first = stub.requests.length;
    stub.script(
      { text: aicc({ tool: 'look' }), chunkChars: 4, chunkDelayMs: 150 },
      aicc({ tool: 'say', input: { text: 'A loaf for an apple, Ada!', to: 'ada' } }),
    );
    stub.fallbackReply = aicc({ tool: 'say', input: { text: 'A loaf for an apple, Ada!', to: 'ada' } });
    await run(() => stub.requests.length > first && backend.busy);
    const ada = await connectInProcess(village.capsule, { character: 'ada', ...VILLAGER_SESSION });
    for (const step of ['south', 'west']) village.world.move('ada', step);
    void ada.call('say', { text: 'Bram, a fresh loaf for one of your apples?', to: 'bram' });
    const answered = (call: CallRecord): boolean => call.tool === 'say' && call.input['to'] === 'ada';
    await run(() => calls.some(answered));
    expect(calls.find(answered)).toMatchObject({ result: { ok: true } });
    // The steer reached the model in the same run, as a message of its own.
    expect(
      stub.requests.slice(first).some((request) => userTexts(request).some((text) => /^Urgent news while you answer:[\s\S]*a fresh loaf/.test(text))),
    ).toBe(true);
    expect(pilot.stats.steers).toBeGreaterThanOrEqual(1);

    // A slow reply, aborted: the wake ends with what the model had said so far.
    stub.script({ text: 'x'.repeat(200), chunkChars: 1, chunkDelayMs: 50 });
    const before = stub.requests.length;
    await run(() => stub.requests.length > before && backend.busy);
    await pilot.abort();
    // pi stops reading the model's stream: the stub sees its client go mid-reply.
    await until(() => stub.requests.at(-1)!.aborted);
    expect(pilot.status).toBe('paused');
    stub.fallbackReply = aicc({ tool: 'look' });
  }, 90_000);

  it('opens a new incarnation of a character whose last run was cut short mid-wake', async () => {
    const before = await bram('e2e-bram-cut');
    stub.script(aicc({ tool: 'look' }), { text: aicc({ tool: 'look' }), chunkChars: 1, chunkDelayMs: 200 });
    before.pilot.start();
    const first = stub.requests.length;
    await before.run(() => stub.requests.length > first + 1 && before.backend.busy);
    // The run dies here: its client goes, its wake runs on in the daemon.
    before.pilot.stop('killed');
    for (const old of clients.splice(0)) old.disconnect('killed');
    const after = await bram('e2e-bram-cut');
    expect(after.backend.session.generation).toBe(before.backend.session.generation + 1);
    stub.script(aicc({ tool: 'look' }));
    const fresh = stub.requests.length;
    after.pilot.start();
    await after.run(() => after.calls.length > 0);
    expect(userTexts(stub.requests[fresh]!).filter((text) => text.startsWith('You are Bram in Millbrook'))).toHaveLength(1);
  }, 90_000);

  it("refuses a folder outside the daemon's roots, saying which option covers it", async () => {
    await expect(DaemonBackend.open(await client(), { sessionId: 'e2e-bram-outside', cwd: '/' })).rejects.toThrow(/--allow-root that holds this folder/);
  }, 30_000);

  it('opens above a generation the host keeps but no longer shows (a session closed and kept dormant)', async () => {
    const first = await client();
    await first.open({ sessionId: 'e2e-bram-dormant', generation: 1 }, { cwd: daemon.workDir, session: { mode: 'memory' } });
    await first.close({ sessionId: 'e2e-bram-dormant', generation: 1 }, { retainSession: true });
    const backend = await DaemonBackend.open(await client(), { sessionId: 'e2e-bram-dormant', cwd: daemon.workDir });
    expect(backend.session.generation).toBeGreaterThan(1);
    await backend.close();
  }, 30_000);

  it('after a daemon restart, opens the next generation and briefs the model again', async () => {
    const { calls, backend, pilot, run } = await bram('e2e-bram-restart');
    stub.script(aicc({ tool: 'look' }));
    pilot.start();
    await run(() => calls.length > 0);
    const generation = backend.session.generation;
    await daemon.restart();
    const first = stub.requests.length;
    stub.script(aicc({ tool: 'look' }));
    // The pilot's next turn comes with news or after a quiet spell (30 s of game time).
    await run(() => calls.length > 1 && stub.requests.length > first, 3000);
    expect(backend.session.generation).toBeGreaterThan(generation);
    expect(userTexts(stub.requests[first]!).join('\n')).toMatch(/^You are Bram in Millbrook/);
  }, 90_000);

  it('after the daemon evicts the idle session, opens the next generation, briefed again with the last digest', async () => {
    const evicting = await startRealDaemon({ modelBaseUrl: stub.baseUrl, idleSessionTtlMs: 500 });
    try {
      const connected = await DaemonClient.connect(await connectSocketLink(evicting.socket));
      clients.push(connected);
      const backend = await DaemonBackend.open(connected, { sessionId: 'e2e-evicted', cwd: evicting.workDir });
      const evicted = new Promise<void>((resolve) => connected.on('event', (event) => event.event === 'sessionEvicted' && resolve()));
      stub.script('first answer');
      await backend.send('prompt', 'BRIEFING');
      await backend.reply();
      stub.script('second answer');
      await backend.send('prompt', 'digest 1');
      await backend.reply();
      await evicted;
      const first = stub.requests.length;
      stub.script('third answer');
      await backend.send('prompt', 'digest 2');
      expect(await backend.reply()).toBe('third answer');
      expect(backend.session.generation).toBe(2);
      expect(userTexts(stub.requests[first]!).join('\n')).toBe('BRIEFING\n\ndigest 1\n\ndigest 2');
      await backend.close();
    } finally {
      await evicting.dispose();
    }
  }, 60_000);
});

/** Resolves once `condition` holds, looking every 20 ms for at most 10 s. */
async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 10_000) throw new Error('until: the condition did not hold within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
