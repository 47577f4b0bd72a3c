import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AccessPolicy, checkKeyFormat, CLOSE, normalizeOrigin } from '../../../src/node/gateway/access.js';
import { startGateway, type Gateway } from '../../../src/node/gateway/server.js';
import { CapsuleError } from '../../../src/base/errors.js';
import { BrowserClient, KEY, ORIGIN, tempDir, within } from './helpers.js';

let gateway: Gateway;
let logs: string[];
let peers: ReturnType<typeof tempDir>;

async function start(extra: { maxPayload?: number; maxConnections?: number } = {}): Promise<void> {
  // Each gateway writes to its own array: a late line from an earlier gateway stays there.
  const mine: string[] = (logs = []);
  gateway = await startGateway({ target: { kind: 'relay', peersHome: peers.path }, origins: [ORIGIN], key: KEY, log: (line) => mine.push(line), ...extra });
}

beforeEach(async () => {
  peers = tempDir('aicc-peers-');
  await start();
});

afterEach(async () => {
  await gateway.close();
  peers.remove();
});

describe('gateway access control', () => {
  it('listens on 127.0.0.1 on a free port and says so in one line', () => {
    expect(gateway.url).toBe(`ws://127.0.0.1:${gateway.port}`);
    expect(gateway.port).toBeGreaterThan(0);
    expect(logs).toEqual([`aicc gateway: relaying to the agents in PI_PEERS_HOME on ws://127.0.0.1:${gateway.port}/ for origin ${ORIGIN}`]);
  });

  it('refuses a page from another origin with 4403 and a reason naming it', async () => {
    const client = BrowserClient.connect(`${gateway.url}/agents/a`, { origin: 'https://evil.example' });
    expect(await within(client.closed, 'the close')).toEqual({
      code: CLOSE.badOrigin,
      reason: "origin https://evil.example is not in the gateway's --origin list",
    });
    expect(client.frames).toEqual([]);
    expect(logs[1]).toBe("aicc gateway: #1 origin https://evil.example refused (4403): origin https://evil.example is not in the gateway's --origin list");
  });

  it('refuses a missing key with 4401 and says how to present one', async () => {
    const client = BrowserClient.connect(`${gateway.url}/agents/a`, { key: null });
    expect(await within(client.closed, 'the close')).toEqual({
      code: CLOSE.badKey,
      reason: 'no gateway key; offer the subprotocols "pi-peers.v1" and "aicc-key.<key>"',
    });
  });

  it('refuses a wrong key with 4401, and never writes either key to the log', async () => {
    const wrong = 'wrong-key-000000000000000000000';
    const client = BrowserClient.connect(`${gateway.url}/agents/a`, { key: wrong });
    expect(await within(client.closed, 'the close')).toEqual({ code: CLOSE.badKey, reason: 'wrong gateway key' });
    expect(logs.join('\n')).not.toContain(wrong);
    expect(logs.join('\n')).not.toContain(KEY);
  });

  it('admits the right key from an allowed origin, and answers with pi-peers.v1, never the key', async () => {
    const client = BrowserClient.connect(`${gateway.url}/agents/a`);
    await within(client.opened, 'the open');
    expect(client.socket.protocol).toBe('pi-peers.v1');
    client.close();
    await client.closed;
  });

  it('admits a program that sends no Origin but has the key', async () => {
    const client = BrowserClient.connect(`${gateway.url}/agents/a`, { origin: null });
    await within(client.opened, 'the open');
    client.close();
  });

  it('refuses a client that offers the key without pi-peers.v1', async () => {
    const client = BrowserClient.connect(`${gateway.url}/agents/a`, { protocols: [`aicc-key.${KEY}`] });
    // The server selects no subprotocol; a client that offered some then fails the handshake itself.
    await expect(within(client.opened, 'the open')).rejects.toThrow(/no subprotocol/i);
  });

  it('refuses an unknown path with 4404 and the shape to use', async () => {
    const client = BrowserClient.connect(`${gateway.url}/elsewhere`);
    expect(await within(client.closed, 'the close')).toEqual({ code: CLOSE.notFound, reason: 'name the agent: connect to /agents/<id> or /?agent=<id>' });
  });

  it('closes a connection whose message is over maxPayload with 1009', async () => {
    await gateway.close();
    await start({ maxPayload: 1024 });
    const client = BrowserClient.connect(`${gateway.url}/agents/a`);
    await within(client.opened, 'the open');
    client.send('x'.repeat(1025));
    expect((await within(client.closed, 'the close')).code).toBe(CLOSE.tooBig);
    await vi.waitFor(() => expect(logs.at(-1)).toMatch(/closed \(1009\)/), { timeout: 5000 });
    expect(logs.at(-1)).toMatch(
      /^aicc gateway: #1 origin http:\/\/localhost:5173 relay to an agent not yet found: closed \(1009\): .*; 0 records in, 0 out, \d+\.\d s$/,
    );
  });

  it('refuses connections beyond maxConnections with 1013', async () => {
    await gateway.close();
    await start({ maxConnections: 1 });
    const first = BrowserClient.connect(`${gateway.url}/agents/a`);
    await within(first.opened, 'the first open');
    const second = BrowserClient.connect(`${gateway.url}/agents/a`);
    expect((await within(second.closed, 'the close')).code).toBe(CLOSE.tryAgainLater);
    first.close();
  });

  it('answers a plain HTTP request with 426 and what the endpoint is', async () => {
    const response = await fetch(`http://127.0.0.1:${gateway.port}/`);
    expect(response.status).toBe(426);
    expect(await response.text()).toMatch(/WebSocket endpoint for pi-peers 1\.0/);
  });
});

