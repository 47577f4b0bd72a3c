// The Phaser demo with `?agent=mcp` in Chromium, end to end: the page lends a villager by opening
// /characters/<id> on its own origin, the demo server's proxy joins that socket to a real `aicc
// gateway` serving MCP (adding the key there), and the MCP SDK's own Client drives the villager over
// Streamable HTTP at the gateway's /mcp/<id>. Nothing else drives that villager, so a walk the page
// shows is the client's. The gateway key never reaches the page, its console or a log line.

import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ConsoleMessage } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleDemo } from '../../../demos/server/bundle.js';
import { startDemoServer, type DemoServer } from '../../../demos/server/server.js';
import { startGateway, type Gateway } from '../../../src/node/gateway/server.js';
import { tempDir } from '../../node/gateway/helpers.js';
import { launchChromium, type Chromium } from './chromium.js';
import { DemoPage, type DemoState } from './harness.js';

const root = join(import.meta.dirname, '..', '..', '..');
const key = randomBytes(24).toString('hex');

let browser: Chromium;
let peers: ReturnType<typeof tempDir>;
let gateway: Gateway;
let server: DemoServer;
const log: string[] = [];
/** Every console message of every page, of any type. */
const consoleLines: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  browser.context.on('console', (message: ConsoleMessage) => consoleLines.push(`${message.type()}: ${message.text()}`));
  // Relay mode with no agents: only its MCP side is used here.
  peers = tempDir('aicc-e2e-browser-mcp-');
  gateway = await startGateway({
    target: { kind: 'relay', peersHome: peers.path },
    origins: ['http://localhost:5173'],
    key,
    mcp: true,
    log: (line) => log.push(line),
  });
  server = await startDemoServer({
    root,
    demos: [await bundleDemo(join(root, 'demos'), 'phaser')],
    port: 0,
    gateway: { url: `${gateway.url}/`, key },
    log: (line) => log.push(line),
  });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await gateway?.close();
  await browser?.close();
  peers?.remove();
});

