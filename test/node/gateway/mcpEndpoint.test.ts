// A page lends its character to the gateway; an MCP client on the same machine drives it over
// Streamable HTTP. The page here is a capsule in this process behind a real WebSocket (the `ws`
// package, as a page's WebSocket would connect), the client the MCP SDK's own. Foreign Hosts and
// Origins, missing and wrong keys are refused, and the key never appears in an answer or a log line.
// Then the endpoint alone, on a ManualClock, with a character lent in this process: sessions left
// idle end, a refused initialize costs nothing, and every POST is answered.

import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import type { AgentClient } from '../../../src/agent/agentClient.js';
import { connectInProcess } from '../../../src/agent/inProcess.js';
import { createCapsule, realClock, startDriver } from '../../../src/index.js';
import { connectWebSocket } from '../../../src/links/websocket.js';
import { AccessPolicy } from '../../../src/node/gateway/access.js';
import { startGateway, type Gateway } from '../../../src/node/gateway/index.js';
import { MAX_MCP_SESSIONS, mcpEndpoint, type McpEndpoint } from '../../../src/node/gateway/mcpEndpoint.js';
import { ManualClock, type Clock, type TimerOptions } from '../../../src/base/clock.js';
import { bindTextWorld } from '../../../src/adapters/text/bind.js';
import { TextWorld } from '../../../src/adapters/text/world.js';
import type { Capsule } from '../../../src/runtime/capsule.js';
import { VILLAGE_SPEC, VILLAGER_SESSION } from '../../../src/worlds/village/world.js';
import { within } from './helpers.js';

const KEY = 'test-key-0123456789abcdef';
const ORIGIN = 'http://localhost:5173';
let gateway: Gateway;
let lines: string[];
let peers: string;
let capsule: Capsule;
let stopDriver: () => void;
let clients: Client[];

/** The page lends a character: its capsule's session over a WebSocket to /characters/<id>. */
async function lend(character: string, protocols = ['aicc.v0.1', `aicc-key.${KEY}`]): Promise<void> {
  const link = await connectWebSocket(`${gateway.url}/characters/${character}`, { WebSocket: WebSocket as never, protocols });
  capsule.connect(link, { character, ...VILLAGER_SESSION });
  for (let i = 0; i < 100 && !lines.some((line) => line.includes('lends')) && gateway.connections === 0; i++)
    await new Promise((resolve) => setTimeout(resolve, 10));
}

async function mcpClient(character: string, headers: Record<string, string> = { authorization: `Bearer ${KEY}` }): Promise<Client> {
  const client = new Client({ name: 'gateway test', version: '1.0.0' });
  const url = new URL(`http://127.0.0.1:${gateway.port}/mcp/${character}`);
  await connectWithRetry(client, url, headers);
  clients.push(client);
  return client;
}

