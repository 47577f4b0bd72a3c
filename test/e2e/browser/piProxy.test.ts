// The demo server's proxy to a gateway — /pi, and /characters/<id> where a page lends a character —
// against fake gateways on 127.0.0.1 that check the key with the gateway's own AccessPolicy: the key
// reaches the gateway, while the page's side (its handshake, frames, close reasons) and the server's
// log never hold it; only the server's own pages get in.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type Socket } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { startDemoServer, type DemoServer } from '../../../demos/server/server.js';
import { AccessPolicy, CLOSE, parseProtocols, selectSubprotocol } from '../../../src/node/gateway/access.js';
import { within } from '../../node/gateway/helpers.js';
import { GATEWAY_KEY as KEY, startFakeGateway, type FakeGateway } from './fakeGateway.js';

/** A page's socket as Chromium would open it: Origin set, pi-peers.v1 offered (to /pi), no key. */
function pageSocket(server: DemoServer, origin: string | null = server.url.slice(0, -1), protocols = ['pi-peers.v1'], path = 'pi') {
  const socket = new WebSocket(`${server.url.replace('http', 'ws')}${path}`, protocols, origin === null ? {} : { origin });
  const frames: string[] = [];
  socket.on('message', (data) => frames.push(data.toString()));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    socket.once('error', reject);
  });
  opened.catch(() => {});
  return { socket, frames, closed, opened };
}

/** Waits, at most 5 s, until `check` holds. */
function until(check: () => boolean, what: string): Promise<void> {
  return within(
    (async () => {
      while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
    })(),
    what,
  );
}

let gateway: FakeGateway;
let server: DemoServer;
let log: string[];

beforeEach(async () => {
  gateway = await startFakeGateway();
  log = [];
  server = await startDemoServer({ root: process.cwd(), demos: [], port: 0, gateway: { url: gateway.url, key: KEY }, log: (line) => log.push(line) });
});

afterEach(async () => {
  await server.close();
  await gateway.close();
});

