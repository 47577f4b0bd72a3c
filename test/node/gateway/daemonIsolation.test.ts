// Pages on one gateway share a pi daemon; each reaches only the sessions its own connection opened
// (src/node/gateway/daemonIsolation.ts, sessionOwners.ts), and the pages of two gateways on one
// daemon stay apart by each gateway's namespace. Against the fake daemon here, which answers
// everything, and the daemon simulator for two gateways; test/e2e/daemon/gatewayRelay.test.ts runs
// the same rules against the real one.

import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { filterHostSnapshot, fromDaemon, toDaemon } from '../../../src/node/gateway/daemonIsolation.js';
import { DAEMON_MAX_IN_FLIGHT, type DaemonRelayOptions } from '../../../src/node/gateway/daemonRelay.js';
import { startGateway, type Gateway } from '../../../src/node/gateway/server.js';
import { MAX_SESSIONS_PER_PAGE, SessionOwners } from '../../../src/node/gateway/sessionOwners.js';
import { DaemonSimulator } from '../../pi/daemonSimulator.js';
import { command, connectDaemonBrowser, openCommand, refusal, responseTo, startFakeDaemon, type FakeDaemon } from './daemonHelpers.js';
import { KEY, ORIGIN, tempDir, within, type BrowserClient, type Record_ } from './helpers.js';

describe('SessionOwners', () => {
  it('gives a session to the page whose open succeeds, and frees it when that page leaves', () => {
    const owners = new SessionOwners();
    expect(owners.standing('s', 1)).toBe('free');
    owners.opening('s', 1);
    expect([owners.standing('s', 1), owners.standing('s', 2)]).toEqual(['opening', 'taken']);
    owners.opened('s', 1, true);
    expect([owners.standing('s', 1), owners.standing('s', 2)]).toEqual(['owned', 'taken']);
    expect(owners.owned(1)).toEqual(new Set(['s']));
    owners.release(1);
    expect([owners.standing('s', 1), owners.standing('s', 2), owners.count(1)]).toEqual(['free', 'free', 0]);
  });

  it('frees a session whose first opens all failed, and keeps one an open succeeded for', () => {
    const owners = new SessionOwners();
    owners.opening('s', 1);
    owners.opening('s', 1);
    owners.opened('s', 1, false);
    expect(owners.standing('s', 1)).toBe('opening');
    owners.opened('s', 1, false);
    expect(owners.standing('s', 1)).toBe('free');
    owners.opening('t', 1);
    owners.opened('t', 1, true);
    // A later open of its own that fails (a busy session, a stale generation) leaves it the page's.
    owners.opening('t', 1);
    owners.opened('t', 1, false);
    expect(owners.standing('t', 1)).toBe('owned');
  });

  it('draws a namespace of its own for each gateway, and takes only one shaped as the relay needs it', () => {
    const namespaces = new Set(Array.from({ length: 8 }, () => new SessionOwners().namespace));
    expect(namespaces.size).toBe(8);
    for (const namespace of namespaces) expect(namespace).toMatch(/^gw-[0-9a-f]{16}:$/);
    expect(new SessionOwners('gw-test:').namespace).toBe('gw-test:');
    for (const bad of ['', 'gw-:', 'gw-Test:', 'aicc:', 'gw-a"b:', 'gw-test']) expect(() => new SessionOwners(bad)).toThrow(/^SessionOwners: namespace /);
  });

  it("will not hand one page's session to another", () => {
    const owners = new SessionOwners();
    owners.opening('s', 1);
    expect(() => owners.opening('s', 2)).toThrow('SessionOwners.opening: session "s" belongs to page #1, not #2; check standing() first');
    owners.opened('s', 2, true);
    expect(owners.standing('s', 2)).toBe('taken');
  });
});

