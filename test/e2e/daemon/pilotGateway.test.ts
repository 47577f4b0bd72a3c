// The pilot through the gateway (`aicc gateway --daemon`) to the real pi-daemon 0.3.3, as a page
// runs it: DaemonClient on a WebSocket to the gateway, DaemonBackend on it. The gateway keeps each
// page to the sessions its connection opened; the backend must still open, carry on after its page
// connection drops mid-wake, and be told plainly when another page holds its character.

import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { DaemonBackend } from '../../../src/agent/pilot/index.js';
import { connectWebSocket, type WebSocketConstructor } from '../../../src/links/websocket.js';
import { startGateway, type Gateway } from '../../../src/node/gateway/server.js';
import { DaemonClient, type ReconnectReport } from '../../../src/pi/index.js';
import { startStubModel, userTexts, type StubModel } from '../stubModel.js';
import { describeWithRealDaemon, startRealDaemon, type RealDaemon } from './realDaemon.js';

const KEY = 'pilot-gateway-key-0123456789abcdef';

describeWithRealDaemon('the pilot through the gateway to the real pi-daemon', () => {
  let stub: StubModel;
  let daemon: RealDaemon;
  let gateway: Gateway;
  const clients: DaemonClient[] = [];

  beforeAll(async () => {
    stub = await startStubModel({ fallbackReply: 'fine' });
    daemon = await startRealDaemon({ modelBaseUrl: stub.baseUrl });
    gateway = await startGateway({ target: { kind: 'daemon', socketPath: daemon.socket }, origins: [], key: KEY, log: () => {} });
  }, 240_000);
  afterEach(() => {
    for (const client of clients.splice(0)) client.disconnect('test over');
  });
  afterAll(async () => {
    await gateway?.close();
    await daemon?.dispose();
    await stub?.close();
  });

  /** A page's DaemonClient, on its own WebSocket connection to the gateway. */
  async function page(): Promise<DaemonClient> {
    const link = await connectWebSocket(`${gateway.url}/`, {
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      protocols: ['pi-daemon.v2', `aicc-key.${KEY}`],
    });
    const client = await DaemonClient.connect(link);
    clients.push(client);
    return client;
  }

  it('opens a session, prompts and reads the reply through the gateway', async () => {
    const backend = await DaemonBackend.open(await page(), { sessionId: 'gw-bram', cwd: daemon.workDir });
    stub.script('hello through the gateway');
    await backend.send('prompt', 'BRIEFING');
    expect(await backend.reply()).toBe('hello through the gateway');
    await backend.close();
  }, 60_000);

  it("keeps the conversation when the page's link drops and the client reconnects: it opens its session again, then attaches", async () => {
    const connect = () =>
      connectWebSocket(`${gateway.url}/`, { WebSocket: WebSocket as unknown as WebSocketConstructor, protocols: ['pi-daemon.v2', `aicc-key.${KEY}`] });
    const first = await connect();
    const client = await DaemonClient.connect(first, { reconnect: { connect, baseDelayMs: 50 } });
    clients.push(client);
    const backend = await DaemonBackend.open(client, { sessionId: 'gw-bram-drop', cwd: daemon.workDir });
    stub.script('first answer');
    await backend.send('prompt', 'BRIEFING');
    expect(await backend.reply()).toBe('first answer');
    const reconnected = new Promise<ReconnectReport>((resolve) => client.on('reconnect', resolve));
    first.close('the network blinked');
    const report = await reconnected;
    expect(report.reattached).toEqual([backend.session]);
    expect(report.lost).toEqual([]);
    const asked = stub.requests.length;
    stub.script('second answer');
    await backend.send('prompt', 'digest 1');
    expect(await backend.reply()).toBe('second answer');
    // The same incarnation: the model saw the first exchange too.
    expect(userTexts(stub.requests[asked]!)).toEqual(['BRIEFING', 'digest 1']);
    await backend.close();
  }, 60_000);

  it('after its page connection drops mid-wake, a new page opens the next generation and briefs the model again', async () => {
    const first = await page();
    const before = await DaemonBackend.open(first, { sessionId: 'gw-bram-reload', cwd: daemon.workDir });
    stub.script({ text: 'slow '.repeat(40), chunkChars: 1, chunkDelayMs: 100 });
    const asked = stub.requests.length;
    await before.send('prompt', 'BRIEFING');
    await until(() => stub.requests.length > asked && before.busy);
    // The page reloads: its connection ends while the daemon still runs the wake.
    first.disconnect('reload');
    clients.splice(clients.indexOf(first), 1);
    // The gateway may see the new connection before the old one's end: the new page asks again.
    let after: DaemonBackend | undefined;
    for (let tries = 0; after === undefined; tries++) {
      try {
        after = await DaemonBackend.open(await page(), { sessionId: 'gw-bram-reload', cwd: daemon.workDir });
      } catch (error) {
        if (tries > 50 || (error as { details?: { host?: { rule?: unknown } } }).details?.host?.rule !== 'other_page') throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    expect(after.session.generation).toBeGreaterThan(before.session.generation);
    const fresh = stub.requests.length;
    stub.script('back again');
    await after.send('prompt', 'BRIEFING AGAIN');
    expect(await after.reply()).toBe('back again');
    expect(userTexts(stub.requests[fresh]!)).toEqual(['BRIEFING AGAIN']);
    await after.close();
  }, 90_000);

  it('tells a second page that another page holds the character, naming the rule', async () => {
    const backend = await DaemonBackend.open(await page(), { sessionId: 'gw-bram-held', cwd: daemon.workDir });
    await expect(DaemonBackend.open(await page(), { sessionId: 'gw-bram-held', cwd: daemon.workDir })).rejects.toMatchObject({
      code: 'denied_by_gateway',
      details: { host: { rule: 'other_page' } },
    });
    await backend.close();
  }, 60_000);
});

/** Resolves once `condition` holds, looking every 20 ms for at most 10 s. */
async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 10_000) throw new Error('until: the condition did not hold within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
