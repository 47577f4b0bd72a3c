import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/base/clock.js';
import { DAEMON_DRAIN_TIMEOUT_MS, DaemonClient } from '../../src/pi/index.js';
import { settle } from '../helpers.js';
import { CHAR, daemonFailure, daemonSetup, OPEN, openAttached } from './daemonHelpers.js';
import { DaemonSimulator } from './daemonSimulator.js';
import { tracked } from './helpers.js';

describe('DaemonClient handshake', () => {
  it('negotiates 2.0 from supportedProtocolVersions, though the handshake data says "1.0"', async () => {
    const { sim, client } = await daemonSetup();
    expect(sim.received[0]).toEqual({ protocolVersion: '2.0', requestId: 'r1', operation: 'handshake', payload: {} });
    expect(client.host).toMatchObject({ hostInstanceId: 'sim-host-1', protocolVersion: '2.0', supportedProtocolVersions: ['1.0', '2.0'], ready: true });
    expect(client.host.limits).toMatchObject({ maxLineBytes: 1024 * 1024 });
    expect(client.state).toBe('open');
  });

  it('refuses a host that offers no 2.x with incompatible_protocol, and closes the link', async () => {
    for (const supported of [['1.0'], ['3.0', '3.1']]) {
      const clock = new ManualClock();
      const sim = new DaemonSimulator({ clock, supportedProtocolVersions: supported });
      const link = sim.link();
      const error = await daemonFailure(DaemonClient.connect(link, { clock }));
      expect(error).toMatchObject({ code: 'incompatible_protocol', retryable: false, name: 'DaemonError' });
      expect(error.message).toContain(`the host speaks ${supported.join(', ')}, this client 2.x`);
      await settle();
      expect(link.open).toBe(false);
    }
  });

  it('speaks 2.0 to a host that also offers a later 2.x', async () => {
    const { client } = await daemonSetup({ supportedProtocolVersions: ['2.0', '2.3'] });
    expect(client.host.protocolVersion).toBe('2.0');
  });

  it('handshakes again on demand, reading readiness', async () => {
    const { sim, client } = await daemonSetup();
    sim.ready = false;
    expect((await client.handshake()).ready).toBe(false);
    const error = await daemonFailure(client.open(CHAR, OPEN));
    expect(error).toMatchObject({ code: 'host_not_ready', retryable: true });
  });
});

