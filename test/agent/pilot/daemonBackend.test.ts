// DaemonBackend against the pi-daemon simulator: one session per character, one wake per decision,
// steers into the running wake, text queued for the next wake when none runs.

import { describe, expect, it } from 'vitest';
import { DaemonBackend, type DaemonClientLike } from '../../../src/agent/pilot/index.js';
import { ManualClock } from '../../../src/base/clock.js';
import { DaemonClient } from '../../../src/pi/index.js';
import { settle } from '../../helpers.js';
import { DaemonSimulator } from '../../pi/daemonSimulator.js';

// The real client fits the shape this backend declares (checked by tsc; nothing to run).
export const fits = (client: DaemonClient): DaemonClientLike => client;

async function setup(options: { generation?: number } = {}) {
  const clock = new ManualClock();
  const sim = new DaemonSimulator({ clock });
  const client = await DaemonClient.connect(sim.link(), { clock, reconnect: { connect: async () => sim.link(), baseDelayMs: 10 } });
  const backend = await DaemonBackend.open(client, { sessionId: 'npc-bram', cwd: '/srv/aicc', open: { systemPrompt: 'You play Bram.' }, ...options });
  return { clock, sim, client, backend };
}

const wakes = (sim: DaemonSimulator) => sim.received.filter((r) => r['operation'] === 'wake');

