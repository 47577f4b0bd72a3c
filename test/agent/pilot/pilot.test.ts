// The Pilot end to end: one villager of Millbrook played by a scripted "model", every call a real
// AICC tool_call through an AgentClient over a memory link, the capsule stepped on its ManualClock.

import { describe, expect, it } from 'vitest';
import { aicc, type Sent } from './fakeBackend.js';
import { pilotVillager } from './village.js';

/** The last text sent to the model. */
const last = (sent: Sent[]): string => sent.at(-1)?.text ?? '';

describe('a piloted villager', () => {
  it('is briefed once, then gets digests as prompts, and its calls reach the capsule in order', async () => {
    const { backend, pilot, village, run } = await pilotVillager('bram', [
      aicc({ tool: 'look' }),
      aicc({ tool: 'go', input: { direction: 'south' } }, { tool: 'go', input: { direction: 'west' } }),
    ]);
    pilot.start();
    await run(30, () => backend.sent.length >= 3);
    expect(backend.sent.map((s) => s.kind)).toEqual(['prompt', 'prompt', 'prompt']);
    expect(backend.sent[0]!.text).toMatch(/^You are Bram in Millbrook/);
    expect(backend.sent.filter((s) => s.text.includes('You are Bram'))).toHaveLength(1);
    expect(backend.sent[1]!.text).toContain('- ok look → id: mill, name: Mill');
    expect(backend.sent[2]!.text).toContain('- ok go {direction: south} → direction: south, from: mill, to: Orchard Lane (lane)');
    expect(backend.sent[2]!.text).toContain('- you.room: mill → lane → orchard');
    expect(village.world.character('bram')!.room).toBe('orchard');
    expect(pilot.stats).toMatchObject({
      decisions: 3,
      callsSent: 3,
      callsRefused: 0,
      failedReplies: 0,
      promptChars: { briefing: backend.sent[0]!.text.length, digests: backend.sent[1]!.text.length + backend.sent[2]!.text.length },
    });
    expect(pilot.stats.latencyMs.samples).toBe(pilot.stats.decisions);
  });

  it('hears of an invalid call with the reason, and the model corrects it on the next decision', async () => {
    const { backend, pilot, village, run } = await pilotVillager('bram', [
      aicc({ tool: 'go', input: { dir: 'south' } }, { tool: 'look' }),
      (sent) => {
        // The "model" reads the refusal and fixes the field it named.
        const digest = last(sent);
        return /REFUSED go \{dir: south\} \(invalid_input\): go: input\.\w+/.test(digest) ? aicc({ tool: 'go', input: { direction: 'south' } }) : 'confused';
      },
    ]);
    pilot.start();
    await run(30, () => backend.sent.length >= 3);
    expect(backend.sent[1]!.text).toMatch(/- REFUSED go \{dir: south\} \(invalid_input\): go: input\./);
    expect(backend.sent[1]!.text).toContain('- skipped look: an earlier call was refused');
    expect(backend.sent[2]!.text).toContain('- ok go {direction: south}');
    expect(village.world.character('bram')!.room).toBe('lane');
    expect(pilot.stats).toMatchObject({ callsSent: 2, callsRefused: 1, callsSkipped: 1 });
  });

  it('tells the model which lines it could not read; calls on the other lines still run', async () => {
    const { backend, pilot, run } = await pilotVillager('bram', [
      "Let me look.\n```aicc\n{'tool': 'look',}\ngo south please\n```",
      (sent) =>
        last(sent).includes('I could not read line 2: go south please (not a JSON object') ? aicc({ tool: 'go', input: { direction: 'south' } }) : 'confused',
    ]);
    pilot.start();
    await run(30, () => backend.sent.length >= 3);
    expect(backend.sent[1]!.text).toContain('- ok look');
    expect(backend.sent[2]!.text).toContain('- ok go {direction: south}');
    expect(pilot.stats).toMatchObject({ parseFailures: 1, forgivenReplies: 1, failedReplies: 0 });
  });

  it('waits for news after an empty block, and the news wakes it', async () => {
    const { backend, pilot, village, run } = await pilotVillager('bram', [aicc()], { quietWakeMs: Infinity });
    pilot.start();
    await run(30);
    expect(backend.sent).toHaveLength(1);
    village.world.move('cleo', 'south'); // tavern → market: not where Bram is, so no news for him
    village.world.move('ada', 'south'); // bakery → square
    await run(10);
    expect(backend.sent).toHaveLength(1);
    village.world.move('ada', 'west'); // square → lane, next to the mill: he hears her arrive? no — moves are seen, not heard
    village.world.move('ada', 'north'); // lane → mill: Bram sees her come in
    await run(10, () => backend.sent.length >= 2);
    expect(backend.sent[1]!.text).toContain('- ada.room: lane → mill');
  });

  it('is woken after a quiet spell with nothing new', async () => {
    const { backend, pilot, village, run } = await pilotVillager('bram', [aicc()], { quietWakeMs: 5_000 });
    pilot.start();
    await run(45);
    expect(backend.sent).toHaveLength(1);
    await run(10, () => backend.sent.length >= 2);
    expect(village.clock.now()).toBeGreaterThanOrEqual(5_000);
    expect(backend.sent[1]!.text).toMatch(/^tick \d+ \(\+\d+ ticks, [\d.]+ s\)\nNotes:\n- Nothing new\.$/);
  });

  it('sends words addressed to it as a steer while the model is busy, other news as one follow-up', async () => {
    const { backend, pilot, village, run, connect } = await pilotVillager('bram', [aicc({ tool: 'say', input: { text: 'Hello, Ada.', to: 'ada' } })]);
    const ada = await connect('ada');
    for (const step of ['south', 'west', 'north']) village.world.move('ada', step); // to the mill
    await run(2); // her arrival is old news by the time the pilot starts
    const release = backend.hold();
    pilot.start();
    await run(5);
    expect(backend.busy).toBe(true);
    void ada.call('say', { text: 'Bram, a fresh loaf for one of your apples?', to: 'bram' });
    await run(5, () => backend.sent.some((s) => s.kind === 'steer'));
    const steer = backend.sent.find((s) => s.kind === 'steer')!;
    expect(steer.text).toMatch(/^Urgent news while you answer:\n/);
    expect(steer.text).toContain('- ada to you [untrusted]: "Bram, a fresh loaf for one of your apples?"');
    // Ordinary news while still busy: a follow-up, once per run however much comes.
    void ada.call('say', { text: 'Lovely weather.' });
    await run(5);
    void ada.call('say', { text: 'Still lovely.' });
    await run(5);
    expect(backend.texts('follow_up')).toHaveLength(1);
    expect(backend.texts('follow_up')[0]).toMatch(/^More news while you answer:\n[\s\S]*- ada \[untrusted\]: "Lovely weather\."/);
    release();
    await run(10, () => backend.sent.length >= 5);
    // The reply answered all of it; what came after the follow-up goes in the next prompt.
    expect(backend.sent.map((s) => s.kind)).toEqual(['prompt', 'steer', 'follow_up', 'prompt']);
    expect(last(backend.sent)).toContain('- ok say {text: "Hello, Ada.", to: ada}');
    expect(last(backend.sent)).toContain('- ada [untrusted]: "Still lovely."');
    expect(pilot.stats).toMatchObject({ steers: 1, followUps: 1, decisions: 2 });
  });

  it('steers on a collision too (for a session subscribed to them)', async () => {
    const { backend, pilot, client, village, run } = await pilotVillager('bram', [aicc()]);
    await client.declare({ subscriptions: ['tick', 'state_change', 'agent_message', 'audio', 'collision'] });
    backend.hold();
    pilot.start();
    await run(3);
    village.capsule.emit('collision', { a: 'bram', b: 'millwheel', phase: 'begin' }, { to: ['bram'] });
    await run(3, () => backend.sent.length >= 2);
    expect(backend.sent[1]).toEqual({
      kind: 'steer',
      text: 'Urgent news while you answer:\ntick 3 (+3 ticks, 0.3 s)\nNews:\n- collision you × millwheel (begin)',
    });
  });

  it('never holds up the tick loop: the world runs on while the model thinks', async () => {
    const { backend, pilot, village, run } = await pilotVillager('bram', []);
    backend.hold();
    pilot.start();
    expect(await run(50)).toBe(50);
    expect(village.capsule.tick).toBe(50);
    expect(pilot.status).toBe('thinking');
  });

  it("gathers news for a quarter of the model's budget before a digest: a slow model class waits longer", async () => {
    const { backend, pilot, client, village, run } = await pilotVillager('bram', [aicc({ tool: 'look' }), aicc({ tool: 'look' })]);
    await client.declare({ agentModel: { class: 'cloud_medium' } }); // 1,500 ms budget: 375 ms of gathering
    const sentAt: number[] = [];
    pilot.on('sent', () => sentAt.push(village.clock.now()));
    pilot.start();
    await run(40, () => backend.sent.length >= 3);
    // A look runs at the next tick (100 ms); the digest follows about 375 ms of gathering later.
    const gaps = sentAt.slice(1).map((at, i) => at - sentAt[i]!);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(375);
  });

  it('tells the model when the tool catalog changes', async () => {
    const { backend, pilot, village, run } = await pilotVillager('bram', [aicc(), aicc()]);
    pilot.start();
    await run(5);
    village.capsule.registerTool({
      id: 'whistle',
      class: 'actuator',
      description: 'Whistle a tune.',
      input_schema: { type: 'object', properties: { tune: { type: 'string', maxLength: 40 } } },
      output_schema: { type: 'object' },
      requires_capability: 'voice',
      handler: () => ({}),
    });
    await run(5, () => backend.sent.length >= 2);
    expect(backend.sent[1]!.text).toContain('- new tool: whistle [actuator] {tune: string ≤40} — Whistle a tune.');
  });

  it('stops when the session closes', async () => {
    const { pilot, client, run } = await pilotVillager('bram', [aicc()]);
    const stopped: string[] = [];
    pilot.on('stop', ({ reason }) => stopped.push(reason));
    pilot.start();
    await run(3);
    await client.close('done');
    await run(2);
    expect(pilot.status).toBe('stopped');
    expect(stopped).toEqual(['session closed: closed by agent: done']);
  });
});