/** An MCP client on `character`; the page's session may still be reaching the gateway, so retry a while. */
async function mcpClient(character: string): Promise<Client> {
  const url = new URL(`http://127.0.0.1:${gateway.port}/mcp/${character}`);
  for (let attempt = 0; ; attempt++) {
    const client = new Client({ name: 'chromium e2e', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
      return client;
    } catch (error) {
      if (attempt >= 100 || !/no page lends/.test(String(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** Polls (every 100 ms, at most `timeoutMs`) until `check` holds for the page's state. */
async function waitForState(page: DemoPage, check: (state: DemoState) => boolean, what: string, timeoutMs = 15_000): Promise<DemoState> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await page.state();
    if (check(state)) return state;
    if (Date.now() > deadline) throw new Error(`${what} not within ${timeoutMs} ms; the page shows ${JSON.stringify(state.characters)}`);
    await page.page.waitForTimeout(100);
  }
}

/** Waits (at most 10 s) for a log line matching `pattern`. */
async function waitForLog(pattern: RegExp): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const line = log.find((l) => pattern.test(l));
    if (line !== undefined) return line;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no log line matching ${pattern} within 10 s; the log: ${JSON.stringify(log)}`);
}

type Position = { id: string; x: number; y: number; moving: boolean };
const textOf = (result: unknown): string => (result as { content: Array<{ text: string }> }).content[0]!.text;

describe('/phaser/?agent=mcp', () => {
  it('lends cleo to the gateway, where an MCP client lists her tools, reads her position and walks her', async () => {
    const page = await DemoPage.open(browser.context, `${server.url}phaser/?agent=mcp&characters=3`);
    let client: Client | undefined;
    try {
      const ready = await page.waitReady(60_000);
      expect(ready.agent).toBe('mcp');
      expect(ready.characters.map((c) => c.id)).toEqual(['ada', 'bram', 'cleo']);
      expect(await page.page.locator('#who').textContent()).toBe('an MCP client drives cleo, scripts the rest');

      client = await mcpClient('cleo');
      expect(client.getServerVersion()?.name).toBe('aicc-cleo');
      const tools = (await client.listTools()).tools;
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['position', 'nearby', 'move_to', 'move_by', 'stop', 'say', 'observe']));
      expect(tools.find((tool) => tool.name === 'position')?.annotations?.readOnlyHint).toBe(true);

      // The sensor reads what the page shows.
      const before = (await client.callTool({ name: 'position', arguments: {} })).structuredContent as Position;
      expect(before).toMatchObject({ id: 'cleo', moving: false });
      const shown = (await page.state()).characters.find((c) => c.id === 'cleo')!;
      expect(Math.abs(shown.x - before.x)).toBeLessThanOrEqual(1);
      expect(Math.abs(shown.y - before.y)).toBeLessThanOrEqual(1);

      // A bad input is refused as an isError result the model can read, and moves nobody.
      const refused = await client.callTool({ name: 'move_by', arguments: { dx: 'far', dy: 0 } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^move_by refused \(invalid_input\)/);
      expect(((await client.callTool({ name: 'position', arguments: {} })).structuredContent as Position).x).toBe(before.x);

      // The actuator: 60 px toward the middle of the green; the page shows her walk there.
      const dx = before.x < 400 ? 60 : -60;
      const walk = await client.callTool({ name: 'move_by', arguments: { dx, dy: 0 } });
      expect(walk.isError).toBeFalsy();
      expect(walk.structuredContent).toMatchObject({ to: { x: before.x + dx, y: before.y } });
      const arrived = await waitForState(
        page,
        (state) => {
          const cleo = state.characters.find((c) => c.id === 'cleo')!;
          return Math.abs(cleo.x - (before.x + dx)) <= 2 && Math.abs(cleo.y - before.y) <= 2;
        },
        `cleo at x ${before.x + dx}`,
      );
      const after = (await client.callTool({ name: 'position', arguments: {} })).structuredContent as Position;
      expect(Math.abs(after.x - (before.x + dx))).toBeLessThanOrEqual(2);
      // The page was read as she came within 2 px; she may have walked the last of them since.
      expect(Math.abs(arrived.characters.find((c) => c.id === 'cleo')!.x - after.x)).toBeLessThanOrEqual(4);

      // The scripted villagers are not lent.
      const other = await fetch(`http://127.0.0.1:${gateway.port}/mcp/bram`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        }),
      });
      expect(other.status).toBe(404);

      expect(await page.problems()).toEqual([]);
      expect(await page.page.content()).not.toContain(key);
    } finally {
      await client?.close().catch(() => {});
      await page.close();
    }
    // The page leaving takes cleo away: the proxy's connection and the gateway's lending end.
    expect(await waitForLog(/^demo:web: \/characters\/cleo #\d+ closed/)).not.toContain(key);
    await waitForLog(/aicc gateway: #\d+ no origin lends cleo: closed/);
    expect(consoleLines.length).toBeGreaterThan(0);
    expect(consoleLines.join('\n')).not.toContain(key);
    expect(log.join('\n')).not.toContain(key);
  }, 120_000);

  it('lends the villager ?character= names', async () => {
    const page = await DemoPage.open(browser.context, `${server.url}phaser/?agent=mcp&characters=3&character=ada`);
    let client: Client | undefined;
    try {
      await page.waitReady(60_000);
      client = await mcpClient('ada');
      expect(((await client.callTool({ name: 'position', arguments: {} })).structuredContent as Position).id).toBe('ada');
      expect(await page.problems()).toEqual([]);
    } finally {
      await client?.close().catch(() => {});
      await page.close();
    }
    expect(consoleLines.join('\n')).not.toContain(key);
    expect(log.join('\n')).not.toContain(key);
  }, 90_000);
});