describe('startGateway options', () => {
  it('refuses a short key and a non-origin, naming the place and the fix', async () => {
    await expect(startGateway({ target: { kind: 'relay', peersHome: '/nowhere' }, origins: [ORIGIN], key: 'short' })).rejects.toThrow(
      'startGateway: the gateway key must be at least 16 characters (got 5); generate one with `openssl rand -hex 24`',
    );
    await expect(startGateway({ target: { kind: 'relay', peersHome: '/nowhere' }, origins: ['http://localhost:5173/app'], key: KEY })).rejects.toThrow(
      CapsuleError,
    );
  });
});

describe('AccessPolicy', () => {
  const policy = new AccessPolicy(['http://localhost:5173', 'null'], KEY);
  const offer = (key: string): string[] => ['pi-peers.v1', `aicc-key.${key}`];

  it('matches origins after normalizing them', () => {
    expect(policy.check('HTTP://LOCALHOST:5173', offer(KEY))).toBeUndefined();
    expect(policy.check('http://localhost:5174', offer(KEY))?.code).toBe(CLOSE.badOrigin);
    expect(policy.check('null', offer(KEY))).toBeUndefined();
  });

  it('compares keys of any length without throwing', () => {
    expect(policy.check(undefined, offer(`${KEY}x`))?.reason).toBe('wrong gateway key');
    expect(policy.check(undefined, offer('a'))?.reason).toBe('wrong gateway key');
    expect(policy.check(undefined, offer(KEY))).toBeUndefined();
  });

  it('normalizes origins and rejects paths', () => {
    expect(normalizeOrigin('http://localhost:80')).toBe('http://localhost');
    expect(normalizeOrigin('http://localhost:5173/')).toBe('http://localhost:5173');
    expect(normalizeOrigin('http://localhost:5173/x')).toBeInstanceOf(Error);
    expect(normalizeOrigin('localhost')).toBeInstanceOf(Error);
    // A missing scheme is named as such, with the fix (it once suggested "localhost://").
    expect(String(normalizeOrigin('localhost:5173'))).toBe(
      'Error: "localhost:5173" is not an origin; write it as scheme://host[:port], e.g. http://localhost:5173',
    );
  });

  it.each([
    // Each suggestion is an origin a page really sends, built from what was written where it can be.
    ['localhost', '"localhost" is not an origin; write it as scheme://host[:port], e.g. http://localhost'],
    ['127.0.0.1:8080', '"127.0.0.1:8080" is not an origin; write it as scheme://host[:port], e.g. http://127.0.0.1:8080'],
    ['example.com/app', '"example.com/app" is not an origin; write it as scheme://host[:port], e.g. http://example.com'],
    ['file:///home/me/game.html', '"file:///home/me/game.html" is not an origin: file:// pages send the origin "null"; write null to admit them'],
    ['foo://bar', '"foo://bar" is not an origin a page sends; pages come from http:// or https://, e.g. http://bar'],
    ['http://localhost:5173/app', '"http://localhost:5173/app" is not an origin; write only scheme://host[:port], with no path, e.g. http://localhost:5173'],
  ])('says how to write %j as an origin', (text, message) => {
    expect((normalizeOrigin(text) as Error).message).toBe(message);
  });

  it('suggests only suggestions it would accept', () => {
    for (const text of ['localhost', '127.0.0.1:8080', 'example.com/app', 'localhost:5173', 'foo://bar', 'http://localhost:5173/app']) {
      const suggestion = /e\.g\. (\S+)$/.exec((normalizeOrigin(text) as Error).message)![1]!;
      expect(normalizeOrigin(suggestion)).toBe(suggestion);
    }
  });

  it('wants keys long enough and made of subprotocol-safe characters', () => {
    expect(checkKeyFormat(KEY)).toBeUndefined();
    expect(checkKeyFormat('has spaces in it, sixteen+')).toMatch(/only letters, digits/);
  });
});
