// DaemonClient against the real pi-daemon 0.3.3 (issue #15): the codes the host sends, each
// provoked and pinned with its retryable flag (they came as unknown_error before); error answers the
// host marks "1.0" (connection_busy); drain's answer, which comes at the timeout the client asked
// for; and the stream of an evicted durable session that another client reopens at its generation,
// numbered from 1 again, which the client took for duplicates.

import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectSocketLink } from '../../../src/node/socketLink.js';
import {
  DaemonClient,
  DaemonError,
  type DaemonClientOptions,
  type DaemonEvent,
  type OpenOptions,
  type SessionRef,
  type StreamReport,
} from '../../../src/pi/index.js';
import { startStubModel, type StubModel } from '../stubModel.js';
import { describeWithRealDaemon, startRealDaemon, type RealDaemon } from './realDaemon.js';

/** A reply slow enough to act while its turn runs (it is aborted long before it ends). */
const SLOW = { text: 'a reply that takes its time to come, one letter after another', chunkChars: 1, chunkDelayMs: 100 };

async function connect(daemon: RealDaemon, options: DaemonClientOptions = {}): Promise<DaemonClient> {
  return DaemonClient.connect(await connectSocketLink(daemon.socket), options);
}

/** The DaemonError a call rejects with (it must reject). */
async function refusal(call: Promise<unknown>): Promise<DaemonError> {
  const error = await call.then(
    () => new Error('expected a refusal, the call succeeded'),
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(DaemonError);
  return error as DaemonError;
}

/** Resolves with the first event `match` takes (bounded: the test's own timeout ends a wait that never ends). */
function nextEvent(client: DaemonClient, match: (event: DaemonEvent) => boolean): Promise<DaemonEvent> {
  return new Promise((resolve) => {
    const off = client.on('event', (event) => {
      if (!match(event)) return;
      off();
      resolve(event);
    });
  });
}

describeWithRealDaemon('DaemonClient and the codes the real pi-daemon sends', () => {
  let stub: StubModel;
  let daemon: RealDaemon;
  let client: DaemonClient;
  let memory: OpenOptions;
  const refs: SessionRef[] = [];
  let n = 0;
  /** A session of its own for each case. */
  const fresh = (): SessionRef => {
    const ref = { sessionId: `case-${++n}`, generation: 1 };
    refs.push(ref);
    return ref;
  };

  beforeAll(async () => {
    stub = await startStubModel({ fallbackReply: 'ok' });
    daemon = await startRealDaemon({ modelBaseUrl: stub.baseUrl, args: ['--max-sessions', '4'] });
    client = await connect(daemon);
    memory = { cwd: daemon.workDir, session: { mode: 'memory' } };
  }, 240_000);

  afterAll(async () => {
    client?.disconnect('test over');
    await daemon?.dispose();
    await stub?.close();
  });

  /** Sessions left open count against --max-sessions: each case deletes its own. */
  async function cleanUp(): Promise<void> {
    for (const ref of refs.splice(0)) await client.close(ref, { retainSession: false }).catch(() => false);
  }

  it('refuses where a session may work, and keep its files: cwd_not_allowed, cwd_not_directory, open_failed, authority_root_overlap', async () => {
    const file = join(daemon.workDir, 'a-file');
    writeFileSync(file, 'not a folder');
    const cases: Array<[string, OpenOptions]> = [
      ['cwd_not_allowed', { ...memory, cwd: dirname(daemon.workDir) }],
      ['cwd_not_directory', { ...memory, cwd: file }],
      // The cwd does not exist: pi-daemon's generic refusal, the cause in its details.
      ['open_failed', { ...memory, cwd: join(daemon.workDir, 'missing') }],
      ['authority_root_overlap', { cwd: daemon.workDir, session: { mode: 'new', sessionDir: join(daemon.workDir, 'sessions') } }],
    ];
    for (const [code, options] of cases) {
      const error = await refusal(client.open(fresh(), options));
      expect({ code: error.code, retryable: error.retryable, wireCode: error.details.wireCode }, code).toEqual({ code, retryable: false, wireCode: undefined });
    }
    await cleanUp();
  }, 30_000);

  it('refuses models it cannot use: model_unavailable, model_auth_unavailable', async () => {
    const unknown = await refusal(client.open(fresh(), { ...memory, model: { provider: 'nowhere', id: 'nothing' } }));
    expect(unknown).toMatchObject({ code: 'model_unavailable', retryable: false });
    // A model pi's own catalog has, for a provider the host holds no key for.
    const keyless = await refusal(client.open(fresh(), { ...memory, model: { provider: 'anthropic', id: 'claude-opus-4-7' } }));
    expect(keyless).toMatchObject({ code: 'model_auth_unavailable', retryable: false });
    expect(keyless.message).toContain('authentication is not configured for provider: anthropic');
    await cleanUp();
  }, 30_000);

  it('refuses a name in use: session_name_conflict', async () => {
    await client.open(fresh(), { ...memory, name: 'cleo' });
    const error = await refusal(client.open(fresh(), { ...memory, name: 'cleo' }));
    expect(error).toMatchObject({ code: 'session_name_conflict', retryable: false, details: { host: { name: 'cleo' } } });
    await cleanUp();
  }, 30_000);

  it('refuses a closed memory session at its generation (ephemeral_session_unavailable), and a ticket for one (durable_admission_unavailable)', async () => {
    const ref = fresh();
    await client.open(ref, memory);
    const ticket = await refusal(client.wake(ref, { prompt: 'later', waitForTerminal: false }));
    expect(ticket).toMatchObject({ code: 'durable_admission_unavailable', retryable: false });
    expect(await client.close(ref)).toBe(true);
    expect(await refusal(client.open(ref, memory))).toMatchObject({ code: 'ephemeral_session_unavailable', retryable: false });
    // The next generation opens.
    expect(await client.open({ ...ref, generation: 2 }, memory)).toMatchObject({ created: true });
    refs.push({ ...ref, generation: 2 });
    await cleanUp();
  }, 30_000);

  it('says steer while idle is session_not_running, retryable; and stale_generation, session_policy_conflict, session_not_found, idempotency_conflict as before', async () => {
    const ref = fresh();
    await client.open(ref, memory);
    expect(await refusal(client.steer(ref, 'now'))).toMatchObject({ code: 'session_not_running', retryable: true, details: { host: { state: 'idle' } } });
    expect(await refusal(client.open({ ...ref, generation: 0 }, memory))).toMatchObject({ code: 'stale_generation', retryable: false });
    expect(await refusal(client.open(ref, { ...memory, systemPrompt: 'another' }))).toMatchObject({ code: 'session_policy_conflict', retryable: false });
    expect(await refusal(client.attach({ sessionId: 'nobody', generation: 1 }))).toMatchObject({ code: 'session_not_found', retryable: false });
    const durable = fresh();
    await client.open(durable, { cwd: daemon.workDir, session: { mode: 'new' } });
    await client.wake(durable, { prompt: 'one', idempotencyKey: 'k1' });
    expect(await refusal(client.wake(durable, { prompt: 'two', idempotencyKey: 'k1' }))).toMatchObject({ code: 'idempotency_conflict', retryable: false });
    await cleanUp();
  }, 30_000);

  it('refuses to close or replace a session with a turn running (session_busy, retryable), and past --max-sessions (session_capacity, retryable)', async () => {
    const ref = fresh();
    await client.open(ref, memory);
    stub.script(SLOW);
    const started = stub.requests.length;
    const running = client.wake(ref, { prompt: 'slowly' });
    await stub.waitForRequests(started + 1);
    expect(await refusal(client.close(ref))).toMatchObject({ code: 'session_busy', retryable: true });
    expect(await refusal(client.open({ ...ref, generation: 2 }, memory))).toMatchObject({ code: 'session_busy', retryable: true });
    expect(await client.abort(ref)).toBe(true);
    expect(await running).toMatchObject({ terminal: true });
    // Three more fill the host's four.
    for (let i = 0; i < 3; i++) await client.open(fresh(), memory);
    expect(await refusal(client.open(fresh(), memory))).toMatchObject({ code: 'session_capacity', retryable: true, details: { host: { maxSessions: 4 } } });
    await cleanUp();
  }, 30_000);
});

describeWithRealDaemon('DaemonClient, a busy connection and a drain on the real pi-daemon', () => {
  let stub: StubModel;
  let daemon: RealDaemon;
  const clients: DaemonClient[] = [];

  beforeAll(async () => {
    stub = await startStubModel({ fallbackReply: 'ok' });
    // One request at a time on a connection: a second one while a wake waits is connection_busy.
    daemon = await startRealDaemon({ modelBaseUrl: stub.baseUrl, args: ['--max-in-flight-requests-per-connection', '1'] });
  }, 240_000);

  afterAll(async () => {
    for (const client of clients) client.disconnect('test over');
    await daemon?.dispose();
    await stub?.close();
  });

  async function client(options: DaemonClientOptions = {}): Promise<DaemonClient> {
    const made = await connect(daemon, options);
    clients.push(made);
    return made;
  }

  it('reads connection_busy, which the host marks protocolVersion "1.0", as a retryable connection_busy', async () => {
    const busy = await client();
    const ref = { sessionId: 'busy', generation: 1 };
    await busy.open(ref, { cwd: daemon.workDir, session: { mode: 'memory' } });
    stub.script(SLOW);
    const started = stub.requests.length;
    const running = busy.wake(ref, { prompt: 'slowly' });
    await stub.waitForRequests(started + 1);
    const problems: unknown[] = [];
    busy.on('problem', (problem) => problems.push(problem));
    const error = await refusal(busy.status());
    expect(error).toMatchObject({ code: 'connection_busy', retryable: true });
    expect(problems).toEqual([]);
    // Another connection is not busy: abort from there.
    expect(await (await client()).abort(ref)).toBe(true);
    expect(await running).toMatchObject({ terminal: true });
    expect(await busy.status()).toMatchObject({ ready: true });
  }, 30_000);

  it("waits for drain's answer past its request timeout, up to the timeout it asked the host for: turns aborted, a queued wake aborted (retryable)", async () => {
    const [first, second] = [await client(), await client()];
    const ref = { sessionId: 'drained', generation: 1 };
    await first.open(ref, { cwd: daemon.workDir, session: { mode: 'memory' } });
    await first.attach(ref);
    stub.script(SLOW);
    const started = stub.requests.length;
    const running = first.wake(ref, { prompt: 'slowly' });
    await stub.waitForRequests(started + 1);
    const admitted = nextEvent(first, (e) => e.event === 'promptAccepted' && (e.data as { queuedTurns?: number }).queuedTurns === 1);
    const queued = refusal(second.wake(ref, { prompt: 'after you' }));
    await admitted;
    // The host answers drain after 1500 ms; this client gives any answer only 300 ms.
    const drainer = await client({ requestTimeoutMs: 300 });
    const asked = Date.now();
    expect(await drainer.drain({ timeoutMs: 1500 })).toEqual({ draining: true, timeoutMs: 1500, timedOut: true, abortedTurns: 2 });
    expect(Date.now() - asked).toBeGreaterThanOrEqual(1400);
    expect(await running).toMatchObject({ terminal: true, result: { text: expect.any(String) } });
    expect(await queued).toMatchObject({ code: 'aborted', retryable: true });
    // Admission is over, for good: host_draining, retryable (on the host that follows).
    expect(await refusal(drainer.open({ sessionId: 'late', generation: 1 }, { cwd: daemon.workDir, session: { mode: 'memory' } }))).toMatchObject({
      code: 'host_draining',
      retryable: true,
    });
    expect(await drainer.status()).toMatchObject({ draining: true, ready: false });
  }, 30_000);
});

describeWithRealDaemon('DaemonClient and an evicted durable session reopened at its generation on the real pi-daemon', () => {
  let stub: StubModel;
  let daemon: RealDaemon;
  const clients: DaemonClient[] = [];

  beforeAll(async () => {
    stub = await startStubModel({ fallbackReply: 'welcome back' });
    // Idle sessions are evicted after 400 ms (the host sweeps as often).
    daemon = await startRealDaemon({ modelBaseUrl: stub.baseUrl, idleSessionTtlMs: 400 });
  }, 240_000);

  afterAll(async () => {
    for (const client of clients) client.disconnect('test over');
    await daemon?.dispose();
    await stub?.close();
  });

  it('delivers the successor stream, numbered from 1 again, to the old subscriber: none of it taken for duplicates', async () => {
    const ref = { sessionId: 'cleo', generation: 1 };
    const durable: OpenOptions = { cwd: daemon.workDir, session: { mode: 'new' } };
    const old = await connect(daemon);
    clients.push(old);
    const events: DaemonEvent[] = [];
    const reports: StreamReport[] = [];
    old.on('event', (event) => events.push(event));
    old.on('stream', (report) => reports.push(report));
    await old.open(ref, durable);
    await old.attach(ref);
    await nextEvent(old, (e) => e.event === 'sessionEvicted');
    expect(events.map((e) => [e.event, e.sequence])).toEqual([
      ['sessionDormant', 2],
      ['sessionEvicted', 3],
    ]);
    expect(events[0]!.data).toEqual({ reason: 'idle_eviction' });
    // The host keeps the subscription, though the session is not open to attach to.
    expect(await refusal(old.attach(ref))).toMatchObject({ code: 'session_not_found' });

    const other = await connect(daemon);
    clients.push(other);
    const idle = nextEvent(old, (e) => e.event === 'sessionIdle');
    expect(await other.open(ref, durable)).toMatchObject({ created: true, session: { generation: 1, sequence: 1 } });
    const answer = await other.wake(ref, { prompt: 'are you there?' });
    expect(answer).toMatchObject({ terminal: true, result: { text: 'welcome back' } });
    expect((await idle).requestId).toBe(answer.requestId);
    const successor = events.slice(2);
    expect(successor[0]).toMatchObject({ event: 'opened', sequence: 1, generation: 1 });
    expect(successor.map((e) => e.sequence)).toEqual(successor.map((_, i) => i + 1));
    expect(successor.at(-1)).toMatchObject({ event: 'sessionIdle', sequence: answer.terminal ? (answer.session as { sequence: number }).sequence : -1 });
    expect(reports).toEqual([]);
  }, 30_000);
});
