import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLOSE, KEY_PREFIX, SUBPROTOCOL } from '../../../src/node/gateway/access.js';
import { startGateway, type Gateway } from '../../../src/node/gateway/server.js';
import type { DaemonRelayOptions } from '../../../src/node/gateway/daemonRelay.js';
import { command, connectDaemonBrowser, openCommand, refusal, responseTo, startFakeDaemon, type FakeDaemon } from './daemonHelpers.js';
import { KEY, ORIGIN, tempDir, within, type BrowserClient, type ClientOptions } from './helpers.js';

let dir: ReturnType<typeof tempDir>;
let daemon: FakeDaemon;
let gateway: Gateway;
let logs: string[];
let clients: BrowserClient[];

async function start(target: Partial<DaemonRelayOptions> = {}): Promise<void> {
  await gateway?.close();
  // Each gateway writes to its own array: a late line from an earlier gateway stays there.
  const mine: string[] = (logs = []);
  gateway = await startGateway({ target: { kind: 'daemon', socketPath: daemon.path, ...target }, origins: [ORIGIN], key: KEY, log: (line) => mine.push(line) });
}

function connect(options: ClientOptions & { path?: string } = {}): BrowserClient {
  const client = connectDaemonBrowser(`${gateway.url}${options.path ?? '/'}`, options);
  clients.push(client);
  return client;
}