describe('filterHostSnapshot', () => {
  const handshake = (host: unknown): string =>
    JSON.stringify({
      protocolVersion: '2.0',
      kind: 'response',
      requestId: 'h',
      hostInstanceId: 'host',
      ok: true,
      data: { supportedProtocolVersions: ['2.0'], host },
    });

  it("keeps only the page's own sessions in data.host, and its counts", () => {
    const line = handshake({
      hostInstanceId: 'host',
      retainedSessions: 3,
      sessions: [{ sessionId: 'mine', state: 'idle' }, { sessionId: 'theirs', state: 'running' }, 'odd'],
      recovery: { quarantinedSessions: ['theirs', { sessionId: 'mine' }] },
    });
    const host = (JSON.parse(filterHostSnapshot(line, new Set(['mine']))) as { data: { host: Record_ } }).data.host;
    expect(host).toEqual({
      hostInstanceId: 'host',
      retainedSessions: 3,
      sessions: [{ sessionId: 'mine', state: 'idle' }],
      recovery: { quarantinedSessions: [{ sessionId: 'mine' }] },
    });
  });

  it('leaves a line with nothing to cut byte for byte', () => {
    const line = handshake({ hostInstanceId: 'host', sessions: [{ sessionId: 'mine' }] }).replace(':', ' : ');
    expect(filterHostSnapshot(line, new Set(['mine']))).toBe(line);
    expect(filterHostSnapshot('{"kind":"response","data":{}}', new Set())).toBe('{"kind":"response","data":{}}');
    expect(filterHostSnapshot('{oops', new Set())).toBe('{oops');
  });
});

describe('the namespace on the way to the daemon and back', () => {
  const NS = 'gw-test:';
  const to = (line: string): string => toDaemon(line, JSON.parse(line) as Record_, NS);

  it("puts it in front of the sessionId of a command that names a session, and changes nothing else of the page's bytes", () => {
    const odd =
      '{ "requestId":"r1" , "note":"\\"sessionId\\":\\"n\\" \\\\", "sessionId" :  "cl\\"eo\\u00e9", "operation":"wake","payload":{"sessionId":"inner","prompt":"say \\"sessionId\\":\\"x\\""},"generation":1}';
    expect(to(odd)).toBe(odd.replace('"sessionId" :  "cl', `"sessionId" :  "${NS}cl`));
    for (const operation of ['open', 'status', 'wake', 'steer', 'followUp', 'abort', 'attach', 'detach', 'close']) {
      expect(to(JSON.stringify(command('r', operation, {}, { sessionId: 's' })))).toContain(`"sessionId":"${NS}s"`);
    }
  });

  it('reaches every top-level sessionId member, as JSON reads it: a duplicate, or a name written with escapes', () => {
    expect(to('{"operation":"attach","sessionId":"a","generation":1,"sessionId":"b"}')).toBe(
      `{"operation":"attach","sessionId":"${NS}a","generation":1,"sessionId":"${NS}b"}`,
    );
    expect(to('{"operation":"attach","session\\u0049d":"a"}')).toBe(`{"operation":"attach","session\\u0049d":"${NS}a"}`);
    // Names in nested objects, arrays or string values are no member of the command.
    const nested = '{"operation":"open","payload":{"x":[{"sessionId":"n"}],"sessionId":"p"},"sessionId":"s","tail":{"sessionId":"t"}}';
    expect(to(nested)).toBe(nested.replace('"sessionId":"s"', `"sessionId":"${NS}s"`));
  });

  it('leaves a command that names no session, or no string one, byte for byte', () => {
    for (const line of [
      '{"operation":"handshake","sessionId":"s"}',
      '{"operation":"drain","sessionId":"s"}',
      '{"operation":"subscribeAll","sessionId":"s"}',
      '{"operation":"status"}',
      '{"operation":"attach","sessionId":42}',
      '{"operation":"attach","sessionId":null}',
      '{"sessionId":"s"}',
    ])
      expect(to(line)).toBe(line);
  });

  it('takes it out of whatever the daemon sends back, and leaves a line without it byte for byte', () => {
    const event = `{"kind":"event","sessionId":"${NS}s","data":{"session":{"sessionId":"${NS}s"},"message":"session ${NS}s is busy"}}`;
    expect(fromDaemon(event, NS)).toBe('{"kind":"event","sessionId":"s","data":{"session":{"sessionId":"s"},"message":"session s is busy"}}');
    const other = '{"kind":"response" ,"data":{"sessions":[{"sessionId":"gw-other:s"}]}}';
    expect(fromDaemon(other, NS)).toBe(other);
    // Whatever stands around it in a string, what is left is the same JSON but for it.
    for (const around of ['\\\\', '\\u00e9', '\\u001f', '\\"', 'é']) {
      const line = JSON.stringify({ text: `${JSON.parse(`"${around}"`) as string}${NS}x${JSON.parse(`"${around}"`) as string}` });
      expect(JSON.parse(fromDaemon(line, NS))).toEqual({ text: `${JSON.parse(`"${around}"`) as string}x${JSON.parse(`"${around}"`) as string}` });
    }
  });
});