describe('DaemonClient sessions', () => {
  it('opens with every resource "none" plus the system prompt, and attaches', async () => {
    const { sim, client } = await daemonSetup();
    const opened = await client.open(CHAR, { ...OPEN, model: { provider: 'stub', id: 'm1' } });
    expect(opened).toMatchObject({ created: true, session: { sessionId: 'npc-cleo', generation: 1 } });
    expect(sim.received.at(-1)).toEqual({
      protocolVersion: '2.0',
      requestId: 'r2',
      operation: 'open',
      sessionId: 'npc-cleo',
      generation: 1,
      payload: {
        cwd: '/game',
        session: { mode: 'memory' },
        model: { provider: 'stub', id: 'm1' },
        resources: {
          extensions: 'none',
          skills: 'none',
          promptTemplates: 'none',
          themes: 'none',
          contextFiles: 'none',
          tools: 'none',
          systemPrompt: 'You play Cleo.',
        },
      },
    });
    // The opened event went to nobody: nothing is subscribed implicitly.
    expect(await client.attach(CHAR)).toEqual({ attached: true, generation: 1, sequence: 1 });
    expect(sim.session('npc-cleo')).toMatchObject({ attached: 1, sequence: 1 });
  });

  it('treats the same open again as a no-op, another policy at the same generation as a conflict', async () => {
    const { client } = await daemonSetup();
    await client.open(CHAR, OPEN);
    expect((await client.open(CHAR, OPEN)).created).toBe(false);
    const error = await daemonFailure(client.open(CHAR, { ...OPEN, systemPrompt: 'You play Ada.' }));
    expect(error).toMatchObject({
      code: 'session_policy_conflict',
      retryable: false,
      details: { operation: 'open', requestId: expect.stringMatching(/^r\d+$/) },
    });
  });

  it('replaces an idle session at a higher generation; the old generation is stale everywhere', async () => {
    const { client, sim, events } = await daemonSetup();
    await openAttached(client);
    await client.open({ ...CHAR, generation: 2 }, OPEN);
    for (const call of [() => client.wake(CHAR, { prompt: 'hi' }), () => client.attach(CHAR), () => client.open(CHAR, OPEN)]) {
      expect((await daemonFailure(call())).code).toBe('stale_generation');
    }
    // Sequence restarts at 1 on reopen: attach again and the numbering goes on from the opened event.
    expect(await client.attach({ ...CHAR, generation: 2 })).toEqual({ attached: true, generation: 2, sequence: 1 });
    await client.wake({ ...CHAR, generation: 2 }, { prompt: 'hi' });
    expect(events.map((e) => [e.generation, e.sequence]).slice(0, 2)).toEqual([
      [2, 2],
      [2, 3],
    ]);
    expect(sim.turns).toHaveLength(1);
  });

  it('answers session_not_found for a session never opened', async () => {
    const { client } = await daemonSetup();
    expect(await daemonFailure(client.attach(CHAR))).toMatchObject({ code: 'session_not_found', retryable: false, details: { sessionId: 'npc-cleo' } });
  });

  it('bounds the sessions attached at once, refusing before it asks the host', async () => {
    const { client, sim } = await daemonSetup({}, { maxAttachedSessions: 1 });
    await openAttached(client);
    const other = { sessionId: 'npc-ada', generation: 1 };
    await client.open(other, OPEN);
    const before = sim.received.length;
    expect(await daemonFailure(client.attach(other))).toMatchObject({ code: 'too_many_pending', details: { local: true, sessionId: 'npc-ada' } });
    expect(sim.received.length).toBe(before);
    await client.detach(CHAR);
    expect(await client.attach(other)).toMatchObject({ attached: true });
  });

  it('detaches: no more events', async () => {
    const { client, sim, events } = await daemonSetup();
    await openAttached(client);
    await client.detach(CHAR);
    await client.wake(CHAR, { prompt: 'hi' });
    expect(events).toEqual([]);
    expect(sim.session('npc-cleo')!.attached).toBe(0);
  });
});