/** The page's session may still be opening when the client first asks: retry a few times. */
async function connectWithRetry(client: Client, url: URL, headers: Record<string, string>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
      return;
    } catch (error) {
      if (attempt >= 20 || !/no page lends/.test(String(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

type Answer = { status: number; headers: IncomingHttpHeaders; text: string };

/** A raw request, to see exactly what the gateway answers. */
function exchange(port: number, method: string, path: string, headers: Record<string, string>, body?: unknown, agent?: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        ...(agent !== undefined && { agent }),
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += String(chunk)));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
      },
    );
    request.once('error', reject);
    request.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const post = (path: string, headers: Record<string, string>, body: unknown): Promise<Answer> => exchange(gateway.port, 'POST', path, headers, body);

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const text = (result: unknown): string => (result as { content: Array<{ text: string }> }).content[0]!.text;

describe('the gateway serving MCP', () => {
  beforeEach(async () => {
    lines = [];
    clients = [];
    peers = mkdtempSync(join(tmpdir(), 'aicc-peers-'));
    gateway = await startGateway({ target: { kind: 'relay', peersHome: peers }, origins: [ORIGIN], key: KEY, mcp: true, log: (line) => lines.push(line) });
    // The game page: the village on the wall clock, in event mode so calls run at once.
    capsule = createCapsule({ world: { name: 'Millbrook', kind: 'text' }, clock: realClock(), tickMode: 'hybrid', tickRateHz: 10 });
    bindTextWorld(capsule, new TextWorld(VILLAGE_SPEC));
    stopDriver = startDriver(capsule, { pace: 'timer' });
  });

  afterEach(async () => {
    for (const client of clients) await client.close().catch(() => {});
    stopDriver();
    capsule.dispose();
    await gateway.close();
    rmSync(peers, { recursive: true, force: true });
    // The key never reached a log line.
    expect(lines.join('\n')).not.toContain(KEY);
  });

  it('lets an MCP client drive the character a page lent: tools, calls, refusals, news', async () => {
    await lend('cleo');
    const client = await mcpClient('cleo');
    expect(client.getServerVersion()?.name).toBe('aicc-cleo');
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['look', 'go', 'observe']));
    const look = await client.callTool({ name: 'look', arguments: {} });
    expect(look.structuredContent).toMatchObject({ name: 'Tavern' });
    const bad = await client.callTool({ name: 'go', arguments: {} });
    expect(text(bad)).toMatch(/^go refused \(invalid_input\)/);
    const moved = await client.callTool({ name: 'go', arguments: { direction: 'south' } });
    expect(moved.structuredContent).toMatchObject({ to: expect.objectContaining({ name: 'Market' }) });
    expect(lines.some((line) => /MCP session for cleo opened/.test(line))).toBe(true);
  });

  it("tells the client unasked, on its event stream, when the character's tools change and when news comes", async () => {
    await lend('cleo');
    const client = await mcpClient('cleo');
    const told: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void told.push('tools'));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void told.push(notification.params.uri));
    await client.subscribeResource({ uri: 'aicc://cleo/news' });
    // The SDK's client opens the event stream (GET) once initialized; wait until the gateway holds it.
    const [session] = capsule.sessions();
    for (let i = 0; i < 100 && told.length === 0; i++) {
      capsule.setCapabilities(
        session!.id,
        i % 2 === 0 ? { sensors: ['sight', 'hearing'], actuators: ['hands', 'voice'], generators: ['quill'] } : VILLAGER_SESSION.capabilities!,
      );
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(told).toContain('tools');
    capsule.setCapabilities(session!.id, VILLAGER_SESSION.capabilities!);
    expect((await client.callTool({ name: 'go', arguments: { direction: 'south' } })).isError).toBeFalsy();
    for (let i = 0; i < 100 && !told.includes('aicc://cleo/news'); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(told).toContain('aicc://cleo/news');
  });

  it('refuses a missing or wrong key, a foreign Origin and a foreign Host, never echoing the key', async () => {
    await lend('cleo');
    const cases: Array<[Record<string, string>, number, RegExp]> = [
      [{}, 401, /no gateway key; send the header Authorization: Bearer <key>/],
      [{ authorization: 'Bearer not-the-key-at-all-0000' }, 401, /wrong gateway key/],
      [{ authorization: `Bearer ${KEY}`, origin: 'http://evil.example' }, 403, /origin http:\/\/evil\.example is not in the gateway's --origin list/],
      [{ authorization: `Bearer ${KEY}`, host: 'rebind.example:80' }, 403, /the Host "rebind\.example:80" is not this gateway's/],
      [{ authorization: `Bearer ${KEY}`, host: `${KEY}.example` }, 403, /the Host that holds the gateway key is not this gateway's/],
    ];
    for (const [headers, status, message] of cases) {
      const answer = await post('/mcp/cleo', headers, initialize);
      expect(answer.status, JSON.stringify(headers)).toBe(status);
      expect((JSON.parse(answer.text) as { error: { message: string } }).error.message).toMatch(message);
      expect(answer.text).not.toContain(KEY);
    }
    // An allowed Origin passes.
    expect((await post('/mcp/cleo', { authorization: `Bearer ${KEY}`, origin: ORIGIN }, initialize)).status).toBe(200);
  });

  it('says when no page lends the character, and when a session id is unknown', async () => {
    const none = await post('/mcp/bram', { authorization: `Bearer ${KEY}` }, initialize);
    expect(none.status).toBe(404);
    expect(none.text).toMatch(/no page lends bram; the game page connects its session to \/characters\/bram/);
    const stale = await post('/mcp/bram', { authorization: `Bearer ${KEY}`, 'mcp-session-id': 'nope' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(stale.status).toBe(404);
    const first = await post('/mcp/bram', { authorization: `Bearer ${KEY}` }, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(first.status).toBe(400);
    expect(first.text).toMatch(/start with an initialize request/);
  });

  it('refuses a page without the key, and a second page for a character already lent', async () => {
    const keyless = await connectWebSocket(`${gateway.url}/characters/ada`, { WebSocket: WebSocket as never, protocols: ['aicc.v0.1'] }).catch(() => undefined);
    for (let i = 0; i < 100 && !lines.some((line) => /refused \(4401\)/.test(line)); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(lines.find((line) => /refused \(4401\)/.test(line))).toMatch(/no gateway key; offer the subprotocols "aicc\.v0\.1" and "aicc-key\.<key>"/);
    keyless?.close();
    await lend('ada');
    const second = await connectWebSocket(`${gateway.url}/characters/ada`, { WebSocket: WebSocket as never, protocols: ['aicc.v0.1', `aicc-key.${KEY}`] });
    capsule.connect(second, { character: 'ada', ...VILLAGER_SESSION });
    for (let i = 0; i < 100 && !lines.some((line) => /another page already lends ada/.test(line)); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(lines.find((line) => /another page already lends ada/.test(line))).toMatch(/closed \(4400\): another page already lends ada; close it first/);
    // The first page still lends ada: an MCP client drives her.
    const client = await mcpClient('ada');
    expect((await client.callTool({ name: 'look', arguments: {} })).structuredContent).toMatchObject({ name: 'Bakery' });
  });

  it('ends the MCP session when the page takes its character away', async () => {
    await lend('cleo');
    const client = await mcpClient('cleo');
    await client.listTools();
    for (const session of capsule.sessions()) session.close('page closed');
    for (let i = 0; i < 100 && !lines.some((line) => /MCP session for cleo closed/.test(line)); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(lines.some((line) => /MCP session for cleo closed/.test(line))).toBe(true);
  });
});

describe('the MCP endpoint on a clock of its own: idle sessions, refusals, every POST answered', () => {
  const IDLE_MS = 60_000;
  const MCP = { authorization: `Bearer ${KEY}` };
  let clock: ManualClock;
  let timerOptions: Array<TimerOptions | undefined>;
  let village: Capsule;
  let agent: AgentClient;
  let endpoint: McpEndpoint;
  let server: Server;
  let port: number;
  let log: string[];
  /** The methods of the exchanges whose response the server saw close, in order. */
  let ended: string[];

  beforeEach(async () => {
    clock = new ManualClock();
    timerOptions = [];
    // The endpoint's clock, telling which options each timer was set with.
    const timers: Clock = {
      now: () => clock.now(),
      setTimeout: (callback, delayMs, options) => {
        timerOptions.push(options);
        return clock.setTimeout(callback, delayMs);
      },
      clearTimeout: (id) => clock.clearTimeout(id),
    };
    village = createCapsule({ world: { name: 'Millbrook', kind: 'text' }, clock: new ManualClock(), tickMode: 'hybrid', tickRateHz: 10 });
    bindTextWorld(village, new TextWorld(VILLAGE_SPEC));
    agent = await connectInProcess(village, { character: 'cleo', ...VILLAGER_SESSION });
    log = [];
    ended = [];
    endpoint = mcpEndpoint({
      characters: { get: (character) => (character === 'cleo' ? agent : undefined), news: () => undefined, onChange: () => () => {} },
      policy: new AccessPolicy([ORIGIN], KEY),
      port: () => port,
      log: (line) => log.push(line),
      clock: timers,
      idleMs: IDLE_MS,
    });
    server = createServer((request, response) => {
      response.once('close', () => ended.push(request.method ?? ''));
      endpoint.handle(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });

  afterEach(async () => {
    await endpoint.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await agent.close();
    village.dispose();
  });

  const ask = (method: string, headers: Record<string, string>, body?: unknown, keepAlive?: Agent): Promise<Answer> =>
    exchange(port, method, '/mcp/cleo', { ...MCP, ...headers }, body, keepAlive);
  /** A new session's id. */
  async function open(): Promise<string> {
    const answer = await ask('POST', {}, initialize);
    expect(answer.status).toBe(200);
    return answer.headers['mcp-session-id'] as string;
  }
  const ping = (session: string): Promise<Answer> => ask('POST', { 'mcp-session-id': session }, { jsonrpc: '2.0', id: 9, method: 'ping' });
  /** The session's event stream, open. */
  const openStream = (session: string): Promise<IncomingMessage> =>
    new Promise((resolve, reject) => {
      const request = httpRequest(
        { host: '127.0.0.1', port, path: '/mcp/cleo', method: 'GET', headers: { ...MCP, accept: 'text/event-stream', 'mcp-session-id': session } },
        resolve,
      );
      request.once('error', reject);
      request.end();
    });

  it(`frees the sessions clients left without DELETE once idle for idleMs: the next client is not locked out`, async () => {
    const abandoned: string[] = [];
    for (let i = 0; i < MAX_MCP_SESSIONS; i++) abandoned.push(await open());
    expect((await ask('POST', {}, initialize)).status).toBe(503);
    clock.advance(IDLE_MS - 1);
    expect(endpoint.sessions).toBe(MAX_MCP_SESSIONS);
    clock.advance(1);
    expect(endpoint.sessions).toBe(0);
    expect(log.filter((line) => /MCP session for cleo closed after 60 s idle/.test(line))).toHaveLength(MAX_MCP_SESSIONS);
    expect((await ping(abandoned[0]!)).status).toBe(404);
    expect(await open()).toMatch(/^[0-9a-f-]{36}$/);
    // Upkeep: no idle timer keeps Node alive.
    expect(timerOptions.length).toBeGreaterThan(0);
    expect(timerOptions.every((options) => options?.background === true)).toBe(true);
  });

  it('counts each request as activity', async () => {
    const session = await open();
    clock.advance(IDLE_MS - 1);
    expect((await ping(session)).status).toBe(200);
    clock.advance(IDLE_MS - 1);
    expect(endpoint.sessions).toBe(1);
    clock.advance(1);
    expect(endpoint.sessions).toBe(0);
  });

  it('takes a session whose event stream is open as busy however long, and idle from when the stream closed', async () => {
    const streamed = await open();
    const quiet = await open();
    const stream = await openStream(streamed);
    expect(stream.statusCode).toBe(200);
    clock.advance(3 * IDLE_MS);
    expect(endpoint.sessions).toBe(1);
    expect((await ping(quiet)).status).toBe(404);
    expect((await ping(streamed)).status).toBe(200);
    stream.destroy();
    // Once the server saw the stream close (the endpoint hears it on the same event).
    await vi.waitFor(() => expect(ended).toContain('GET'));
    clock.advance(IDLE_MS - 1);
    expect(endpoint.sessions).toBe(1);
    clock.advance(1);
    expect(endpoint.sessions).toBe(0);
  });

  it('refuses an initialize it will not serve before it builds a server for it: the heap does not grow with refusals', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heap = (): number => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 8 });
    const statuses = new Map<number, number>();
    const refuse = async (count: number): Promise<void> => {
      for (let i = 0; i < count; i += 8) {
        const answers = await Promise.all(
          Array.from({ length: 8 }, (_, j) =>
            ask('POST', (i + j) % 2 === 0 ? { accept: 'application/json' } : { 'content-type': 'text/plain' }, initialize, keepAlive),
          ),
        );
        for (const { status } of answers) statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    };
    await refuse(200);
    const before = heap();
    const REFUSALS = 2_000;
    await refuse(REFUSALS);
    const perRefusal = (heap() - before) / REFUSALS;
    keepAlive.destroy();
    expect(Object.fromEntries(statuses)).toEqual({ 406: 1_100, 415: 1_100 });
    expect(endpoint.sessions).toBe(0);
    // Each refusal used to keep its server, ~25 KB of it, for as long as the page lent the character.
    expect(perRefusal, `${perRefusal.toFixed(0)} bytes a refusal`).toBeLessThan(2_048);
  });

  it('never quotes the key a client put in the path or a header', async () => {
    const session = await open();
    const answers = [
      await ask('POST', { 'mcp-session-id': KEY }, { jsonrpc: '2.0', id: 1, method: 'ping' }),
      await exchange(port, 'POST', `/mcp/${KEY}`, MCP, initialize),
      await ask('POST', { 'mcp-session-id': session, 'mcp-protocol-version': KEY }, { jsonrpc: '2.0', id: 1, method: 'ping' }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 400]);
    for (const answer of answers) {
      expect(answer.text).not.toContain(KEY);
      expect(answer.text).toContain('<key>');
    }
  });

  it('answers every POST to a session, however malformed, within a bound', async () => {
    const session = await open();
    const to = { 'mcp-session-id': session };
    const cases: Array<[string, unknown, number, (answer: unknown) => void]> = [
      [
        'a batch that repeats a request id',
        [
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          { jsonrpc: '2.0', id: 1, method: 'ping' },
        ],
        400,
        (answer) => expect(answer).toMatchObject({ error: { code: -32600, message: expect.stringMatching(/repeats the request id 1/) } }),
      ],
      [
        'a request that is also a result',
        { jsonrpc: '2.0', id: 2, method: 'ping', result: {} },
        400,
        (answer) => expect(answer).toMatchObject({ error: { code: -32700 } }),
      ],
      [
        'a request that is also an error',
        { jsonrpc: '2.0', id: 3, method: 'ping', error: { code: 1, message: 'no' } },
        400,
        (answer) => expect(answer).toMatchObject({ error: { code: -32700 } }),
      ],
      [
        'a request with a member JSON-RPC has not',
        { jsonrpc: '2.0', id: 4, method: 'ping', extra: true },
        400,
        (answer) => expect(answer).toMatchObject({ error: { code: -32700 } }),
      ],
      [
        'params null',
        { jsonrpc: '2.0', id: 5, method: 'tools/list', params: null },
        400,
        (answer) => expect(answer).toMatchObject({ error: { code: -32700 } }),
      ],
      [
        'params an array',
        { jsonrpc: '2.0', id: 6, method: 'tools/list', params: [1] },
        400,
        (answer) => expect(answer).toMatchObject({ error: { code: -32700 } }),
      ],
      [
        'params._meta not an object',
        { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: 5 } },
        400,
        (answer) => expect(answer).toMatchObject({ error: { code: -32700 } }),
      ],
      [
        'a request cancelled in its own batch',
        [
          { jsonrpc: '2.0', id: 8, method: 'tools/list' },
          { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 8, reason: 'changed my mind' } },
        ],
        200,
        (answer) => expect(answer).toMatchObject({ jsonrpc: '2.0', id: 8, error: { code: -32800, message: expect.stringMatching(/cancelled/) } }),
      ],
      ['a response nobody asked for', { jsonrpc: '2.0', id: 10, result: {} }, 202, (answer) => expect(answer).toBeUndefined()],
      [
        'a batch of a request and a notification',
        [
          { jsonrpc: '2.0', id: 11, method: 'ping' },
          { jsonrpc: '2.0', method: 'notifications/initialized' },
        ],
        200,
        (answer) => expect(answer).toEqual({ jsonrpc: '2.0', id: 11, result: {} }),
      ],
    ];
    for (const [what, body, status, check] of cases) {
      const answer = await within(ask('POST', to, body), `an answer to ${what}`, 2_000);
      expect(answer.status, what).toBe(status);
      check(answer.text === '' ? undefined : JSON.parse(answer.text));
    }
    // The session still answers.
    expect((await ping(session)).status).toBe(200);
  });
});