const NONE = { extensions: 'none', skills: 'none', promptTemplates: 'none', themes: 'none', contextFiles: 'none', tools: 'none' };

let dir: ReturnType<typeof tempDir>;
let daemon: FakeDaemon;
let gateway: Gateway;
let clients: BrowserClient[];

async function start(target: Partial<DaemonRelayOptions> = {}): Promise<void> {
  await gateway?.close();
  gateway = await startGateway({ target: { kind: 'daemon', socketPath: daemon.path, ...target }, origins: [ORIGIN], key: KEY });
}

function page(): BrowserClient {
  const client = connectDaemonBrowser(`${gateway.url}/`);
  clients.push(client);
  return client;
}

async function ask(client: BrowserClient, record: Record_ & { requestId: string }): Promise<Record_> {
  client.send(record);
  return responseTo(client, record.requestId);
}

/** The requestIds that reached the daemon, in order. */
const forwarded = (): string[] => daemon.lines.map((line) => (JSON.parse(line) as { requestId: string }).requestId);

/** The gateway's namespace, read off the sessionId that request `requestId` (naming `sessionId`) had at the daemon. */
function namespaceOf(requestId: string, sessionId: string): string {
  const line = daemon.lines.map((each) => JSON.parse(each) as Record_).find((record) => record.requestId === requestId);
  const id = String(line?.sessionId);
  expect(id).toMatch(/^gw-[0-9a-f]{16}:/);
  expect(id.endsWith(`:${sessionId}`)).toBe(true);
  return id.slice(0, id.length - sessionId.length);
}

/** A denied_by_gateway answer (under the gateway's hostInstanceId until the page has had a record from the daemon). */
const denied = (requestId: string, rule: string, message: string, hostInstanceId = 'aicc-gateway'): Record_ =>
  refusal('denied_by_gateway', message, { requestId, hostInstanceId, details: { rule } });

const USES: Array<[string, Record_]> = [
  ['attach', {}],
  ['detach', {}],
  ['wake', { prompt: 'hello' }],
  ['steer', { message: 'run' }],
  ['followUp', { message: 'then' }],
  ['abort', {}],
  ['close', {}],
  ['status', {}],
];
const use = (operation: string, payload: Record_, requestId: string, sessionId = 's'): Record_ & { requestId: string } =>
  command(requestId, operation, payload, {
    sessionId,
    generation: 1,
    ...(operation === 'wake' || operation === 'steer' || operation === 'followUp' ? { idempotencyKey: `k-${requestId}` } : {}),
  });

beforeEach(async () => {
  dir = tempDir('aicc-daemon-iso-');
  clients = [];
  daemon = await startFakeDaemon(join(dir.path, 'daemon.sock'));
  gateway = undefined as unknown as Gateway;
  await start();
});

afterEach(async () => {
  await Promise.all(clients.map((client) => (client.close(), within(client.closed, 'a client to close'))));
  await gateway.close();
  await daemon.close();
  dir.remove();
});