describe('DaemonClient wake', () => {
  it('waits for the turn and answers with its text; the events come in order, keyed to the wake', async () => {
    const { client, sim, events } = await daemonSetup();
    await openAttached(client);
    sim.scriptTurns('I walk south.');
    const answer = await client.wake(CHAR, { prompt: 'What now?', idempotencyKey: 'cleo-1' });
    // result.sessionId is pi's conversation id, not the host's session id.
    expect(answer).toMatchObject({ terminal: true, idempotencyKey: 'cleo-1', result: { text: 'I walk south.', sessionId: expect.any(String) } });
    expect(sim.received.at(-1)).toMatchObject({ operation: 'wake', idempotencyKey: 'cleo-1', payload: { prompt: 'What now?', waitForTerminal: true } });
    // As pi-daemon 0.3.3 sends them: the prompt as a user message, the reply streamed as an assistant one.
    expect(events.map((e) => e.event)).toEqual([
      'promptAccepted',
      'agentStart',
      'turnStart',
      'messageStart',
      'messageEnd',
      'messageStart',
      'messageUpdate',
      'messageUpdate',
      'messageUpdate',
      'messageEnd',
      'turnEnd',
      'agentSettled',
      'agentEnd',
      'sessionIdle',
    ]);
    expect(events.map((e) => e.sequence)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    expect(new Set(events.map((e) => e.requestId))).toEqual(new Set([answer.requestId]));
  });

  it('answers a durable session at once without waitForTerminal, with a ticket; the turn ends in the events', async () => {
    const { client, sim, events } = await daemonSetup();
    await openAttached(client, CHAR, 'new');
    sim.scriptTurns({ text: 'later', hold: true });
    const answer = await client.wake(CHAR, { prompt: 'go', waitForTerminal: false });
    expect(answer).toMatchObject({ terminal: false, data: { ticket: { state: 'queued', idempotencyKey: answer.idempotencyKey } } });
    expect(sim.running('npc-cleo')).toBe(true);
    sim.finishTurn();
    await settle();
    expect(events.filter((e) => e.event === 'messageUpdate').at(-1)!.data).toMatchObject({ assistantMessageEvent: { type: 'text_end', content: 'later' } });
    expect(events.at(-1)!.event).toBe('sessionIdle');
  });

  it('refuses a memory session a wake without waitForTerminal: durable_admission_unavailable', async () => {
    const { client } = await daemonSetup();
    await openAttached(client);
    const refused = await daemonFailure(client.wake(CHAR, { prompt: 'go', waitForTerminal: false }));
    expect(refused).toMatchObject({ code: 'durable_admission_unavailable', retryable: false });
    expect(refused.message).toContain('needs a durable session');
  });

  it('a second wake while one runs waits its turn, and is answered after it', async () => {
    const { client, sim, events } = await daemonSetup();
    await openAttached(client);
    sim.scriptTurns({ text: 'a', hold: true }, 'b');
    const first = tracked(client.wake(CHAR, { prompt: 'one' }));
    await settle();
    const second = tracked(client.wake(CHAR, { prompt: 'two' }));
    await settle();
    expect(events.filter((e) => e.event === 'promptAccepted').map((e) => e.data)).toEqual([
      { idempotencyKey: expect.any(String), queuedTurns: 0 },
      { idempotencyKey: expect.any(String), queuedTurns: 1 },
    ]);
    expect([first.settled, second.settled]).toEqual([false, false]);
    sim.finishTurn();
    const answers = await Promise.all([first.promise, second.promise]);
    expect(answers.map((a) => (a.terminal ? a.result.text : ''))).toEqual(['a', 'b']);
  });

  it('memory sessions run a retried key again; durable ones return the cached result or refuse another prompt', async () => {
    const { client, sim } = await daemonSetup();
    await openAttached(client);
    sim.scriptTurns('first', 'second');
    const a = await client.wake(CHAR, { prompt: 'p', idempotencyKey: 'k' });
    const b = await client.wake(CHAR, { prompt: 'p', idempotencyKey: 'k' });
    expect([a, b].map((w) => (w.terminal ? w.result.text : ''))).toEqual(['first', 'second']);
    expect(sim.turns).toHaveLength(2);

    const durable = { sessionId: 'npc-ada', generation: 1 };
    await openAttached(client, durable, 'new');
    sim.scriptTurns('kept', 'never');
    const c = await client.wake(durable, { prompt: 'p', idempotencyKey: 'k' });
    const d = await client.wake(durable, { prompt: 'p', idempotencyKey: 'k' });
    expect([c, d].map((w) => (w.terminal ? w.result.text : ''))).toEqual(['kept', 'kept']);
    expect(sim.turns).toHaveLength(3);
    expect(await daemonFailure(client.wake(durable, { prompt: 'other', idempotencyKey: 'k' }))).toMatchObject({
      code: 'idempotency_conflict',
      retryable: false,
    });
  });

  it('steers and follows up only while a wake runs; idle, both fail with session_not_running', async () => {
    const { client, sim } = await daemonSetup();
    await openAttached(client);
    // Retryable, as the host says: a steer that comes just as a wake ends can go into the next one.
    for (const send of [() => client.steer(CHAR, 'now!'), () => client.followUp(CHAR, 'later')]) {
      expect(await daemonFailure(send())).toMatchObject({ code: 'session_not_running', retryable: true, details: { host: { state: 'idle' } } });
    }
    sim.scriptTurns({ text: (turn) => `heard ${turn.steers.join(',')} then ${turn.followUps.join(',')}`, hold: true });
    const wake = client.wake(CHAR, { prompt: 'go' });
    await settle();
    await client.steer(CHAR, 'ada speaks', 'steer-1');
    await client.followUp(CHAR, 'rain');
    expect(sim.received.filter((r) => r['operation'] === 'steer').at(-1)).toMatchObject({ idempotencyKey: 'steer-1', payload: { message: 'ada speaks' } });
    sim.finishTurn();
    expect(await wake).toMatchObject({ result: { text: 'heard ada speaks then rain' } });
  });

  it('a wake past the queue (maxSessionQueueDepth behind the running one) is session_queue_full', async () => {
    const { client, sim } = await daemonSetup({ maxSessionQueueDepth: 1 });
    await openAttached(client);
    sim.scriptTurns({ text: 'x', hold: true });
    void client.wake(CHAR, { prompt: 'go' }).catch(() => {});
    void client.wake(CHAR, { prompt: 'then' }).catch(() => {});
    await settle();
    expect(await daemonFailure(client.wake(CHAR, { prompt: 'and' }))).toMatchObject({
      code: 'session_queue_full',
      retryable: true,
      details: { host: { maxSessionQueueDepth: 1 } },
    });
  });

  it('aborts a running wake, which answers with its partial text', async () => {
    const { client, sim } = await daemonSetup();
    await openAttached(client);
    expect(await client.abort(CHAR)).toBe(false);
    sim.scriptTurns({ text: 'never', hold: true, partial: 'I wa' });
    const wake = client.wake(CHAR, { prompt: 'go' });
    await settle();
    expect(await client.abort(CHAR)).toBe(true);
    expect(await wake).toMatchObject({ terminal: true, result: { text: 'I wa' } });
  });

  it('reads a wake aborted before any text, which the host answers with no text at all, as ""', async () => {
    const { client, sim } = await daemonSetup();
    await openAttached(client);
    sim.scriptTurns({ text: 'never', hold: true });
    const wake = client.wake(CHAR, { prompt: 'go' });
    await settle();
    await client.abort(CHAR);
    const answer = await wake;
    expect(answer.terminal && answer.result.text).toBe('');
  });

  it('a wake that waits for its turn is bounded by wakeTimeoutMs, restarted by its own events', async () => {
    const { client, sim, clock } = await daemonSetup({}, { requestTimeoutMs: 1000, wakeTimeoutMs: 5000 });
    await openAttached(client);
    sim.scriptTurns({ text: 'slow', hold: true });
    const wake = tracked(client.wake(CHAR, { prompt: 'go' }));
    await settle();
    clock.advance(4000);
    sim.emit('npc-cleo', 'messageUpdate', { delta: 's' }, 'r4');
    await settle();
    clock.advance(4000);
    await settle();
    expect(wake.settled).toBe(false);
    clock.advance(1001);
    expect(await daemonFailure(wake.promise)).toMatchObject({ code: 'timeout', retryable: true, details: { operation: 'wake', requestId: 'r4' } });
  });
});

describe('DaemonClient status, close, drain', () => {
  it('reads the host status and a session snapshot', async () => {
    const { client } = await daemonSetup();
    await openAttached(client);
    expect(await client.status()).toMatchObject({
      hostInstanceId: 'sim-host-1',
      ready: true,
      draining: false,
      sessions: [{ sessionId: 'npc-cleo', generation: 1, state: 'idle' }],
    });
    // With a sessionId: the snapshot itself, not { session: … }.
    expect(await client.status('npc-cleo')).toMatchObject({ sessionId: 'npc-cleo', generation: 1, state: 'idle', sequence: 1, queuedTurns: 0 });
  });

  it('closes an idle session (retained: dormant, then closed) and refuses a busy one', async () => {
    const { client, sim, events } = await daemonSetup();
    await openAttached(client, CHAR, 'new');
    sim.scriptTurns({ text: 'x', hold: true });
    const wake = client.wake(CHAR, { prompt: 'go' });
    await settle();
    expect(await daemonFailure(client.close(CHAR))).toMatchObject({ code: 'session_busy', retryable: true });
    sim.finishTurn();
    await wake;
    expect(await client.close(CHAR, { retainSession: true })).toBe(true);
    expect(sim.received.at(-1)).toMatchObject({ operation: 'close', payload: { retainSession: true } });
    expect(events.slice(-2).map((e) => e.event)).toEqual(['sessionDormant', 'sessionClosed']);
    expect(sim.session('npc-cleo')).toBeUndefined();
  });

  it('drain stops admission (open and wake) for good: host_draining afterwards, retryable on a successor', async () => {
    const { client } = await daemonSetup();
    await openAttached(client);
    expect(await client.drain({ timeoutMs: 1000 })).toEqual({ draining: true, timeoutMs: 1000, timedOut: false, abortedTurns: 0 });
    const error = await daemonFailure(client.wake(CHAR, { prompt: 'go' }));
    expect(error).toMatchObject({ code: 'host_draining', retryable: true });
    expect(error.message).toMatch(/^DaemonClient\.wake: the host refused wake with host_draining: host is draining; wake rejected \(.*successor.*\)$/);
    expect(await client.status()).toMatchObject({ draining: true, ready: false });
  });

  it("waits for drain's answer past the timeout it asks the host for, by its requestTimeoutMs", async () => {
    const { client, sim, clock } = await daemonSetup({}, { requestTimeoutMs: 1000 });
    await openAttached(client);
    sim.scriptTurns({ text: 'long', hold: true, partial: 'lo' });
    const wake = client.wake(CHAR, { prompt: 'go' });
    await settle();
    const drain = tracked(client.drain({ timeoutMs: 5000 }));
    await settle();
    expect(sim.received.at(-1)).toMatchObject({ operation: 'drain', payload: { timeoutMs: 5000 } });
    // Past requestTimeoutMs, and up to the host's own timeout, the client still waits.
    clock.advance(4999);
    await settle();
    expect(drain.settled).toBe(false);
    clock.advance(1);
    expect(await drain.promise).toEqual({ draining: true, timeoutMs: 5000, timedOut: true, abortedTurns: 1 });
    expect(await wake).toMatchObject({ result: { text: 'lo' } });
  });

  it("sends the host's default drain timeout when given none, and gives up only after it and requestTimeoutMs", async () => {
    const { client, sim, clock } = await daemonSetup({}, { requestTimeoutMs: 1000 });
    sim.holdNext('drain');
    const drain = tracked(client.drain());
    await settle();
    expect(sim.received.at(-1)).toMatchObject({ operation: 'drain', payload: { timeoutMs: DAEMON_DRAIN_TIMEOUT_MS } });
    clock.advance(DAEMON_DRAIN_TIMEOUT_MS + 999);
    await settle();
    expect(drain.settled).toBe(false);
    clock.advance(1);
    expect(await daemonFailure(drain.promise)).toMatchObject({ code: 'timeout', details: { operation: 'drain' } });
  });
});

describe('DaemonClient requests', () => {
  it('numbers request ids uniquely, across reconnections too', async () => {
    const clock = new ManualClock();
    const sim = new DaemonSimulator({ clock });
    const client = await DaemonClient.connect(sim.link(), { clock, reconnect: { connect: async () => sim.link(), baseDelayMs: 10 } });
    await client.status();
    sim.drop();
    await settle();
    clock.advance(10);
    await settle();
    await client.status();
    const ids = sim.received.map((r) => r['requestId']);
    expect(ids).toEqual(['r1', 'r2', 'r3', 'r4']);
  });

  it('refuses a command that breaks the schema, or is longer than a line may be, sending nothing', async () => {
    const { client, sim } = await daemonSetup();
    await openAttached(client);
    const before = sim.received.length;
    const empty = await daemonFailure(client.wake(CHAR, { prompt: '' }));
    expect(empty).toMatchObject({ code: 'invalid_request', retryable: false, details: { local: true, operation: 'wake' } });
    expect(empty.message).toContain('prompt');
    const huge = await daemonFailure(client.steer(CHAR, 'x'.repeat(1024 * 1024)));
    expect(huge.code).toBe('invalid_request');
    expect(sim.received.length).toBe(before);
  });

  it('bounds the requests waiting for answers', async () => {
    const { client, sim } = await daemonSetup({}, { maxPendingRequests: 2 });
    sim.holdNext('status');
    sim.holdNext('status');
    const held = [client.status(), client.status()];
    expect(await daemonFailure(client.status())).toMatchObject({ code: 'too_many_pending', retryable: true, details: { local: true } });
    client.disconnect('test over');
    for (const promise of held) expect(await daemonFailure(promise)).toMatchObject({ code: 'closed', retryable: false });
    expect(client.state).toBe('closed');
    expect(await daemonFailure(client.status())).toMatchObject({ code: 'closed', retryable: false });
  });

  it('times out a request with no answer on the injected clock', async () => {
    const { client, sim, clock } = await daemonSetup({}, { requestTimeoutMs: 500 });
    sim.holdNext('status');
    const status = tracked(client.status());
    clock.advance(499);
    await settle();
    expect(status.settled).toBe(false);
    clock.advance(1);
    const error = await daemonFailure(status.promise);
    expect(error).toMatchObject({ code: 'timeout', retryable: true });
    expect(error.message).toBe(
      'DaemonClient: no answer to status r2 within 500 ms (retry with the same idempotencyKey, or raise options.requestTimeoutMs / options.wakeTimeoutMs)',
    );
  });
});
