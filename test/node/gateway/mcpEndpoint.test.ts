// A page lends its character to the gateway; an MCP client on the same machine drives it over
// Streamable HTTP. The page here is a capsule in this process behind a real WebSocket (the `ws`
// package, as a page's WebSocket would connect), the client the MCP SDK's own. Foreign Hosts and
// Origins, missing and wrong keys are refused, and the key never appears in an answer or a log line.

import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createCapsule, realClock, startIntervalDriver } from '../../../src/index.js';
import { connectWebSocket } from '../../../src/links/websocket.js';
import { startGateway, type Gateway } from '../../../src/node/gateway/index.js';
import { bindTextWorld } from '../../../src/adapters/text/bind.js';
import { TextWorld } from '../../../src/adapters/text/world.js';
import type { Capsule } from '../../../src/runtime/capsule.js';
import { VILLAGE_SPEC, VILLAGER_SESSION } from '../../../src/worlds/village/world.js';

const KEY = 'test-key-0123456789abcdef';
const ORIGIN = 'http://localhost:5173';
let gateway: Gateway;
let lines: string[];
let peers: string;
let capsule: Capsule;
let stopDriver: () => void;
let clients: Client[];

beforeEach(async () => {
  lines = [];
  clients = [];
  peers = mkdtempSync(join(tmpdir(), 'aicc-peers-'));
  gateway = await startGateway({ target: { kind: 'relay', peersHome: peers }, origins: [ORIGIN], key: KEY, mcp: true, log: (line) => lines.push(line) });
  // The game page: the village on the wall clock, in event mode so calls run at once.
  capsule = createCapsule({ world: { name: 'Millbrook', kind: 'text' }, clock: realClock(), tickMode: 'hybrid', tickRateHz: 10 });
  bindTextWorld(capsule, new TextWorld(VILLAGE_SPEC));
  stopDriver = startIntervalDriver(capsule);
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

/** A raw POST, to see exactly what the gateway answers. */
function post(path: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port: gateway.port,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += String(chunk)));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    request.once('error', reject);
    request.end(JSON.stringify(body));
  });
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const text = (result: unknown): string => (result as { content: Array<{ text: string }> }).content[0]!.text;

describe('the gateway serving MCP', () => {
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