describe('the pi-daemon backend', () => {
  it('opens and attaches the character session at generation 1, memory mode, resources "none"', async () => {
    const { sim, backend } = await setup();
    expect(backend.session).toEqual({ sessionId: 'npc-bram', generation: 1 });
    expect(sim.received.map((r) => r['operation'])).toEqual(['handshake', 'status', 'open', 'attach']);
    expect(sim.received[2]).toMatchObject({
      payload: { cwd: '/srv/aicc', session: { mode: 'memory' }, resources: { tools: 'none', systemPrompt: 'You play Bram.' } },
    });
    expect(sim.session('npc-bram')).toMatchObject({ generation: 1, attached: 1 });
  });

  it('gives a new incarnation of the character the next generation, replacing the idle session', async () => {
    const { sim, client } = await setup();
    const again = await DaemonBackend.open(client, { sessionId: 'npc-bram', cwd: '/srv/aicc' });
    expect(again.session.generation).toBe(2);
    expect(sim.session('npc-bram')).toMatchObject({ generation: 2 });
  });

  it('sends a prompt as one wake, resolves when accepted, and the reply is the turn text', async () => {
    const { sim, backend } = await setup();
    sim.scriptTurns({ text: 'I look around.', hold: true });
    await backend.send('prompt', 'You are Bram.');
    expect(backend.busy).toBe(true);
    expect(wakes(sim)).toMatchObject([{ idempotencyKey: 'npc-bram-g1-1', payload: { prompt: 'You are Bram.', waitForTerminal: true, source: 'aicc-pilot' } }]);
    const reply = backend.reply();
    sim.finishTurn();
    expect(await reply).toBe('I look around.');
    expect(backend.busy).toBe(false);
    expect(await backend.reply()).toBeNull();
  });

  it('keeps the text of a wake that ended before reply() was asked (a fast host)', async () => {
    const { sim, backend } = await setup();
    sim.scriptTurns('quick');
    await backend.send('prompt', 'go');
    for (let i = 0; i < 3; i++) await settle();
    expect(sim.turns[0]!.done).toBe(true);
    expect(backend.busy).toBe(false);
    expect(await backend.reply()).toBe('quick');
    expect(await backend.reply()).toBeNull();
  });

  it('steers and follows up into the running wake; a prompt while running joins as a follow-up', async () => {
    const { sim, backend } = await setup();
    sim.scriptTurns({ text: (turn) => `steers: ${turn.steers.join('|')}; follow-ups: ${turn.followUps.join('|')}`, hold: true });
    await backend.send('prompt', 'brief');
    await backend.send('steer', 'Ada speaks to you');
    await backend.send('follow_up', 'it rains');
    await backend.send('prompt', 'and more');
    sim.finishTurn();
    expect(await backend.reply()).toBe('steers: Ada speaks to you; follow-ups: it rains|and more');
    expect(wakes(sim)).toHaveLength(1);
  });

  it('queues a steer that finds no running wake, and sends it with the next wake', async () => {
    const { sim, backend } = await setup();
    sim.scriptTurns('one', 'two');
    await backend.send('steer', 'late news');
    expect(backend.busy).toBe(false);
    await backend.send('prompt', 'digest');
    await backend.reply();
    expect(wakes(sim).map((w) => (w['payload'] as { prompt: string }).prompt)).toEqual(['late news\n\ndigest']);
  });

  it('queues a steer the host refuses with session_not_running (the wake ended meanwhile)', async () => {
    const { sim, backend } = await setup();
    sim.scriptTurns({ text: 'x', hold: true }, 'y');
    await backend.send('prompt', 'first');
    sim.failNext('steer', { code: 'session_not_running', message: 'idle' });
    await backend.send('steer', 'too late');
    sim.finishTurn();
    await backend.reply();
    await backend.send('prompt', 'second');
    await backend.reply();
    expect((wakes(sim)[1]!['payload'] as { prompt: string }).prompt).toBe('too late\n\nsecond');
  });

  it('retries a retryable steer failure, and reports one that is not', async () => {
    const { sim, backend } = await setup();
    sim.scriptTurns({ text: 'x', hold: true });
    await backend.send('prompt', 'first');
    sim.failNext('steer', { code: 'session_queue_full', message: 'full', retryable: true });
    await backend.send('steer', 'now');
    expect(sim.turns[0]!.steers).toEqual(['now']);
    const steers = sim.received.filter((r) => r['operation'] === 'steer');
    expect(steers.map((r) => r['idempotencyKey'])).toEqual(['npc-bram-g1-2', 'npc-bram-g1-2']);
    sim.failNext('steer', { code: 'internal_error', message: 'boom' });
    await expect(backend.send('steer', 'again')).rejects.toThrow(/^DaemonBackend\.send: the host refused the steer: .*internal_error: boom/);
  });

  it('rejects a send the host refuses, with the reason', async () => {
    const { sim, backend } = await setup();
    sim.failNext('wake', { code: 'host_draining', message: 'draining' });
    await expect(backend.send('prompt', 'hi')).rejects.toThrow(/^DaemonBackend\.send: the host refused the wake: .*host_draining/);
    expect(backend.busy).toBe(false);
  });

  it('an aborted reply wait leaves the wake running; abort() stops it with its partial text', async () => {
    const { sim, backend } = await setup();
    sim.scriptTurns({ text: 'never', hold: true, partial: 'I be' });
    await backend.send('prompt', 'go');
    const wait = new AbortController();
    const first = backend.reply(wait.signal);
    wait.abort();
    expect(await first).toBeNull();
    expect(backend.busy).toBe(true);
    const second = backend.reply();
    await backend.abort();
    expect(await second).toBe('I be');
    expect(backend.busy).toBe(false);
  });

  it('after a host restart opens the next generation and briefs the model again', async () => {
    const { sim, backend, clock } = await setup();
    sim.scriptTurns('ok', 'ok again');
    await backend.send('prompt', 'BRIEFING');
    await backend.reply();
    sim.restart();
    await settle();
    clock.advance(10);
    for (let i = 0; i < 5; i++) await settle();
    await backend.send('prompt', 'digest 2');
    expect(backend.session).toEqual({ sessionId: 'npc-bram', generation: 2 });
    expect((wakes(sim).at(-1)!['payload'] as { prompt: string }).prompt).toBe('BRIEFING\n\ndigest 2');
    expect(await backend.reply()).toBe('ok again');
  });

  it("reports the model at work: a token as a message starts to stream, pi's usage as it ends, before the reply", async () => {
    const { sim, backend } = await setup();
    const seen: string[] = [];
    const off = backend.observe((signal) => seen.push(JSON.stringify(signal)));
    sim.scriptTurns({
      text: 'I look around.',
      hold: true,
      usage: {
        input: 900,
        output: 14,
        cacheRead: 100,
        cacheWrite: 0,
        totalTokens: 1014,
        cost: { input: 0.0009, output: 0.0002, cacheRead: 0, cacheWrite: 0, total: 0.0011 },
      },
    });
    await backend.send('prompt', 'You are Bram.');
    await settle();
    expect(seen).toEqual([]); // the prompt's own (user) message is not the model at work
    const reply = backend.reply().then((text) => seen.push(`reply ${text}`));
    sim.finishTurn();
    await reply;
    expect(seen).toEqual([
      '{"type":"token"}',
      '{"type":"usage","inputTokens":1000,"cachedInputTokens":100,"outputTokens":14,"costUsd":0.0011}',
      'reply I look around.',
    ]);
    // A turn whose message carries no usage reports none; an unsubscribed listener hears nothing.
    sim.scriptTurns('again');
    await backend.send('prompt', 'more');
    await backend.reply();
    expect(seen.slice(3)).toEqual(['{"type":"token"}']);
    off();
    sim.scriptTurns({ text: 'x', usage: { input: 1, output: 1 } });
    await backend.send('prompt', 'more');
    await backend.reply();
    expect(seen).toHaveLength(4);
  });

  it('close() stops a running wake and closes the session', async () => {
    const { sim, backend } = await setup();
    sim.scriptTurns({ text: 'x', hold: true });
    await backend.send('prompt', 'go');
    backend.close();
    for (let i = 0; i < 5; i++) await settle();
    expect(sim.received.slice(-2).map((r) => r['operation'])).toEqual(['abort', 'close']);
    expect(sim.session('npc-bram')).toBeUndefined();
    await expect(backend.send('prompt', 'hi')).rejects.toThrow(/closed/);
  });
});
