// Defects the gateway fuzz (test/fuzz/targets/gateway*.ts) found, each pinned here on its own:
// - a deeply nested record (10 KB of "[") overflowed JSON.stringify in the relay's re-serialization,
//   which threw out of the WebSocket's message handler and would take the gateway down;
// - an offer holding the key without the exact `aicc-key.` prefix (`AICC-KEY.<key>`, the key bare)
//   was selected as the subprotocol when pi-peers.v1 was missing, echoing the key in the handshake;
// - an Origin header holding the key was quoted in the 4403 close reason and in the log line;
// - a text frame that is not UTF-8 closed the page with 1007, but the log line said 1002.

import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AccessPolicy, CLOSE, KEY_PREFIX, selectSubprotocol, SUBPROTOCOL } from '../../../src/node/gateway/access.js';
import { MAX_RECORD_DEPTH, parseRecord } from '../../../src/node/gateway/records.js';
import { startGateway, type Gateway } from '../../../src/node/gateway/server.js';
import { agentEntry, BrowserClient, KEY, ORIGIN, startFakeAgent, tempDir, within, writeEntry, type FakeAgent } from './helpers.js';

const TOKEN = 'agent-token-5e1c0a9b7d3f';
const nested = (depth: number): string => `{"id":"deep","type":"get_state","x":${'['.repeat(depth)}${']'.repeat(depth)}}`;