describe('daemon mode: each page reaches only the sessions its connection opened', () => {
  it('lets the page that opened a session use it, and refuses every use of it to another page', async () => {
    const one = page();
    const two = page();
    expect(await ask(one, openCommand('one-open', 's'))).toMatchObject({ ok: true });
    for (const [operation, payload] of USES) expect(await ask(one, use(operation, payload, `one-${operation}`))).toMatchObject({ ok: true });
    for (const [operation, payload] of USES) {
      expect(await ask(two, use(operation, payload, `two-${operation}`))).toEqual(
        denied(
          `two-${operation}`,
          'other_page',
          'session "s" belongs to another page on this gateway; a page reaches only the sessions its own connection opened',
        ),
      );
    }
    // Nor may it open the session again, at any generation: a higher one would replace it.
    for (const generation of [1, 2]) {
      expect(await ask(two, openCommand(`two-open-${generation}`, 's', generation))).toEqual(
        denied(
          `two-open-${generation}`,
          'other_page',
          'session "s" belongs to another page on this gateway; choose another sessionId (a session belongs to the page connection that opened it, until that connection ends)',
        ),
      );
    }
    expect(forwarded()).toEqual(['one-open', ...USES.map(([operation]) => `one-${operation}`)]);
  });

  it('refuses a session this connection has not opened, saying to open it first', async () => {
    const client = page();
    expect(await ask(client, use('attach', {}, 'a1', 'nobodys'))).toEqual(
      denied(
        'a1',
        'not_opened',
        'this page connection has not opened session "nobodys"; open it first (a page reaches only the sessions its own connection opened; after a reconnect, open them again)',
      ),
    );
    expect(daemon.lines).toEqual([]);
  });

  it('refuses a use before the daemon has answered the open, and allows it after', async () => {
    const client = page();
    await ask(client, command('h', 'handshake'));
    daemon.answer = false;
    client.send(openCommand('o1', 's'));
    await daemon.waitForLines(2);
    expect(await ask(client, use('attach', {}, 'early'))).toEqual(
      denied('early', 'opening', 'attach of session "s" before the daemon answered this page\'s open of it; wait for the open\'s answer', 'fake-host'),
    );
    daemon.answer = true;
    daemon.push(
      JSON.stringify({
        protocolVersion: '2.0',
        kind: 'response',
        requestId: 'o1',
        hostInstanceId: 'fake-host',
        sessionId: 's',
        ok: true,
        data: { created: true, session: {} },
      }),
    );
    await responseTo(client, 'o1');
    expect(await ask(client, use('attach', {}, 'late'))).toMatchObject({ ok: true });
    expect(forwarded()).toEqual(['h', 'o1', 'late']);
  });

  it('frees a session whose open failed for another page to open', async () => {
    const one = page();
    await ask(one, command('h', 'handshake'));
    daemon.answer = false;
    one.send(openCommand('o1', 's'));
    await daemon.waitForLines(2);
    daemon.push(
      JSON.stringify({
        protocolVersion: '2.0',
        kind: 'response',
        requestId: 'o1',
        hostInstanceId: 'fake-host',
        sessionId: 's',
        ok: false,
        error: { code: 'session_policy_conflict', message: 'no', retryable: false },
      }),
    );
    expect(await responseTo(one, 'o1')).toMatchObject({ ok: false });
    daemon.answer = true;
    expect(await ask(one, use('attach', {}, 'a1'))).toMatchObject({ error: { details: { rule: 'not_opened' } } });
    const two = page();
    expect(await ask(two, openCommand('o2', 's'))).toMatchObject({ ok: true });
    expect(await ask(two, use('attach', {}, 'a2'))).toMatchObject({ ok: true });
  });

  it('gives a session whose open was answered session_busy to the page that asked, so it can abort the wake a departed page left running', async () => {
    const one = page();
    await ask(one, command('h', 'handshake'));
    daemon.answer = false;
    one.send(openCommand('o1', 's', 2));
    await daemon.waitForLines(2);
    daemon.push(
      JSON.stringify({
        protocolVersion: '2.0',
        kind: 'response',
        requestId: 'o1',
        hostInstanceId: 'fake-host',
        sessionId: 's',
        ok: false,
        error: { code: 'session_busy', message: 'running', retryable: true },
      }),
    );
    expect(await responseTo(one, 'o1')).toMatchObject({ ok: false });
    daemon.answer = true;
    expect(await ask(one, use('abort', {}, 'a1'))).toMatchObject({ ok: true });
    const two = page();
    expect(await ask(two, openCommand('o2', 's', 3))).toMatchObject({ error: { details: { rule: 'other_page' } } });
  });

  it("frees a page's sessions when its connection ends: a new connection opens them again before it uses them", async () => {
    const first = page();
    await ask(first, openCommand('o1', 's'));
    first.close();
    await within(first.closed, 'the first page to leave');
    const again = page();
    // The gateway may see the new connection before the old one's close: ask until it has.
    let reopened = await ask(again, openCommand('o2-0', 's'));
    for (let i = 1; reopened.ok !== true && i < 100; i++) reopened = await ask(again, openCommand(`o2-${i}`, 's'));
    expect(reopened).toMatchObject({ ok: true });
    expect(await ask(again, use('wake', { prompt: 'where was I?' }, 'w1'))).toMatchObject({ ok: true });
  });

  it('refuses a requestId still in flight, as the daemon would: duplicate_request_id', async () => {
    const client = page();
    await ask(client, command('h', 'handshake'));
    daemon.answer = false;
    client.send(openCommand('same', 's'));
    await daemon.waitForLines(2);
    // Another open, or any command: its answer could not be told from the open's, which settles who owns "s".
    client.send(openCommand('same', 't'));
    client.send(command('same', 'handshake'));
    await client.waitFor(() => client.records.filter((record) => record.requestId === 'same').length === 2, 'two refusals');
    const duplicate = refusal('duplicate_request_id', 'requestId is already in flight; give each request its own requestId', {
      requestId: 'same',
      hostInstanceId: 'fake-host',
    });
    expect(client.records.filter((record) => record.requestId === 'same')).toEqual([duplicate, duplicate]);
    expect(forwarded()).toEqual(['h', 'same']);
    // Once answered, the requestId is free again.
    daemon.answer = true;
    daemon.push(
      JSON.stringify({
        protocolVersion: '2.0',
        kind: 'response',
        requestId: 'same',
        hostInstanceId: 'fake-host',
        sessionId: 's',
        ok: true,
        data: { created: true, session: {} },
      }),
    );
    await client.waitFor(() => client.records.filter((record) => record.requestId === 'same').length === 3, "the open's answer");
    expect(await ask(client, use('attach', {}, 'after'))).toMatchObject({ ok: true });
  });

  it('answers more requests in flight than it holds with connection_busy, as the daemon would', async () => {
    const client = page();
    await ask(client, command('h', 'handshake'));
    daemon.answer = false;
    for (let i = 0; i <= DAEMON_MAX_IN_FLIGHT; i++) client.send(command(`h${i}`, 'handshake'));
    expect(await responseTo(client, `h${DAEMON_MAX_IN_FLIGHT}`)).toEqual(
      refusal('connection_busy', `${DAEMON_MAX_IN_FLIGHT} requests already wait for their answers; wait for some`, {
        requestId: `h${DAEMON_MAX_IN_FLIGHT}`,
        hostInstanceId: 'fake-host',
        retryable: true,
      }),
    );
    await daemon.waitForLines(DAEMON_MAX_IN_FLIGHT + 1);
    expect(forwarded()).toHaveLength(DAEMON_MAX_IN_FLIGHT + 1);
  });

  it('refuses an open or handshake whose requestId the daemon would not take, as the daemon would, and leaves the rest to the daemon', async () => {
    const client = page();
    const long = 'r'.repeat(129);
    for (const record of [openCommand(long, 's'), command(long, 'handshake')]) {
      expect(await ask(client, record)).toEqual(
        refusal('invalid_field', 'requestId length must be between 1 and 128', {
          requestId: long,
          details: { field: 'requestId', length: 129, min: 1, max: 128 },
        }),
      );
    }
    expect(daemon.lines).toEqual([]);
    await ask(client, openCommand('o1', 's'));
    const longer = 's'.repeat(129);
    expect(await ask(client, use('status', {}, longer))).toMatchObject({ ok: true });
    expect(forwarded()).toEqual(['o1', longer]);
  });

  it('refuses a new session beyond the most one page may hold', async () => {
    const client = page();
    for (let i = 0; i < MAX_SESSIONS_PER_PAGE; i++) client.send(openCommand(`o${i}`, `s${i}`));
    await responseTo(client, `o${MAX_SESSIONS_PER_PAGE - 1}`);
    expect(client.records.filter((record) => record.ok === true)).toHaveLength(MAX_SESSIONS_PER_PAGE);
    expect(await ask(client, openCommand('one-more', 'another'))).toMatchObject({ error: { code: 'denied_by_gateway', details: { rule: 'session_limit' } } });
    // Its own sessions it may open again.
    expect(await ask(client, openCommand('again', 's0', 2))).toMatchObject({ ok: true });
  });
});

