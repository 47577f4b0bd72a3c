// The gateway's daemon relay in front of the real pi-daemon 0.3.3 (`aicc gateway --daemon`): pages
// on WebSocket clients from 127.0.0.1, the daemon on its Unix socket, the stub model behind it.
// The key and the Origin at the door; a session's life through the relay; two pages kept apart on
// one daemon, on one gateway and on two; drain and the host-wide status for admin gateways only; and each malformed frame
// answered as the daemon itself answers the same line on its socket — asked of the daemon here,
// side by side, rather than written down from memory.

import { createConnection, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLOSE } from '../../../src/node/gateway/access.js';
import { startGateway, type Gateway } from '../../../src/node/gateway/server.js';
import { command, connectDaemonBrowser, responseTo } from '../../node/gateway/daemonHelpers.js';
import { KEY, ORIGIN, within, type BrowserClient, type Record_ } from '../../node/gateway/helpers.js';
import { startStubModel, userTexts, type StubModel } from '../stubModel.js';
import { describeWithRealDaemon, startRealDaemon, type RealDaemon } from './realDaemon.js';

const NONE = { extensions: 'none', skills: 'none', promptTemplates: 'none', themes: 'none', contextFiles: 'none', tools: 'none' };

describeWithRealDaemon('the gateway relaying to the real pi-daemon', () => {
  let stub: StubModel;
  let daemon: RealDaemon;
  let gateway: Gateway;
  const logs: string[] = [];
  const pages: BrowserClient[] = [];
  const gateways: Gateway[] = [];

  beforeAll(async () => {
    stub = await startStubModel({ fallbackReply: 'the stub says hello' });
    daemon = await startRealDaemon({ modelBaseUrl: stub.baseUrl });
    gateway = await gatewayFor(daemon);
  }, 240_000);

  afterAll(async () => {
    const closes = await Promise.all(pages.map((page) => (page.close(), within(page.closed, 'a page to close'))));
    for (const each of gateways) await each.close();
    await daemon?.dispose();
    await stub?.close();
    // The key reaches no page, close reason or log line.
    expect([...pages.flatMap((page) => page.frames), ...closes.map((close) => close.reason), ...logs].join('\n')).not.toContain(KEY);
  });

  async function gatewayFor(target: RealDaemon, admin = false): Promise<Gateway> {
    const started = await startGateway({
      target: { kind: 'daemon', socketPath: target.socket, admin },
      origins: [ORIGIN],
      key: KEY,
      log: (line) => logs.push(line),
    });
    gateways.push(started);
    return started;
  }

  function page(options: { on?: Gateway; origin?: string; key?: string } = {}): BrowserClient {
    const client = connectDaemonBrowser(`${(options.on ?? gateway).url}/`, {
      ...(options.origin !== undefined && { origin: options.origin }),
      ...(options.key !== undefined && { key: options.key }),
    });
    pages.push(client);
    return client;
  }

  let requests = 0;
  /** Sends a command and resolves with its answer. */
  async function ask(client: BrowserClient, operation: string, payload: Record_ = {}, extra: Record_ = {}, ms = 20_000): Promise<Record_> {
    const requestId = `r${++requests}`;
    client.send(command(requestId, operation, payload, extra));
    return responseTo(client, requestId, ms);
  }

  const open = (client: BrowserClient, sessionId: string, generation = 1): Promise<Record_> =>
    ask(client, 'open', { cwd: daemon.workDir, session: { mode: 'memory' }, resources: NONE }, { sessionId, generation });

  const hostSessions = (answer: Record_): string[] =>
    ((answer.data as { host: { sessions: Array<{ sessionId: string }> } }).host.sessions ?? []).map((session) => session.sessionId);

  it('admits the key from an allowed Origin, and closes a wrong key (4401) and a wrong Origin (4403) with nothing relayed', async () => {
    const right = page();
    const answer = await ask(right, 'handshake');
    expect(answer).toMatchObject({ ok: true, data: { supportedProtocolVersions: expect.arrayContaining(['2.0']) } });
    const wrongKey = page({ key: 'not-the-gateway-key-000000000000' });
    expect(await within(wrongKey.closed, 'the close')).toEqual({ code: CLOSE.badKey, reason: 'wrong gateway key' });
    const wrongOrigin = page({ origin: 'https://evil.example' });
    expect(await within(wrongOrigin.closed, 'the close')).toEqual({
      code: CLOSE.badOrigin,
      reason: "origin https://evil.example is not in the gateway's --origin list",
    });
    expect([...wrongKey.frames, ...wrongOrigin.frames]).toEqual([]);
    expect(logs.filter((line) => / refused \(440[13]\): /.test(line))).toHaveLength(2);
  });

  it('opens, attaches, wakes, steers, aborts and closes a session through the relay', async () => {
    const client = page();
    const ref = { sessionId: 'e2e-gw-life', generation: 1 };
    expect(await open(client, ref.sessionId)).toMatchObject({
      ok: true,
      sessionId: ref.sessionId,
      data: { created: true, session: { generation: 1, state: 'idle' } },
    });
    expect(await ask(client, 'attach', {}, ref)).toMatchObject({ ok: true, data: { attached: true, generation: 1 } });
    expect(await ask(client, 'status', {}, { sessionId: ref.sessionId })).toMatchObject({
      ok: true,
      data: { sessionId: ref.sessionId, generation: 1, state: 'idle' },
    });

    // A whole turn: the answer carries the stub's text, the events come first, in sequence.
    stub.script('Cleo looks around.');
    const woken = await ask(client, 'wake', { prompt: 'What do you see?' }, { ...ref, idempotencyKey: 'life-1' });
    expect(woken).toMatchObject({ ok: true, data: { result: { text: 'Cleo looks around.' } } });
    const events = client.records.filter((record) => record.kind === 'event');
    expect(events.map((event) => event.event)).toEqual(expect.arrayContaining(['promptAccepted', 'agentStart', 'messageUpdate', 'agentEnd', 'sessionIdle']));
    const sequences = events.map((event) => event.sequence as number);
    expect(sequences).toEqual(sequences.map((_, i) => sequences[0]! + i));

    // A slow turn, steered and then aborted while it streams.
    stub.script({ text: 'word '.repeat(200), chunkChars: 5, chunkDelayMs: 20 });
    const slow = `r${++requests}`;
    client.send(command(slow, 'wake', { prompt: 'Tell me a long story.' }, { ...ref, idempotencyKey: 'life-2' }));
    await client.waitFor(
      (record) => record.kind === 'event' && record.event === 'messageUpdate' && (record.sequence as number) > sequences.at(-1)!,
      'the slow turn to stream',
      20_000,
    );
    expect(await ask(client, 'steer', { message: 'Shorter, please.' }, { ...ref, idempotencyKey: 'life-steer' })).toMatchObject({
      ok: true,
      data: { queued: true },
    });
    expect(await ask(client, 'abort', {}, ref)).toMatchObject({ ok: true, data: { aborted: true } });
    const aborted = await responseTo(client, slow, 20_000);
    expect(aborted).toMatchObject({ ok: true });
    expect((aborted.data as { result: { text: string } }).result.text.length).toBeLessThan('word '.repeat(200).length);

    expect(await ask(client, 'close', {}, ref)).toMatchObject({ ok: true, data: { closed: true } });
    expect(await ask(client, 'status', {}, { sessionId: ref.sessionId })).toMatchObject({ ok: false, error: { code: 'session_not_found' } });
  }, 60_000);

  it("keeps two pages apart: the second can neither reach the first's session nor see it or its events", async () => {
    const first = page();
    const second = page();
    const ref = { sessionId: 'e2e-gw-first', generation: 1 };
    await open(first, ref.sessionId);
    await ask(first, 'attach', {}, ref);
    expect(await open(second, 'e2e-gw-second')).toMatchObject({ ok: true });

    const attempts: Array<[string, Record_, Record_]> = [
      ['attach', {}, ref],
      ['detach', {}, ref],
      ['status', {}, { sessionId: ref.sessionId }],
      ['wake', { prompt: 'Whose session is this?' }, { ...ref, idempotencyKey: 'intruder-1' }],
      ['steer', { message: 'Stop.' }, { ...ref, idempotencyKey: 'intruder-2' }],
      ['followUp', { message: 'Then.' }, { ...ref, idempotencyKey: 'intruder-3' }],
      ['abort', {}, ref],
      ['close', {}, ref],
    ];
    for (const [operation, payload, extra] of attempts) {
      expect(await ask(second, operation, payload, extra)).toMatchObject({
        ok: false,
        error: { code: 'denied_by_gateway', details: { rule: 'other_page', source: 'aicc-gateway' } },
      });
    }
    // Replacing it with a higher generation would end the first page's session: refused too.
    const replace = await ask(
      second,
      'open',
      { cwd: daemon.workDir, session: { mode: 'memory' }, resources: NONE },
      { sessionId: ref.sessionId, generation: 2 },
    );
    expect(replace).toMatchObject({ ok: false, error: { code: 'denied_by_gateway', details: { rule: 'other_page' } } });
    expect((replace.error as { message: string }).message).toMatch(/belongs to another page on this gateway; choose another sessionId/);

    // The first page's turn runs; its events reach the first page only. The second page's
    // handshake is sent after the turn's answer, so any event of the turn that the daemon sent the
    // second page's connection would have arrived before the handshake's answer.
    const woken = await ask(first, 'wake', { prompt: 'Hello?' }, { ...ref, idempotencyKey: 'first-1' });
    expect(woken).toMatchObject({ ok: true, data: { result: { text: 'the stub says hello' } } });
    expect(first.records.some((record) => record.kind === 'event' && record.event === 'sessionIdle')).toBe(true);
    const handshake = await ask(second, 'handshake');
    expect(second.records.filter((record) => record.kind !== 'response')).toEqual([]);
    // Each page's host snapshot lists its own sessions only.
    expect(hostSessions(handshake)).toEqual(['e2e-gw-second']);
    expect(hostSessions(await ask(first, 'handshake'))).toEqual([ref.sessionId]);
    // And the first page's session is untouched by all that.
    expect(await ask(first, 'status', {}, { sessionId: ref.sessionId })).toMatchObject({ ok: true, data: { generation: 1, state: 'idle' } });
  }, 60_000);

  it("keeps the pages of two gateways on one daemon apart: the second page's open, reads, wakes and close of the first page's session id reach a session of its own", async () => {
    const first = page();
    const second = page({ on: await gatewayFor(daemon) });
    const ref = { sessionId: 'e2e-gw-two', generation: 1 };
    expect(await open(first, ref.sessionId)).toMatchObject({ ok: true, sessionId: ref.sessionId, data: { created: true } });
    await ask(first, 'attach', {}, ref);
    stub.script('the first page hears');
    expect(await ask(first, 'wake', { prompt: 'FIRST PAGE SECRET' }, { ...ref, idempotencyKey: 'two-first-1' })).toMatchObject({
      ok: true,
      data: { result: { text: 'the first page hears' } },
    });
    const firstSequence = (await ask(first, 'status', {}, { sessionId: ref.sessionId })).data as { sequence: number };

    // Open: the same id and generation from the other gateway is a new session, not the first page's "there already".
    expect(await open(second, ref.sessionId)).toMatchObject({ ok: true, sessionId: ref.sessionId, data: { created: true, session: { generation: 1 } } });
    // Read: its status is of that new session, which has run no turn.
    const status = await ask(second, 'status', {}, { sessionId: ref.sessionId });
    expect(status).toMatchObject({ ok: true, data: { sessionId: ref.sessionId, generation: 1, state: 'idle' } });
    expect((status.data as { sequence: number }).sequence).toBeLessThan(firstSequence.sequence);
    // Wake: the model sees the second page's prompt alone, none of the first page's conversation.
    await ask(second, 'attach', {}, ref);
    const asked = stub.requests.length;
    stub.script('the second page hears');
    expect(await ask(second, 'wake', { prompt: 'SECOND PAGE' }, { ...ref, idempotencyKey: 'two-second-1' })).toMatchObject({ ok: true });
    expect(userTexts(stub.requests[asked]!)).toEqual(['SECOND PAGE']);
    // A higher generation replaces its own session; close closes that.
    expect(await open(second, ref.sessionId, 2)).toMatchObject({ ok: true, data: { created: true, session: { generation: 2 } } });
    expect(await ask(second, 'close', {}, { sessionId: ref.sessionId, generation: 2 })).toMatchObject({ ok: true, data: { closed: true } });
    expect(hostSessions(await ask(second, 'handshake'))).toEqual([]);

    // The first page's session is as it was: generation 1, idle, its conversation whole.
    expect(await ask(first, 'status', {}, { sessionId: ref.sessionId })).toMatchObject({ ok: true, data: { generation: 1, state: 'idle' } });
    const again = stub.requests.length;
    stub.script('the first page hears again');
    expect(await ask(first, 'wake', { prompt: 'FIRST PAGE AGAIN' }, { ...ref, idempotencyKey: 'two-first-2' })).toMatchObject({ ok: true });
    expect(userTexts(stub.requests[again]!)).toEqual(['FIRST PAGE SECRET', 'FIRST PAGE AGAIN']);
    expect(hostSessions(await ask(first, 'handshake'))).toEqual([ref.sessionId]);
    // Neither page saw the other's words, nor the namespace its session has on the daemon.
    expect(second.frames.join('\n')).not.toContain('FIRST PAGE');
    expect(first.frames.join('\n')).not.toContain('SECOND PAGE');
    expect([...first.frames, ...second.frames].join('\n')).not.toMatch(/gw-[0-9a-f]{16}:/);
  }, 60_000);

  it('frees the sessions of a page that leaves: a new connection opens one again, then uses it', async () => {
    const before = page();
    const ref = { sessionId: 'e2e-gw-return', generation: 1 };
    await open(before, ref.sessionId);
    const after = page();
    expect(await ask(after, 'attach', {}, ref)).toMatchObject({ ok: false, error: { details: { rule: 'other_page' } } });
    before.close();
    await within(before.closed, 'the first connection to end');
    // The gateway sees the close soon after the page does; until then the session is not free.
    let reopened = await open(after, ref.sessionId);
    for (let tries = 1; reopened.ok !== true && tries < 100; tries++) reopened = await open(after, ref.sessionId);
    // The same generation and policy: the daemon's own session, kept, not a new one.
    expect(reopened).toMatchObject({ data: { created: false, session: { generation: 1 } } });
    expect(await ask(after, 'attach', {}, ref)).toMatchObject({ ok: true, data: { attached: true } });
    expect(await ask(after, 'wake', { prompt: 'Back again.' }, { ...ref, idempotencyKey: 'return-1' })).toMatchObject({ ok: true });
  }, 60_000);

  it('refuses drain and the host-wide status without --daemon-admin; an admin gateway passes both, and drain stops that daemon for good', async () => {
    // A daemon of its own: drain does not come back.
    const own = await startRealDaemon({ modelBaseUrl: stub.baseUrl });
    try {
      const plain = page({ on: await gatewayFor(own) });
      expect(await ask(plain, 'status')).toMatchObject({ ok: false, error: { code: 'denied_by_gateway', details: { rule: 'admin_only' } } });
      const drain = await ask(plain, 'drain', { timeoutMs: 1000 });
      expect(drain).toMatchObject({ ok: false, error: { code: 'denied_by_gateway', details: { rule: 'admin_only' } } });
      expect((drain.error as { message: string }).message).toContain('--daemon-admin');
      // Refused by the gateway, so the daemon still takes work.
      expect(
        await ask(plain, 'open', { cwd: own.workDir, session: { mode: 'memory' }, resources: NONE }, { sessionId: 'e2e-gw-plain', generation: 1 }),
      ).toMatchObject({ ok: true });

      const admin = page({ on: await gatewayFor(own, true) });
      const status = await ask(admin, 'status');
      expect(status).toMatchObject({ ok: true, data: { draining: false } });
      // The session of a page on the other gateway, named as the daemon knows it: that gateway's namespace, then the page's id.
      expect(hostSessions({ data: { host: status.data } })).toEqual([expect.stringMatching(/^gw-[0-9a-f]{16}:e2e-gw-plain$/)]);
      expect(await ask(admin, 'drain', { timeoutMs: 1000 })).toMatchObject({ ok: true, data: { draining: true } });
      expect(
        await ask(plain, 'open', { cwd: own.workDir, session: { mode: 'memory' }, resources: NONE }, { sessionId: 'e2e-gw-late', generation: 1 }),
      ).toMatchObject({ ok: false, error: { code: 'host_draining' } });
    } finally {
      await own.dispose();
    }
  }, 120_000);

  /** A raw connection to the daemon's own socket: the reference answers. */
  async function daemonLine(line: string | Buffer): Promise<{ answer: Record_; stays: boolean }> {
    const socket: Socket = createConnection({ path: daemon.socket });
    const lines: string[] = [];
    let pending = '';
    // The daemon ends its side and stops reading: with a long line still being written, only 'end' comes.
    const closed = new Promise<void>((resolve) => (socket.on('end', () => resolve()), socket.on('close', () => resolve())));
    socket.on('error', () => {});
    const got = new Promise<void>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        pending += chunk.toString('utf8');
        for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n')) {
          lines.push(pending.slice(0, at));
          pending = pending.slice(at + 1);
          resolve();
        }
      });
    });
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(Buffer.concat([Buffer.isBuffer(line) ? line : Buffer.from(line, 'utf8'), Buffer.from('\n')]));
    await within(got, "the daemon's answer", 10_000);
    // Whether it stays: a handshake after it is answered, or the socket ends first.
    socket.write(`${JSON.stringify(command('after', 'handshake'))}\n`);
    const stays = await within(
      Promise.race([
        closed.then(() => false),
        new Promise<boolean>((resolve) => socket.on('data', () => lines.some((l) => l.includes('"requestId":"after"')) && resolve(true))),
      ]),
      'the daemon to answer or close',
      10_000,
    );
    socket.destroy();
    return { answer: JSON.parse(lines[0]!) as Record_, stays };
  }

  /** The same through the gateway: its answer, and whether the connection stays (with its close code if not). */
  async function gatewayFrame(frame: string | Buffer): Promise<{ answer: Record_; stays: boolean; close?: number }> {
    const client = page();
    await within(client.opened, 'the page to open');
    if (typeof frame === 'string') client.send(frame);
    else client.socket.send(frame, { binary: false });
    const answer = await client.waitFor((record) => record.kind === 'response', "the gateway's answer", 10_000);
    client.send(command('after', 'handshake'));
    const outcome = await within(
      Promise.race([
        client.closed.then((close) => close.code),
        client.waitFor((record) => record.requestId === 'after', 'the handshake after', 10_000).then(() => undefined),
      ]),
      'the gateway to answer or close',
      10_000,
    );
    return outcome === undefined ? { answer, stays: true } : { answer, stays: false, close: outcome };
  }

  const MIB = 1024 * 1024;
  const padded = (bytes: number): string => {
    const empty = JSON.stringify(command('big', 'handshake', { pad: '' }));
    return JSON.stringify(command('big', 'handshake', { pad: 'x'.repeat(bytes - empty.length) }));
  };

  it.each([
    ['a JSON array', '[{"operation":"handshake"}]', undefined],
    ['a JSON string', '"handshake"', undefined],
    ['JSON null', 'null', undefined],
    ['a JSON number', '42', undefined],
    ['text that is not JSON', '{"requestId":"r1", oops}', CLOSE.badRequest],
    ['blank text', '   ', CLOSE.badRequest],
    ['a line one byte over the 1 MiB limit', padded(MIB + 1), CLOSE.tooBig],
    ['a message over twice the line limit', padded(2 * MIB + 10), CLOSE.tooBig],
    ['text that is not UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), 1007],
  ])(
    "answers %s as the daemon answers the same line: the daemon's code, retryable, details, and whether the connection stays",
    async (_what, frame, close) => {
      const [direct, relayed] = [await daemonLine(frame), await gatewayFrame(frame)];
      const error = (answer: Record_): Record_ => answer.error as Record_;
      expect(error(relayed.answer).code).toBe(error(direct.answer).code);
      expect(error(relayed.answer).retryable).toBe(error(direct.answer).retryable);
      expect(relayed.answer).toMatchObject({ kind: 'response', ok: false, hostInstanceId: expect.any(String) });
      expect(error(relayed.answer).message).toMatch(/^aicc gateway: /);
      // The daemon's details (the field, the line limit), beside the gateway's own source.
      const { actualBytes: _gatewayCount, ...relayedDetails } = (error(relayed.answer).details ?? {}) as Record_;
      const { actualBytes: _daemonCount, ...directDetails } = (error(direct.answer).details ?? {}) as Record_;
      expect(relayedDetails).toEqual({ ...directDetails, source: 'aicc-gateway' });
      expect(relayed.stays).toBe(direct.stays);
      expect(relayed.close).toBe(close);
    },
    30_000,
  );

  it('answers an empty frame with nothing, as the daemon an empty line, and keeps the connection', async () => {
    const client = page();
    client.send('');
    const answer = await ask(client, 'handshake');
    expect(answer).toMatchObject({ ok: true });
    expect(client.records).toEqual([answer]);
  });
});