describe('/pi proxy', () => {
  it('joins the page to the gateway, adding the key only on the gateway side', async () => {
    const page = pageSocket(server);
    await within(page.opened, 'the page socket to open');
    expect(page.socket.protocol).toBe('pi-peers.v1');
    // Sent at once: the proxy holds it until the gateway has answered its own handshake.
    page.socket.send('{"id":"h1","type":"hello"}');
    page.socket.send('second');
    await until(() => page.frames.length >= 2, 'two echoes');
    expect(page.frames).toEqual(['echo:{"id":"h1","type":"hello"}', 'echo:second']);
    expect(gateway.offers).toEqual([['pi-peers.v1', `aicc-key.${KEY}`]]);
    page.socket.close(1000, 'done');
    expect((await within(page.closed, 'the close')).code).toBe(1000);
    await until(() => log.length > 0, 'the log line');
    expect(log).toEqual(['demo:web: /pi #1 closed (1000): the page closed']);
    expect([...page.frames, ...log].join('\n')).not.toContain(KEY);
  });

  it('passes the gateway refusal to the page without the key', async () => {
    await server.close();
    server = await startDemoServer({
      root: process.cwd(),
      demos: [],
      port: 0,
      gateway: { url: gateway.url, key: 'a-wrong-key-0123456789abcdef' },
      log: (line) => log.push(line),
    });
    const page = pageSocket(server);
    const closed = await within(page.closed, 'the refusal');
    expect(closed).toEqual({ code: CLOSE.badKey, reason: 'wrong gateway key' });
  });

  it('admits only its own pages', async () => {
    // Another site's page, a program with no Origin, a file:// page, this server under another port.
    for (const origin of ['http://attacker.example', null, 'null', `http://127.0.0.1:${server.port + 1}`]) {
      const page = pageSocket(server, origin);
      await expect(within(page.opened, 'a refusal'), String(origin)).rejects.toThrow('HTTP 403');
    }
    expect(gateway.offers).toEqual([]);
    // The same server under its other name is its own page.
    const local = pageSocket(server, `http://localhost:${server.port}`);
    await within(local.opened, 'the localhost page to open');
    local.socket.close();
  });

  it('never forwards what the page offers beyond pi-peers.v1', async () => {
    const page = pageSocket(server, undefined, ['pi-peers.v1', 'aicc-key.page-made-up-key-0123456789']);
    await within(page.opened, 'the page socket to open');
    page.socket.send('x');
    await until(() => page.frames.length > 0, 'the echo');
    expect(page.socket.protocol).toBe('pi-peers.v1');
    expect(gateway.offers).toEqual([['pi-peers.v1', `aicc-key.${KEY}`]]);
    page.socket.close();
  });

  it('passes pi-daemon.v2 on to a gateway in daemon mode, and refuses other protocols', async () => {
    const daemonGateway = await startFakeGateway(KEY, 'pi-daemon.v2');
    const daemonServer = await startDemoServer({ root: process.cwd(), demos: [], port: 0, gateway: { url: daemonGateway.url, key: KEY } });
    try {
      const page = pageSocket(daemonServer, undefined, ['pi-daemon.v2']);
      await within(page.opened, 'the page socket to open');
      page.socket.send('{"type":"handshake"}');
      await until(() => page.frames.length > 0, 'the echo');
      expect(page.socket.protocol).toBe('pi-daemon.v2');
      expect(daemonGateway.offers).toEqual([['pi-daemon.v2', `aicc-key.${KEY}`]]);
      page.socket.close();
      // A socket that offered only other protocols fails its handshake (none is selected); one
      // that offered none gets the reason.
      const other = pageSocket(daemonServer, undefined, ['chat']);
      await expect(within(other.opened, 'the failure')).rejects.toThrow('Server sent no subprotocol');
      const none = pageSocket(daemonServer, undefined, []);
      expect(await within(none.closed, 'the refusal')).toEqual({ code: CLOSE.badRequest, reason: 'offer the subprotocol "pi-peers.v1" (or "pi-daemon.v2")' });
      expect(daemonGateway.offers).toHaveLength(1);
    } finally {
      await daemonServer.close();
      await daemonGateway.close();
    }
  });

  it('bounds its connections, the messages held before the gateway answers, and message size', async () => {
    // A gateway that takes the TCP connection and never answers the handshake.
    const held: Socket[] = [];
    const silent = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    const port = (silent.address() as { port: number }).port;
    const bounded = await startDemoServer({
      root: process.cwd(),
      demos: [],
      port: 0,
      gateway: { url: `ws://127.0.0.1:${port}/`, key: KEY },
      proxyLimits: { maxConnections: 1, maxPending: 2, maxPayload: 1024 },
    });
    try {
      const first = pageSocket(bounded);
      await within(first.opened, 'the first page socket to open');
      const second = pageSocket(bounded);
      expect(await within(second.closed, 'the refusal')).toEqual({ code: 1013, reason: 'the demo server has 1 gateway connections open; try again later' });
      for (const text of ['a', 'b', 'c']) first.socket.send(text);
      expect(await within(first.closed, 'the close')).toEqual({ code: 1013, reason: 'more than 2 messages before the gateway answered' });

      const big = pageSocket(bounded);
      await within(big.opened, 'the next page socket to open');
      big.socket.send('x'.repeat(2000));
      expect((await within(big.closed, 'the close')).code).toBe(1009);
    } finally {
      await bounded.close();
      for (const socket of held) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('says how to start a gateway when none was given', async () => {
    const bare = await startDemoServer({ root: process.cwd(), demos: [], port: 0 });
    try {
      const page = pageSocket(bare);
      expect(await within(page.closed, 'the refusal')).toEqual({
        code: 4404,
        reason: 'no gateway: start npm run demo:web with --gateway ws://127.0.0.1:PORT and AICC_GATEWAY_KEY',
      });
    } finally {
      await bare.close();
    }
  });

  it('tells the page when the gateway is unreachable', async () => {
    await gateway.close();
    const page = pageSocket(server);
    const closed = await within(page.closed, 'the close');
    expect(closed.code).toBe(4502);
    expect(closed.reason).toMatch(/^the gateway at ws:\/\/127\.0\.0\.1:\d+\/ did not answer \(ECONNREFUSED\)$/);
  });
});

/** A gateway serving aicc.v0.1 that records each connection's path and offers, and echoes text frames. */
async function startCharacterGateway(): Promise<{ url: string; seen: Array<{ path: string; offers: string[] }>; close(): Promise<void> }> {
  const policy = new AccessPolicy([], KEY, 'aicc.v0.1');
  const seen: Array<{ path: string; offers: string[] }> = [];
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: (protocols) => selectSubprotocol(protocols, policy.subprotocol) });
  wss.on('connection', (socket, request) => {
    const offers = parseProtocols(request.headers['sec-websocket-protocol']);
    seen.push({ path: request.url ?? '', offers });
    const refusal = policy.check(request.headers.origin, offers);
    if (refusal !== undefined) return socket.close(refusal.code, refusal.reason);
    socket.on('message', (data) => socket.send(`echo:${data.toString()}`));
  });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  return {
    // As --gateway names a relay gateway: the /characters/ route must not keep this path.
    url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}/agents/pi-one`,
    seen,
    close: () =>
      new Promise((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  };
}

describe('/characters/<id> proxy', () => {
  let characters: Awaited<ReturnType<typeof startCharacterGateway>>;
  let lending: DemoServer;

  beforeEach(async () => {
    characters = await startCharacterGateway();
    lending = await startDemoServer({ root: process.cwd(), demos: [], port: 0, gateway: { url: characters.url, key: KEY }, log: (line) => log.push(line) });
  });

  afterEach(async () => {
    await lending.close();
    await characters.close();
  });

  it("joins the page to the gateway's /characters/<id>, adding the key only on the gateway side", async () => {
    const page = pageSocket(lending, undefined, ['aicc.v0.1'], 'characters/cleo');
    await within(page.opened, 'the page socket to open');
    expect(page.socket.protocol).toBe('aicc.v0.1');
    // The capsule's session_init goes out at once: the proxy holds it until the gateway answered.
    page.socket.send('{"type":"session_init"}');
    await until(() => page.frames.length > 0, 'the echo');
    expect(page.frames).toEqual(['echo:{"type":"session_init"}']);
    expect(characters.seen).toEqual([{ path: '/characters/cleo', offers: ['aicc.v0.1', `aicc-key.${KEY}`] }]);
    page.socket.close(1000, 'done');
    await within(page.closed, 'the close');
    await until(() => log.length > 0, 'the log line');
    expect(log).toEqual(['demo:web: /characters/cleo #1 closed (1000): the page closed']);
    expect([...page.frames, ...log].join('\n')).not.toContain(KEY);
  });

  it('never forwards what the page offers beyond aicc.v0.1', async () => {
    const page = pageSocket(lending, undefined, ['aicc.v0.1', 'aicc-key.page-made-up-key-0123456789', 'pi-peers.v1'], 'characters/ada');
    await within(page.opened, 'the page socket to open');
    page.socket.send('x');
    await until(() => page.frames.length > 0, 'the echo');
    expect(page.socket.protocol).toBe('aicc.v0.1');
    expect(characters.seen).toEqual([{ path: '/characters/ada', offers: ['aicc.v0.1', `aicc-key.${KEY}`] }]);
    page.socket.close();
  });

  it('admits only its own pages', async () => {
    for (const origin of ['http://attacker.example', null, 'null', `http://127.0.0.1:${lending.port + 1}`]) {
      const page = pageSocket(lending, origin, ['aicc.v0.1'], 'characters/cleo');
      await expect(within(page.opened, 'a refusal'), String(origin)).rejects.toThrow('HTTP 403');
    }
    expect(characters.seen).toEqual([]);
  });

  it('refuses, with the reason, a page that offers no aicc.v0.1 or names no character', async () => {
    // pi's protocol is /pi's: on this path the handshake selects none, and the page fails it itself.
    const piPage = pageSocket(lending, undefined, ['pi-peers.v1'], 'characters/cleo');
    await expect(within(piPage.opened, 'the failure')).rejects.toThrow('Server sent no subprotocol');
    const none = pageSocket(lending, undefined, [], 'characters/cleo');
    expect(await within(none.closed, 'the refusal')).toEqual({ code: CLOSE.badRequest, reason: 'offer the subprotocol "aicc.v0.1"' });
    for (const [path, reason] of [
      ['characters/a%20b', /^name the character: \/characters\/<id>, the id of 1 to 64 letters/],
      ['characters/', /^name the character/],
      // Dot segments are resolved first: this is /characters/ with no id, not the gateway's root.
      ['characters/cleo/%2E%2E', /^name the character/],
    ] as const) {
      const page = pageSocket(lending, undefined, ['aicc.v0.1'], path);
      const closed = await within(page.closed, `the refusal of ${path}`);
      expect(closed.code, path).toBe(CLOSE.notFound);
      expect(closed.reason, path).toMatch(reason);
    }
    expect(characters.seen).toEqual([]);
  });

  it('says how to start a gateway when none was given', async () => {
    const bare = await startDemoServer({ root: process.cwd(), demos: [], port: 0 });
    try {
      const page = pageSocket(bare, undefined, ['aicc.v0.1'], 'characters/cleo');
      expect(await within(page.closed, 'the refusal')).toEqual({
        code: 4404,
        reason: 'no gateway: start npm run demo:web with --gateway ws://127.0.0.1:PORT and AICC_GATEWAY_KEY (an aicc gateway --mcp)',
      });
    } finally {
      await bare.close();
    }
  });
});