describe('daemon mode: the key in a refusal', () => {
  it('never repeats the gateway key in a refusal, even where a page put it in a sessionId or an operation', async () => {
    const client = page();
    const bySession = await ask(client, use('attach', {}, 'a1', `cleo-${KEY}`));
    const byOperation = await ask(client, command('a2', KEY));
    expect((bySession.error as Record_).message).toBe(
      'aicc gateway: this page connection has not opened session "cleo-the gateway key"; open it first (a page reaches only the sessions its own connection opened; after a reconnect, open them again)',
    );
    expect((byOperation.error as Record_).message).toMatch(/^aicc gateway: operation "the gateway key" is not one/);
    expect(client.frames.join('\n')).not.toContain(KEY);
  });
});

describe('daemon mode: what reaches past one session', () => {
  it('refuses drain and status without a sessionId unless the gateway is an admin one', async () => {
    const client = page();
    expect(await ask(client, command('d1', 'drain', { timeoutMs: 1000 }))).toEqual(
      denied(
        'd1',
        'admin_only',
        'drain stops the daemon for every page until it restarts: only a gateway started with --daemon-admin passes it on; restart the daemon from its host instead',
      ),
    );
    expect(await ask(client, command('s1', 'status'))).toEqual(
      denied(
        's1',
        'admin_only',
        "status without a sessionId shows every session on the host: name one of this page's sessions in sessionId, or start the gateway with --daemon-admin",
      ),
    );
    expect(await ask(client, command('u1', 'subscribeAll'))).toEqual(
      denied(
        'u1',
        'unknown_operation',
        'operation "subscribeAll" is not one the gateway can check (handshake, open, wake, steer, followUp, status, abort, attach, detach, close); start the gateway with --daemon-admin to pass every operation on',
      ),
    );
    expect(daemon.lines).toEqual([]);
    await start({ admin: true });
    const admin = page();
    for (const record of [command('d2', 'drain', { timeoutMs: 1000 }), command('s2', 'status'), command('u2', 'subscribeAll')])
      expect(await ask(admin, record)).toMatchObject({ ok: true });
    // Sessions stay apart on an admin gateway too.
    await ask(admin, openCommand('o1', 's'));
    expect(await ask(page(), use('abort', {}, 'a1'))).toMatchObject({ error: { details: { rule: 'other_page' } } });
  });

  it("cuts a handshake's host snapshot down to the page's own sessions, by the daemon's ids; an admin gateway passes it whole", async () => {
    const snapshot = (requestId: string, namespace: string): string =>
      JSON.stringify({
        protocolVersion: '2.0',
        kind: 'response',
        requestId,
        hostInstanceId: 'fake-host',
        ok: true,
        // The page's own session; another gateway's; one opened on the daemon's socket, whose id is the page's without the namespace.
        data: { host: { hostInstanceId: 'fake-host', sessions: [{ sessionId: `${namespace}mine` }, { sessionId: 'gw-other:theirs' }, { sessionId: 'mine' }] } },
      });
    for (const admin of [false, true]) {
      await start({ admin });
      const client = page();
      await ask(client, openCommand(`o-${admin}`, 'mine'));
      const namespace = namespaceOf(`o-${admin}`, 'mine');
      daemon.answer = false;
      client.send(command(`h-${admin}`, 'handshake'));
      await within(
        (async () => {
          while (!forwarded().includes(`h-${admin}`)) await new Promise((resolve) => setTimeout(resolve, 5));
        })(),
        'the handshake at the daemon',
      );
      daemon.push(snapshot(`h-${admin}`, namespace));
      await responseTo(client, `h-${admin}`);
      daemon.answer = true;
      const whole = snapshot(`h-${admin}`, namespace).replace(namespace, '');
      expect(client.frames.at(-1)).toBe(admin ? whole : whole.replace(',{"sessionId":"gw-other:theirs"},{"sessionId":"mine"}', ''));
    }
  });
});