describe('a piloted villager whose model has the tools natively', () => {
  it('asks its backend before the briefing when not told, and briefs for native tools when the answer is yes', async () => {
    const asked: string[] = [];
    const { backend, pilot, run } = await pilotVillager('bram', ['I looked around myself.']);
    backend.callsToolsNatively = async (character) => (asked.push(character), true);
    expect(pilot.nativeTools).toBeUndefined();
    pilot.start();
    await run(50, () => backend.sent.length >= 1);
    expect(asked).toEqual(['bram']);
    expect(pilot.nativeTools).toBe(true);
    expect(backend.sent[0]!.text).toContain('These tools are your own tools: call them directly');
  });

  it('keeps the text protocol when the backend says no, cannot say (an error event), or the option says so', async () => {
    for (const [answer, option] of [
      [async () => false, undefined],
      [async () => Promise.reject(new Error('link down')), undefined],
      [async () => true, false],
    ] as const) {
      const { backend, pilot, run } = await pilotVillager('bram', ['I looked around myself.'], option === undefined ? {} : { nativeTools: option });
      backend.callsToolsNatively = answer;
      const errors: string[] = [];
      pilot.on('error', ({ message }) => void errors.push(message));
      pilot.start();
      await run(50, () => backend.sent.length >= 1);
      expect(pilot.nativeTools).toBe(false);
      expect(backend.sent[0]!.text).toContain('```aicc');
      expect(errors).toEqual(answer.toString().includes('link down') ? ['backend.callsToolsNatively: link down; using the text protocol'] : []);
    }
  });

  it('is briefed to call its tools itself, reads no calls out of replies, and keeps sending news', async () => {
    // The "model" writes what the text protocol would take as a call: with native tools it is only text.
    const { backend, pilot, village, run } = await pilotVillager('bram', [aicc({ tool: 'go', input: { direction: 'south' } }), 'I looked around myself.'], {
      nativeTools: true,
    });
    pilot.start();
    // With nothing happening, the next turn comes from the quiet wake.
    await run(400, () => backend.sent.length >= 2);
    const brief = backend.sent[0]!.text;
    expect(brief).toMatch(/^You are Bram in Millbrook/);
    expect(brief).toContain('These tools are your own tools: call them directly');
    expect(brief).not.toContain('```aicc');
    // Nothing was read out of the reply: Bram has not moved, and no call was counted or skipped.
    expect(village.world.character('bram')!.room).toBe('mill');
    expect(pilot.stats).toMatchObject({ callsSent: 0, callsSkipped: 0, failedReplies: 0 });
    // The next turn is news, as ever.
    expect(backend.sent[1]!.kind).toBe('prompt');
    expect(backend.sent[1]!.text).not.toMatch(/^You are Bram/);
  });
});