describe('records nested too deep to re-serialize', () => {
  it('parseRecord refuses a record nested deeper than MAX_RECORD_DEPTH, with its id, and takes one at the limit', () => {
    // The record itself is the first level; each "[" one more.
    expect(parseRecord(nested(MAX_RECORD_DEPTH - 1))).toMatchObject({ ok: true });
    expect(parseRecord(nested(MAX_RECORD_DEPTH))).toEqual({
      ok: false,
      refusal: {
        type: 'response',
        id: 'deep',
        command: 'get_state',
        success: false,
        errorCode: 'invalid_request',
        error: `a record may nest objects and arrays at most ${MAX_RECORD_DEPTH} levels deep`,
        retryable: false,
      },
    });
    expect(parseRecord(`{"id":"deep","type":"prompt","message":"m","x":${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}}`)).toMatchObject({
      ok: false,
      refusal: { id: 'deep', errorCode: 'invalid_request' },
    });
  });

  describe('through the relay', () => {
    let home: ReturnType<typeof tempDir>;
    let agent: FakeAgent;
    let gateway: Gateway;
    let client: BrowserClient;

    beforeEach(async () => {
      home = tempDir('aicc-deep-');
      agent = await startFakeAgent(join(home.path, 'ada.sock'), TOKEN);
      writeEntry(home.path, agentEntry('ada', agent.endpoint, TOKEN));
      gateway = await startGateway({ target: { kind: 'relay', peersHome: home.path }, origins: [ORIGIN], key: KEY });
      client = BrowserClient.connect(`${gateway.url}/agents/ada`);
    });

    afterEach(async () => {
      client.close();
      await within(client.closed, 'the close');
      await gateway.close();
      await agent.close();
      home.remove();
    });

    it('answers a record 100,000 levels deep with invalid_request and goes on relaying', async () => {
      await client.hello();
      client.send(nested(100_000));
      expect(await client.waitFor((r) => r.id === 'deep', 'the refusal')).toMatchObject({ success: false, errorCode: 'invalid_request' });
      expect(await client.request({ id: 's1', type: 'get_state' })).toMatchObject({ success: true });
      expect(agent.lines.some((line) => line.includes('"deep"'))).toBe(false);
    });

    it('refuses such a hello before reaching the agent', async () => {
      client.send(`{"id":"h","type":"hello","protocol":{"version":"1.0","minVersion":"1.0"},"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
      expect(await within(client.closed, 'the close')).toMatchObject({ code: CLOSE.badRequest });
      expect(client.records[0]).toMatchObject({ id: 'h', success: false, errorCode: 'hello_required' });
      expect(agent.connections).toBe(0);
    });
  });
});

describe('the key is never echoed back', () => {
  let gateway: Gateway;
  let logs: string[];

  beforeEach(async () => {
    const mine: string[] = (logs = []);
    // Every connection here is refused at the handshake: no agent is ever looked for.
    gateway = await startGateway({
      target: { kind: 'relay', peersHome: join(tmpdir(), 'aicc-no-agents') },
      origins: [ORIGIN],
      key: KEY,
      log: (line) => mine.push(line),
    });
  });

  afterEach(async () => {
    await gateway.close();
    expect(logs.join('\n')).not.toContain(KEY);
  });

  /** The Sec-WebSocket-Protocol the gateway answers an upgrade offering `protocols` with. */
  function selected(protocols: string, origin = ORIGIN): Promise<string | undefined> {
    return new Promise((resolve, reject) => {
      const upgrade = request(`http://127.0.0.1:${gateway.port}/`, {
        headers: {
          Connection: 'Upgrade',
          Upgrade: 'websocket',
          'Sec-WebSocket-Version': '13',
          'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
          'Sec-WebSocket-Protocol': protocols,
          Origin: origin,
        },
      });
      upgrade.on('upgrade', (response, socket) => {
        socket.destroy();
        resolve(response.headers['sec-websocket-protocol']);
      });
      upgrade.on('response', (response) => (response.resume(), resolve(undefined)));
      upgrade.on('error', reject);
      upgrade.end();
    });
  }

  it('selectSubprotocol never picks an offer that holds the key, whatever its prefix', () => {
    for (const offer of [`AICC-KEY.${KEY}`, KEY, `aicc-key-${KEY}`, `${KEY_PREFIX}${KEY}`])
      expect(selectSubprotocol(new Set([offer]), SUBPROTOCOL, KEY)).toBe(false);
    // Another offer still carries the 4400 of a missing pi-peers.v1.
    expect(selectSubprotocol(new Set([`AICC-KEY.${KEY}`, 'pi-daemon.v2']), SUBPROTOCOL, KEY)).toBe('pi-daemon.v2');
    expect(selectSubprotocol(new Set([SUBPROTOCOL, KEY]), SUBPROTOCOL, KEY)).toBe(SUBPROTOCOL);
  });

  it('answers no subprotocol to an upgrade that offers only the key under another prefix', async () => {
    expect(await selected(`AICC-KEY.${KEY}`)).toBeUndefined();
    expect(await selected(KEY)).toBeUndefined();
    expect(await selected(`pi-daemon.v2, ${KEY_PREFIX}${KEY}`)).toBe('pi-daemon.v2');
  });

  it('does not quote an Origin that holds the key, in the close reason or the log', async () => {
    const origin = `http://${KEY}.example`;
    expect(new AccessPolicy([ORIGIN], KEY).check(origin, [SUBPROTOCOL, `${KEY_PREFIX}${KEY}`])).toEqual({
      code: CLOSE.badOrigin,
      reason: "an origin that holds the gateway key is not in the gateway's --origin list",
    });
    const client = BrowserClient.connect(`${gateway.url}/`, { origin });
    const closed = await within(client.closed, 'the close');
    expect(closed.code).toBe(CLOSE.badOrigin);
    expect(closed.reason).not.toContain(KEY);
    await within(
      (async () => {
        while (!logs.some((line) => line.includes('refused (4403)'))) await new Promise((resolve) => setTimeout(resolve, 5));
      })(),
      'the log line',
    );
    // An origin without the key is still named, clipped.
    expect(new AccessPolicy([ORIGIN], KEY).check('http://evil.example', [SUBPROTOCOL, `${KEY_PREFIX}${KEY}`])?.reason).toBe(
      "origin http://evil.example is not in the gateway's --origin list",
    );
  });
});

describe('the log names the close code the page got', () => {
  it('1007 for a text frame that is not UTF-8', async () => {
    const logs: string[] = [];
    const gateway = await startGateway({
      target: { kind: 'relay', peersHome: join(tmpdir(), 'aicc-no-agents') },
      origins: [ORIGIN],
      key: KEY,
      log: (line) => logs.push(line),
    });
    const client = BrowserClient.connect(`${gateway.url}/agents/ada`);
    await within(client.opened, 'the open');
    // ws sends a Buffer given as text as is: what a broken client puts on the wire.
    client.socket.send(Buffer.from([0x7b, 0xff, 0x7d]), { binary: false });
    expect((await within(client.closed, 'the close')).code).toBe(1007);
    await within(
      (async () => {
        while (!logs.some((line) => line.includes('#1 '))) await new Promise((resolve) => setTimeout(resolve, 5));
      })(),
      'the log line',
    );
    expect(logs.find((line) => line.includes('#1 '))).toContain('closed (1007): ');
    await gateway.close();
  });
});