describe("daemon mode: the gateway's namespace on the daemon", () => {
  it("names a page's session to the daemon under the namespace, and gives it back to the page as the page named it", async () => {
    const client = page();
    expect(await ask(client, openCommand('o1', 'cleo'))).toMatchObject({ ok: true });
    const namespace = namespaceOf('o1', 'cleo');
    await ask(client, use('attach', {}, 'a1', 'cleo'));
    expect((JSON.parse(daemon.lines.at(-1)!) as Record_).sessionId).toBe(`${namespace}cleo`);
    const event = (sequence: number): string =>
      JSON.stringify({
        protocolVersion: '2.0',
        kind: 'event',
        event: 'messageUpdate',
        hostInstanceId: 'fake-host',
        sessionId: `${namespace}cleo`,
        generation: 1,
        sequence,
      });
    daemon.push(event(1));
    await client.waitFor((record) => record.kind === 'event', 'the event');
    expect(client.frames.at(-1)).toBe(event(1).replace(namespace, ''));
    expect(client.frames.join('\n')).not.toContain(namespace);
  });

  it("refuses an open of a sessionId the namespace would push past the daemon's 256 characters, or an empty one, as the daemon refuses such ids", async () => {
    const client = page();
    expect(await ask(client, openCommand('o0', 'probe'))).toMatchObject({ ok: true });
    const max = 256 - namespaceOf('o0', 'probe').length;
    expect(await ask(client, openCommand('o1', 's'.repeat(max)))).toMatchObject({ ok: true });
    for (const [requestId, sessionId] of [
      ['o2', 's'.repeat(max + 1)],
      ['o3', ''],
    ] as const) {
      expect(await ask(client, openCommand(requestId, sessionId))).toEqual(
        refusal('invalid_field', `sessionId length must be between 1 and ${max}`, {
          requestId,
          hostInstanceId: 'fake-host',
          details: { field: 'sessionId', length: sessionId.length, min: 1, max },
        }),
      );
    }
    expect(forwarded()).toEqual(['o0', 'o1']);
  });

  it('answers a record the namespace pushes past the line limit with line_too_large, and closes, as the daemon does with such a line', async () => {
    await start({ maxLineBytes: 4096 });
    const client = page();
    await ask(client, openCommand('o1', 's'));
    const empty = JSON.stringify(use('wake', { prompt: '' }, 'w1'));
    const record = JSON.stringify(use('wake', { prompt: 'y'.repeat(4096 - empty.length) }, 'w1'));
    expect(Buffer.byteLength(record)).toBe(4096);
    client.send(record);
    expect(await within(client.closed, 'the close')).toMatchObject({ code: 1009 });
    expect(client.records.at(-1)).toMatchObject({
      requestId: 'w1',
      ok: false,
      error: { code: 'line_too_large', details: { maxLineBytes: 4096, actualBytes: 4096 + 20 } },
    });
    expect(forwarded()).toEqual(['o1']);
  });
});

