import { describe, expect, it } from 'vitest';
import type { Link } from '../../src/links/link.js';
import { ManualClock } from '../../src/base/clock.js';
import { PeersClient } from '../../src/pi/index.js';
import { pass, settle } from '../helpers.js';
import { failure, setup, tracked } from './helpers.js';
import { PeersSimulator } from './peersSimulator.js';

describe('PeersClient timeouts', () => {
  it('times a request out after 30 s by default, as a retryable timeout naming its id', async () => {
    const { sim, client, clock } = await setup();
    sim.holdNext('get_state');
    const pending = tracked(failure(client.getState()));
    await settle();
    clock.advance(29_999);
    await settle();
    expect(pending.settled).toBe(false);
    clock.advance(1);
    const error = await pending.promise;
    expect(error).toMatchObject({ code: 'timeout', retryable: true, details: { requestId: sim.held[0]!.id, command: 'get_state' } });
    expect(error.message).toMatch(/^PeersClient: no answer to get_state \S+ within 30000 ms \(retry with the same id/);
    // The late answer is dropped quietly; the client goes on.
    sim.held[0]!.answer();
    await settle();
    expect(await client.getState()).toMatchObject({ idle: true });
  });

  it('restarts the timeout whenever a record carries the request id (progress)', async () => {
    const { sim, client, clock, problems } = await setup({}, { requestTimeoutMs: 1000 });
    sim.holdNext('prompt');
    const pending = tracked(client.deliver('prompt', 'think hard'));
    await settle();
    const id = sim.held[0]!.id;
    for (let i = 0; i < 5; i++) {
      clock.advance(900);
      sim.sendRecord({ type: 'progress', id, stage: i });
      await settle();
    }
    expect(pending.settled).toBe(false); // 4.5 s in, with a 1 s timeout
    sim.held[0]!.answer();
    expect(await pending.promise).toMatchObject({ success: true, id });
    expect(problems).toEqual([]);
  });

  it('still times out once progress stops', async () => {
    const { sim, client, clock } = await setup({}, { requestTimeoutMs: 1000 });
    sim.holdNext('get_state');
    const pending = tracked(failure(client.getState()));
    await settle();
    clock.advance(900);
    sim.sendRecord({ type: 'progress', id: sim.held[0]!.id });
    await settle();
    clock.advance(999);
    await settle();
    expect(pending.settled).toBe(false);
    clock.advance(1);
    expect(await pending.promise).toMatchObject({ code: 'timeout' });
  });
});

describe('PeersClient when the link drops', () => {
  it('rejects waiting requests with a retryable closed error, then closes (no reconnect configured)', async () => {
    const { sim, client } = await setup();
    const closed: string[] = [];
    client.on('close', ({ reason }) => closed.push(reason));
    sim.holdNext('prompt');
    const pending = failure(client.deliver('prompt', 'hello'));
    await settle();
    sim.drop('agent crashed');
    const error = await pending;
    expect(error).toMatchObject({ code: 'closed', retryable: true, details: { requestId: sim.held[0]!.id } });
    expect(error.message).toMatch(/the link dropped while prompt \S+ waited for its answer \(agent crashed\)/);
    expect(closed).toEqual(['agent crashed']);
    expect(client.state).toBe('closed');
    expect(await failure(client.getState())).toMatchObject({ code: 'closed', retryable: false });
  });

  it('ends waitForReply when the link drops while it waits', async () => {
    const { sim, client, clock } = await setup();
    await client.deliver('prompt', 'hi');
    const waiting = failure(client.waitForReply(0, { pollMs: 100 }));
    await pass(clock, 300, 100);
    sim.drop('gone');
    expect(await waiting).toMatchObject({ code: 'closed', retryable: false });
  });

  it('close() fails waiting requests as not retryable, and emits close', async () => {
    const { sim, client } = await setup();
    sim.holdNext('get_state');
    const pending = failure(client.getState());
    await settle();
    client.close();
    expect(await pending).toMatchObject({ code: 'closed', retryable: false });
    expect(client.state).toBe('closed');
  });
});

describe('PeersClient reconnect', () => {
  function flakyConnect(sim: PeersSimulator, clock: ManualClock, failures: number) {
    const attempts: number[] = [];
    return {
      attempts,
      connect: async (): Promise<Link> => {
        attempts.push(clock.now());
        if (attempts.length <= failures) throw new Error('connection refused');
        return sim.link();
      },
    };
  }

  it('reconnects with exponential backoff capped at maxDelayMs, says hello again, and retries deliver safely', async () => {
    const clock = new ManualClock();
    const sim = new PeersSimulator({ clock });
    const flaky = flakyConnect(sim, clock, 3);
    const client = await PeersClient.connect(sim.link(), { clock, reconnect: { connect: flaky.connect, baseDelayMs: 100, maxDelayMs: 300 } });
    const events: string[] = [];
    client.on('disconnect', ({ reason }) => events.push(`disconnect ${reason}`));
    client.on('reconnect', ({ attempt }) => events.push(`reconnect ${attempt}`));

    // The delivery reaches the agent, but the link drops before its answer comes back.
    sim.dropOnNext('prompt', 'after');
    const lost = await failure(client.deliver('prompt', 'exactly once'));
    expect(lost).toMatchObject({ code: 'closed', retryable: true });
    expect(client.state).toBe('reconnecting');
    expect(await failure(client.getState())).toMatchObject({ code: 'closed', retryable: true, details: { local: true } });

    await pass(clock, 1000, 50);
    // Delays 100, 200, 300 (capped), 300: attempts at 100, 300, 600, 900.
    expect(flaky.attempts).toEqual([100, 300, 600, 900]);
    expect(events).toEqual(['disconnect simulated drop after handling', 'reconnect 4']);
    expect(client.state).toBe('open');
    expect(sim.received.filter((r) => r['type'] === 'hello')).toHaveLength(2);

    const retried = await client.deliver('prompt', 'exactly once', { id: lost.details!.requestId! });
    expect(retried.success).toBe(true);
    expect(sim.deliveredCount).toBe(1);
  });

  it('gives up after maxAttempts and closes', async () => {
    const clock = new ManualClock();
    const sim = new PeersSimulator({ clock });
    const flaky = flakyConnect(sim, clock, Infinity);
    const client = await PeersClient.connect(sim.link(), { clock, reconnect: { connect: flaky.connect, maxAttempts: 3, baseDelayMs: 10 } });
    const closed: string[] = [];
    client.on('close', ({ reason }) => closed.push(reason));
    sim.drop();
    await settle();
    await pass(clock, 1000, 10);
    expect(flaky.attempts).toEqual([10, 30, 70]);
    expect(closed).toEqual(['PeersClient: gave up reconnecting after 3 attempts (last: connection refused)']);
  });

  it('stops at once when the new hello is refused for good (auth_failed)', async () => {
    const clock = new ManualClock();
    const sim = new PeersSimulator({ clock });
    const strict = new PeersSimulator({ clock, token: 'new-token' });
    let attempts = 0;
    const client = await PeersClient.connect(sim.link(), { clock, reconnect: { connect: async () => (attempts++, strict.link()), baseDelayMs: 10 } });
    const closed: string[] = [];
    client.on('close', ({ reason }) => closed.push(reason));
    sim.drop();
    await pass(clock, 1000, 10);
    expect(attempts).toBe(1);
    expect(closed[0]).toMatch(/^PeersClient: reconnect refused: PeersClient\.connect: the agent refused hello with auth_failed/);
  });

  it('bounds a connect() that never settles by the request timeout, and closes a late link', async () => {
    const clock = new ManualClock();
    const sim = new PeersSimulator({ clock });
    let hang: ((link: Link) => void) | undefined;
    const late: Link[] = [];
    let calls = 0;
    const connect = (): Promise<Link> => (++calls === 1 ? new Promise((resolve) => (hang = resolve)) : Promise.resolve(sim.link()));
    const client = await PeersClient.connect(sim.link(), { clock, requestTimeoutMs: 500, reconnect: { connect, baseDelayMs: 10 } });
    sim.drop();
    await pass(clock, 600, 10);
    expect(client.state).toBe('open');
    late.push(sim.link());
    hang!(late[0]!);
    await settle();
    expect(late[0]!.open).toBe(false);
  });

  it('keeps waitForReply going across a reconnect', async () => {
    const clock = new ManualClock();
    const sim = new PeersSimulator({ clock });
    const client = await PeersClient.connect(sim.link(), { clock, reconnect: { connect: async () => sim.link(), baseDelayMs: 250 } });
    const before = (await client.getState()).settled!;
    await client.deliver('prompt', 'what now?', { awaitsReply: true });
    const reply = tracked(client.waitForReply(before, { pollMs: 100 }));
    await pass(clock, 200, 100);
    sim.drop();
    await pass(clock, 400, 100);
    sim.finishRun('Go north.');
    await pass(clock, 200, 100);
    expect(reply.settled).toBe(true);
    expect(await reply.promise).toBe('Go north.');
  });
});

describe('PeersClient.waitForReply', () => {
  it('polls on the clock until settled has grown and the agent is idle, then reads the last text', async () => {
    const { sim, client, clock } = await setup();
    const before = (await client.getState()).settled!;
    await client.deliver('prompt', 'hi');
    const polls = () => sim.received.filter((r) => r['type'] === 'get_state').length;
    const start = polls();
    const reply = tracked(client.waitForReply(before, { pollMs: 250 }));
    await settle();
    await pass(clock, 1000, 250);
    expect(reply.settled).toBe(false);
    expect(polls() - start).toBe(5); // at 0, 250, 500, 750, 1000
    sim.finishRun('Hello, traveller.');
    await pass(clock, 250, 250);
    expect(await reply.promise).toBe('Hello, traveller.');
  });

  it('rejects with a retryable timeout after timeoutMs, and with aborted on its signal', async () => {
    const { client, clock } = await setup();
    const timedOut = failure(client.waitForReply(0, { pollMs: 100, timeoutMs: 500 }));
    await pass(clock, 500, 100);
    expect(await timedOut).toMatchObject({ code: 'timeout', retryable: true });
    const controller = new AbortController();
    const aborted = failure(client.waitForReply(0, { pollMs: 100, signal: controller.signal }));
    controller.abort();
    expect(await aborted).toMatchObject({ code: 'aborted', retryable: false });
    expect(clock.pendingTimers).toBe(0);
  });
});