/** Resolves once the log has a line for connection #n (it is written when the connection ends). */
async function logLine(n: number): Promise<string> {
  return within(
    (async () => {
      for (;;) {
        const line = logs.find((l) => l.includes(`#${n} `) && !l.startsWith('aicc gateway: relaying'));
        if (line !== undefined) return line;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })(),
    `the log line of #${n}`,
  );
}

beforeEach(async () => {
  dir = tempDir('aicc-daemon-');
  clients = [];
  daemon = await startFakeDaemon(join(dir.path, 'daemon.sock'));
  gateway = undefined as unknown as Gateway;
  await start();
});

afterEach(async () => {
  const closes = await Promise.all(clients.map((client) => (client.close(), within(client.closed, 'a client to close'))));
  await gateway.close();
  await daemon.close();
  // The key is checked after every test, whatever the test did: not in a log line, a frame or a close reason.
  const seen = [...clients.flatMap((client) => client.frames), ...closes.map((close) => close.reason), ...logs].join('\n');
  expect(seen).not.toContain(KEY);
  dir.remove();
});

describe('daemon mode: access', () => {
  it('says where it relays when it starts listening', () => {
    expect(logs).toEqual([`aicc gateway: relaying pi-daemon protocol v2 to ${daemon.path} on ws://127.0.0.1:${gateway.port}/ for origin ${ORIGIN}`]);
  });

  it('admits the key from an allowed origin and answers with pi-daemon.v2, never the key', async () => {
    const client = connect();
    await within(client.opened, 'the open');
    expect(client.socket.protocol).toBe('pi-daemon.v2');
  });

  it('refuses another origin with 4403 and never opens the daemon socket', async () => {
    const client = connect({ origin: 'https://evil.example' });
    expect(await within(client.closed, 'the close')).toEqual({
      code: CLOSE.badOrigin,
      reason: "origin https://evil.example is not in the gateway's --origin list",
    });
    expect(daemon.connections).toBe(0);
    expect(await logLine(1)).toBe(
      "aicc gateway: #1 origin https://evil.example refused (4403): origin https://evil.example is not in the gateway's --origin list",
    );
  });

  it('refuses a missing key with 4401, naming the daemon subprotocol', async () => {
    const client = connect({ key: null });
    expect(await within(client.closed, 'the close')).toEqual({
      code: CLOSE.badKey,
      reason: 'no gateway key; offer the subprotocols "pi-daemon.v2" and "aicc-key.<key>"',
    });
    expect(daemon.connections).toBe(0);
  });

  it('refuses a wrong key with 4401 and writes neither key to the log', async () => {
    const wrong = 'wrong-key-000000000000000000000';
    const client = connect({ key: wrong });
    expect(await within(client.closed, 'the close')).toEqual({ code: CLOSE.badKey, reason: 'wrong gateway key' });
    await logLine(1);
    expect(logs.join('\n')).not.toContain(wrong);
    expect(daemon.connections).toBe(0);
  });

  it('refuses a client that offers pi-peers.v1 instead of pi-daemon.v2 with a 4400 it receives', async () => {
    const client = connect({ protocols: [SUBPROTOCOL, `${KEY_PREFIX}${KEY}`] });
    // The gateway selects the other offer to carry the refusal: with none selected, a client that
    // offered some fails the handshake itself and never sees the code.
    expect(await within(client.closed, 'the close')).toEqual({ code: CLOSE.badRequest, reason: 'offer the subprotocol "pi-daemon.v2" too' });
    expect(await logLine(1)).toBe('aicc gateway: #1 origin http://localhost:5173 refused (4400): offer the subprotocol "pi-daemon.v2" too');
    expect(daemon.connections).toBe(0);
  });

  it('never selects the key: a client that offered only the key sees its handshake fail, and the log says why', async () => {
    const client = connect({ protocols: [`${KEY_PREFIX}${KEY}`] });
    await expect(within(client.opened, 'the open')).rejects.toThrow(/no subprotocol/i);
    expect(await logLine(1)).toBe('aicc gateway: #1 origin http://localhost:5173 refused (4400): offer the subprotocol "pi-daemon.v2" too');
    expect(logs.join('\n')).not.toContain(KEY);
  });

  it('refuses any path but / with 4404', async () => {
    const client = connect({ path: '/agents/ada' });
    expect(await within(client.closed, 'the close')).toEqual({ code: CLOSE.notFound, reason: 'this gateway relays one pi daemon: connect to /' });
  });

  it('rejects a daemon target without a socket path at start', async () => {
    await expect(startGateway({ target: { kind: 'daemon', socketPath: '' }, origins: [ORIGIN], key: KEY })).rejects.toMatchObject({
      code: 'AICC_INVALID_OPTION',
      message: "startGateway: the daemon target needs socketPath, the daemon's Unix socket",
    });
    await expect(startGateway({ target: { kind: 'daemon', socketPath: daemon.path, highWaterBytes: 0 }, origins: [ORIGIN], key: KEY })).rejects.toMatchObject({
      message: "startGateway: the daemon target's highWaterBytes must be a whole number above 0, got 0",
    });
  });
});

describe('daemon mode: relaying', () => {
  it('forwards a command byte for byte and the daemon response back byte for byte', async () => {
    const client = connect();
    // Odd spacing, key order and an escaped character: none of it may be normalized away.
    const raw = '{ "requestId":"r1",  "protocolVersion":"2.0","operation":"handshake","payload":{"note":"caf\\u00e9 \u2028 ok"} }';
    client.send(raw);
    await daemon.waitForLines(1);
    expect(daemon.lines).toEqual([raw]);
    const answer = await responseTo(client, 'r1');
    expect(answer).toEqual({
      protocolVersion: '2.0',
      kind: 'response',
      requestId: 'r1',
      hostInstanceId: 'fake-host',
      ok: true,
      data: { operation: 'handshake' },
    });
    // A line the daemon writes in its own spacing reaches the browser unchanged.
    const line =
      '{"protocolVersion":"2.0" ,"kind":"event","event":"messageUpdate","hostInstanceId":"fake-host","sessionId":"s","generation":1,"sequence":1,"data":{"text":"é\\n"}}';
    daemon.push(line);
    await client.waitFor((record) => record.kind === 'event', 'the event');
    expect(client.frames.at(-1)).toBe(line);
  });

  it('turns raw line breaks between tokens into spaces, so a frame stays one line', async () => {
    const client = connect();
    client.send('{"requestId":"r1",\r\n"protocolVersion":"2.0",\n"operation":"handshake","payload":{"text":"a\\nb"}}\n');
    await responseTo(client, 'r1');
    expect(daemon.lines).toEqual(['{"requestId":"r1",  "protocolVersion":"2.0", "operation":"handshake","payload":{"text":"a\\nb"}} ']);
  });

  it('delivers events the daemon pushes unasked, in order', async () => {
    const client = connect();
    await responseTo((client.send(openCommand('o1', 's')), client), 'o1');
    await responseTo((client.send(command('r1', 'attach', {}, { sessionId: 's', generation: 1 })), client), 'r1');
    for (let sequence = 1; sequence <= 50; sequence++) {
      daemon.push(
        JSON.stringify({ protocolVersion: '2.0', kind: 'event', event: 'messageUpdate', hostInstanceId: 'fake-host', sessionId: 's', generation: 1, sequence }),
      );
    }
    await client.waitFor((record) => record.sequence === 50, 'the 50th event');
    expect(client.records.filter((record) => record.kind === 'event').map((record) => record.sequence)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it('forwards commands sent before the daemon socket is open, in order', async () => {
    const client = connect();
    for (const id of ['a', 'b', 'c']) client.send(command(id, 'handshake'));
    await responseTo(client, 'c');
    expect(daemon.lines.map((line) => (JSON.parse(line) as { requestId: string }).requestId)).toEqual(['a', 'b', 'c']);
  });

  it('opens one daemon connection per browser connection and keeps their traffic apart', async () => {
    const one = connect();
    const two = connect();
    one.send(command('one-1', 'handshake'));
    two.send(command('two-1', 'handshake'));
    await Promise.all([responseTo(one, 'one-1'), responseTo(two, 'two-1')]);
    expect(daemon.connections).toBe(2);
    expect(one.records.map((record) => record.requestId)).toEqual(['one-1']);
    expect(two.records.map((record) => record.requestId)).toEqual(['two-1']);
  });

  it('refuses an open that gives the model host tools, keeps the connection, and forwards the next command', async () => {
    const client = connect();
    client.send(command('h', 'handshake'));
    await responseTo(client, 'h');
    const tools = { mode: 'host-adapter', descriptor: {} };
    client.send(
      command(
        'o1',
        'open',
        {
          cwd: '/',
          session: { mode: 'memory' },
          resources: { extensions: 'none', skills: 'none', promptTemplates: 'none', themes: 'none', contextFiles: 'none', tools },
        },
        { sessionId: 's', generation: 1 },
      ),
    );
    expect(await responseTo(client, 'o1')).toEqual(
      refusal(
        'denied_by_gateway',
        'payload.resources.tools must be "none": a page may not give the model the host\'s filesystem tools; a character acts through its game\'s AICC tools',
        { requestId: 'o1', hostInstanceId: 'fake-host', details: { rule: 'host_tools' } },
      ),
    );
    client.send(command('o2', 'open', { cwd: '/', session: { mode: 'memory' }, resources: { tools: 'none' } }, { sessionId: 's', generation: 1 }));
    await responseTo(client, 'o2');
    expect(daemon.lines.map((line) => (JSON.parse(line) as { requestId: string }).requestId)).toEqual(['h', 'o2']);
  });

  it("refuses an open of the host's stored sessions unless the gateway allows them", async () => {
    const client = connect();
    const open = (id: string) =>
      command(id, 'open', { cwd: '/', session: { mode: 'continue' }, resources: { tools: 'none' } }, { sessionId: 's', generation: 1 });
    client.send(open('o1'));
    expect(await responseTo(client, 'o1')).toMatchObject({ ok: false, error: { code: 'denied_by_gateway', details: { rule: 'stored_sessions' } } });
    expect(daemon.lines).toEqual([]);
    await start({ storedSessions: true });
    const allowed = connect();
    allowed.send(open('o2'));
    await responseTo(allowed, 'o2');
    expect(daemon.lines.map((line) => (JSON.parse(line) as { requestId: string }).requestId)).toEqual(['o2']);
  });
});

describe('daemon mode: bad frames, answered as the daemon answers such a line', () => {
  it('answers text that is not JSON with invalid_json, then closes with 4400 without forwarding it', async () => {
    const client = connect();
    client.send(command('ok', 'handshake'));
    await responseTo(client, 'ok');
    client.send('{"requestId": "r1", oops}');
    const closed = await within(client.closed, 'the close');
    expect(closed).toEqual({ code: CLOSE.badRequest, reason: 'aicc gateway: not JSON; send one JSON object per text frame' });
    // Under the daemon's hostInstanceId once it is known, so a client sees no host change; a
    // requestId that answers nothing, because the frame could not be read.
    expect(client.records.at(-1)).toEqual(refusal('invalid_json', 'not JSON; send one JSON object per text frame', { hostInstanceId: 'fake-host' }));
    expect(daemon.lines).toHaveLength(1);
    // The daemon's side of the connection ends too.
    await within(
      (async () => {
        while (daemon.sockets.size > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      })(),
      'the daemon connection to end',
    );
  });

  it.each([
    ['an array', '[1,2]', 'an array'],
    ['a string', '"handshake"', 'a string'],
    ['null', 'null', 'null'],
    ['a number', '42', 'a number'],
  ])('answers %s with invalid_field on the command, keeps the connection, and forwards the next command', async (_what, frame, what) => {
    const client = connect();
    client.send(frame);
    client.send(command('next', 'handshake'));
    await responseTo(client, 'next');
    expect(client.records[0]).toEqual(
      refusal('invalid_field', `command must be an object, not ${what}; send one command object per text frame`, { details: { field: 'command' } }),
    );
    expect(daemon.lines.map((line) => (JSON.parse(line) as { requestId: string }).requestId)).toEqual(['next']);
  });

  it('answers an empty frame with nothing, as the daemon an empty line', async () => {
    const client = connect();
    client.send('');
    client.send(command('next', 'handshake'));
    await responseTo(client, 'next');
    expect(client.records.map((record) => record.requestId)).toEqual(['next']);
    expect(daemon.lines).toHaveLength(1);
  });

  it('answers a binary frame with invalid_json and closes', async () => {
    const client = connect();
    await within(client.opened, 'the open');
    client.socket.send(Buffer.from(JSON.stringify(command('b', 'status'))), { binary: true });
    expect((await within(client.closed, 'the close')).code).toBe(CLOSE.badRequest);
    expect(client.records[0]).toMatchObject({
      ok: false,
      error: { code: 'invalid_json', message: 'aicc gateway: pi-daemon records are JSON text; send a text frame, not a binary one' },
    });
    expect(daemon.lines).toEqual([]);
  });

  it('answers text that is not UTF-8 with invalid_utf8 before the WebSocket closes with 1007', async () => {
    const client = connect();
    await within(client.opened, 'the open');
    client.socket.send(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), { binary: false });
    expect(await within(client.closed, 'the close')).toEqual({ code: 1007, reason: 'aicc gateway: a text frame that is not UTF-8' });
    expect(client.records).toEqual([refusal('invalid_utf8', 'a text frame that is not UTF-8; send JSON text in UTF-8')]);
    expect(daemon.lines).toEqual([]);
    expect(await logLine(1)).toMatch(/pi-daemon relay: closed \(1007\): aicc gateway: a text frame that is not UTF-8; 0 records in, 1 out/);
  });

  it('answers a record over the 1 MiB line limit with line_too_large and closes with 1009', async () => {
    const client = connect();
    const record = JSON.stringify(command('big', 'wake', { prompt: 'x'.repeat(1024 * 1024) }));
    client.send(record);
    const closed = await within(client.closed, 'the close');
    expect(closed.code).toBe(CLOSE.tooBig);
    const bytes = Buffer.byteLength(record);
    expect(client.records).toEqual([
      refusal('line_too_large', `a record of ${bytes} bytes is over the daemon's line limit of 1048576 bytes; send a shorter one`, {
        details: { maxLineBytes: 1048576, actualBytes: bytes },
      }),
    ]);
    expect(daemon.lines).toEqual([]);
  });

  it('forwards a record of exactly the line limit', async () => {
    await start({ maxLineBytes: 4096 });
    const client = connect();
    const empty = JSON.stringify(command('edge', 'handshake', { prompt: '' }));
    const record = JSON.stringify(command('edge', 'handshake', { prompt: 'y'.repeat(4096 - empty.length) }));
    expect(Buffer.byteLength(record)).toBe(4096);
    client.send(record);
    await responseTo(client, 'edge');
    expect(daemon.lines).toEqual([record]);
  });

  it('answers a message over twice the line limit with line_too_large too, before the WebSocket layer closes with 1009', async () => {
    await start({ maxLineBytes: 4096 });
    const client = connect();
    client.send(JSON.stringify(command('huge', 'wake', { prompt: 'z'.repeat(9000) })));
    expect(await within(client.closed, 'the close')).toEqual({
      code: CLOSE.tooBig,
      reason: 'aicc gateway: a message over 8192 bytes; records are at most 4096 bytes',
    });
    expect(client.records).toEqual([
      refusal('line_too_large', "a WebSocket message over the gateway's limit of 8192 bytes; send records of at most 4096 bytes (the daemon's line limit)", {
        details: { maxLineBytes: 4096 },
      }),
    ]);
    expect(daemon.lines).toEqual([]);
    expect(await logLine(1)).toMatch(
      /^aicc gateway: #1 origin http:\/\/localhost:5173 pi-daemon relay: closed \(1009\): aicc gateway: a message over 8192 bytes; records are at most 4096 bytes; 0 records in, 1 out/,
    );
  });
});

describe('daemon mode: the daemon side', () => {
  it('answers daemon_unavailable (retryable) when no daemon listens, naming no path, and closes with 4502', async () => {
    await start({ socketPath: join(dir.path, 'nobody.sock') });
    const client = connect();
    const closed = await within(client.closed, 'the close');
    expect(closed).toEqual({ code: CLOSE.agentGone, reason: "the pi daemon is not reachable; is `pi-daemon serve` running on the gateway's --daemon socket?" });
    expect(client.records).toEqual([
      refusal('daemon_unavailable', "the pi daemon is not reachable; is `pi-daemon serve` running on the gateway's --daemon socket?", { retryable: true }),
    ]);
    expect(client.frames.join('\n')).not.toContain(dir.path);
    expect(await logLine(1)).toMatch(
      /^aicc gateway: #1 origin http:\/\/localhost:5173 pi-daemon relay: closed \(4502\): the pi daemon is not reachable; .*; 0 records in, 1 out, \d+\.\d s$/,
    );
  });

  it('closes the browser with 4502 when the daemon ends the connection, and logs one line', async () => {
    const client = connect();
    client.send(command('r1', 'handshake'));
    await responseTo(client, 'r1');
    daemon.dropAll();
    const closed = await within(client.closed, 'the close');
    expect(closed.code).toBe(CLOSE.agentGone);
    expect(closed.reason).toMatch(/^the connection to the pi daemon ended: stream ended by the peer/);
    const line = await logLine(1);
    expect(line).toMatch(
      /^aicc gateway: #1 origin http:\/\/localhost:5173 pi-daemon relay: closed \(4502\): the connection to the pi daemon ended: .*; 1 records in, 1 out, \d+\.\d s$/,
    );
    expect(logs.filter((l) => l.includes('#1 '))).toHaveLength(1);
  });

  it('leaves command checking to the daemon: any JSON object goes on', async () => {
    const client = connect();
    client.send({ hello: 'not a command' });
    await client.waitFor((record) => record.kind === 'response', "the daemon's answer");
    expect(daemon.lines).toEqual(['{"hello":"not a command"}']);
    expect(client.records).toEqual([{ protocolVersion: '2.0', kind: 'response', hostInstanceId: 'fake-host', ok: true, data: {} }]);
  });

  it('closes the browser with 4502 when the daemon sends a line over the limit', async () => {
    await start({ maxLineBytes: 1024 });
    const client = connect();
    client.send(command('r1', 'handshake'));
    await responseTo(client, 'r1');
    daemon.push(JSON.stringify({ kind: 'event', data: 'x'.repeat(2000) }));
    const closed = await within(client.closed, 'the close');
    expect(closed.code).toBe(CLOSE.agentGone);
    expect(closed.reason).toMatch(/^the connection to the pi daemon ended: socketLink: a line exceeded 1024 bytes/);
    expect(client.records.map((record) => record.requestId)).toEqual(['r1']);
  });

  it('ends the daemon connection when the browser leaves', async () => {
    const client = connect();
    client.send(command('r1', 'handshake'));
    await responseTo(client, 'r1');
    expect(daemon.sockets.size).toBe(1);
    const [socket] = daemon.sockets;
    const ended = new Promise<void>((resolve) => socket!.once('close', () => resolve()));
    client.close();
    await within(ended, 'the daemon socket to close');
    expect(await logLine(1)).toMatch(/pi-daemon relay: closed \(1005\): no reason; 1 records in, 1 out/);
  });
});