describe('daemon mode: two gateways on one daemon', () => {
  let sim: DaemonSimulator;
  let served: { close(): Promise<void> };
  const gateways: Gateway[] = [];

  beforeEach(async () => {
    sim = new DaemonSimulator();
    sim.scriptTurns(...Array.from({ length: 8 }, () => (turn: { prompt: string }) => `heard: ${turn.prompt}`));
    served = await sim.listen(join(dir.path, 'sim.sock'));
    for (let i = 0; i < 2; i++)
      gateways.push(await startGateway({ target: { kind: 'daemon', socketPath: join(dir.path, 'sim.sock') }, origins: [ORIGIN], key: KEY }));
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => (client.close(), within(client.closed, 'a client to close'))));
    for (const each of gateways.splice(0)) await each.close();
    await served.close();
  });

  const pageOn = (on: Gateway): BrowserClient => {
    const client = connectDaemonBrowser(`${on.url}/`);
    clients.push(client);
    return client;
  };
  /** An open as the daemon (and the simulator, which checks the schema) takes it: every resource named. */
  const openOnSim = (requestId: string, sessionId: string, generation = 1): Record_ & { requestId: string } =>
    command(requestId, 'open', { cwd: '/', session: { mode: 'memory' }, resources: NONE }, { sessionId, generation });
  const wake = (requestId: string, prompt: string, generation = 1): Record_ & { requestId: string } =>
    command(requestId, 'wake', { prompt }, { sessionId: 'cleo', generation, idempotencyKey: `k-${requestId}` });

  it("keeps a page on the second from the first's session: its open makes a session of its own, and its reads, wakes and close reach that one", async () => {
    const first = pageOn(gateways[0]!);
    const second = pageOn(gateways[1]!);
    expect(await ask(first, openOnSim('f-open', 'cleo'))).toMatchObject({ ok: true, sessionId: 'cleo', data: { created: true } });
    await ask(first, use('attach', {}, 'f-attach', 'cleo'));
    expect(await ask(first, wake('f-wake', 'the first page speaks'))).toMatchObject({ ok: true, data: { result: { text: 'heard: the first page speaks' } } });

    // The same id from the other gateway: not the first page's session, "there already", but one of its own.
    expect(await ask(second, openOnSim('s-open', 'cleo'))).toMatchObject({ ok: true, sessionId: 'cleo', data: { created: true } });
    expect(await ask(second, use('status', {}, 's-status', 'cleo'))).toMatchObject({ ok: true, data: { sessionId: 'cleo', generation: 1 } });
    await ask(second, use('attach', {}, 's-attach', 'cleo'));
    expect(await ask(second, wake('s-wake', 'the second page speaks'))).toMatchObject({ ok: true });
    // A higher generation replaces its own session, not the first page's; and it closes its own.
    expect(await ask(second, openOnSim('s-open-2', 'cleo', 2))).toMatchObject({ ok: true, data: { created: true } });
    expect(await ask(second, use('close', {}, 's-close', 'cleo'))).toMatchObject({ ok: false, error: { code: 'stale_generation' } });
    expect(await ask(second, command('s-close-2', 'close', {}, { sessionId: 'cleo', generation: 2 }))).toMatchObject({ ok: true, data: { closed: true } });
    // The second page's handshake shows no session of the first's.
    const handshake = await ask(second, command('s-hello', 'handshake'));
    expect((handshake.data as { host: { sessions: unknown[] } }).host.sessions).toEqual([]);

    // Two sessions on the daemon, one under each gateway's namespace; the first is as its page left it.
    const ids = [...new Set(sim.turns.map((turn) => turn.sessionId))];
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(id).toMatch(/^gw-[0-9a-f]{16}:cleo$/);
    expect(sim.turns.map((turn) => turn.prompt)).toEqual(['the first page speaks', 'the second page speaks']);
    expect(sim.session(ids[0]!)).toMatchObject({ generation: 1, running: false, attached: 1 });
    expect(await ask(first, use('status', {}, 'f-status', 'cleo'))).toMatchObject({ ok: true, data: { sessionId: 'cleo', generation: 1, state: 'idle' } });
    // No record of the first page's session reached the second page: its events are its own wake's.
    const events = second.records.filter((record) => record.kind === 'event');
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((event) => event.requestId === 's-wake' || event.requestId === undefined)).toBe(true);
    expect(second.frames.join('\n')).not.toContain('the first page speaks');
    expect(first.frames.join('\n')).not.toMatch(/gw-[0-9a-f]{16}:/);
    expect(second.frames.join('\n')).not.toMatch(/gw-[0-9a-f]{16}:/);
  });

  it("keeps a restarted gateway's pages from the sessions of the gateway before it: an open starts a session of its own", async () => {
    const before = pageOn(gateways[0]!);
    await ask(before, openOnSim('b-open', 'cleo'));
    await ask(before, use('attach', {}, 'b-attach', 'cleo'));
    expect(await ask(before, wake('b-wake', 'before the restart'))).toMatchObject({ ok: true });
    await gateways[0]!.close();
    gateways[0] = await startGateway({ target: { kind: 'daemon', socketPath: join(dir.path, 'sim.sock') }, origins: [ORIGIN], key: KEY });
    const after = pageOn(gateways[0]);
    expect(await ask(after, openOnSim('a-open', 'cleo'))).toMatchObject({ ok: true, sessionId: 'cleo', data: { created: true } });
    const [old, fresh] = ['b-open', 'a-open'].map((requestId) => String(sim.received.find((record) => record.requestId === requestId)?.sessionId));
    expect(fresh).not.toBe(old);
    // The session of the gateway before stays on the daemon (until the daemon evicts it), out of every page's reach.
    expect(sim.session(old!)).toMatchObject({ generation: 1, running: false, attached: 0 });
  });

  it("cannot reach another gateway's session by naming the daemon's id of it", async () => {
    const first = pageOn(gateways[0]!);
    const second = pageOn(gateways[1]!);
    await ask(first, openOnSim('f-open', 'cleo'));
    const daemonId = String(sim.received.find((record) => record.requestId === 'f-open')?.sessionId);
    expect(await ask(second, openOnSim('s-open', daemonId))).toMatchObject({ ok: true, sessionId: daemonId, data: { created: true } });
    const at = String(sim.received.find((record) => record.requestId === 's-open')?.sessionId);
    expect(at).not.toBe(daemonId);
    expect(at.endsWith(daemonId)).toBe(true);
  });
});
