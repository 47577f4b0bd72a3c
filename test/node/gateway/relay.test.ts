import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CLOSE } from '../../../src/node/gateway/access.js';
import { startGateway, type Gateway } from '../../../src/node/gateway/server.js';
import { agentEntry, BrowserClient, startFakeAgent, tempDir, within, writeEntry, type FakeAgent } from './helpers.js';

const TOKEN = 'agent-token-7f3a9c0e5b1d';
let home: ReturnType<typeof tempDir>;
let agent: FakeAgent;
let gateway: Gateway;
let logs: string[];
let clients: BrowserClient[];

function connect(path = '/agents/ada'): BrowserClient {
  const client = BrowserClient.connect(`${gateway.url}${path}`);
  clients.push(client);
  return client;
}

/** Everything a browser or the log could show: the token must be in none of it. */
function everythingSeen(): string {
  return [...clients.flatMap((client) => client.frames), ...logs].join('\n');
}

beforeEach(async () => {
  home = tempDir('aicc-relay-');
  // Each gateway writes to its own array: a late line from the last test's gateway stays there.
  const mine: string[] = (logs = []);
  clients = [];
  agent = await startFakeAgent(join(home.path, 'ada.sock'), TOKEN);
  writeEntry(home.path, agentEntry('ada', agent.endpoint, TOKEN));
  gateway = await startGateway({
    target: { kind: 'relay', peersHome: home.path },
    origins: ['http://localhost:5173'],
    key: 'test-gateway-key-0123456789abcdef',
    log: (line) => mine.push(line),
  });
});

afterEach(async () => {
  // The token is checked after every test, whatever the test did.
  await Promise.all(clients.map((client) => (client.close(), within(client.closed, 'a client to close'))));
  await gateway.close();
  await agent.close();
  expect(everythingSeen()).not.toContain(TOKEN);
  home.remove();
});

describe('relay mode', () => {
  it('adds the agent token to the hello; the browser never sees it', async () => {
    const client = connect();
    const hello = await client.hello({ from: { id: 'page-1', label: 'Village page', host: 'browser' } });
    expect(hello).toMatchObject({ type: 'response', id: 'hello-1', success: true });
    expect(JSON.parse(agent.lines[0]!)).toEqual({
      id: 'hello-1',
      type: 'hello',
      protocol: { version: '1.0', minVersion: '1.0' },
      from: { id: 'page-1', label: 'Village page', host: 'browser' },
      token: TOKEN,
    });
    const state = await client.request({ id: 's1', type: 'get_state' });
    expect(state).toMatchObject({ success: true, data: { id: 'agent-1', idle: true } });
    expect(client.frames.join('')).not.toContain(TOKEN);
  });

  it('picks the agent from ?agent= as well', async () => {
    const client = connect('/?agent=ada');
    expect(await client.hello()).toMatchObject({ success: true });
  });

  it('replaces the token in anything the agent sends back', async () => {
    agent.leakToken = true;
    const client = connect();
    const hello = await client.hello();
    expect(hello.echo).toBe('[redacted]');
  });

  it('refuses a hello that carries a token, without ever reaching the agent', async () => {
    const client = connect();
    client.send({ id: 'h', type: 'hello', protocol: { version: '1.0', minVersion: '1.0' }, token: 'guess' });
    expect(await within(client.closed, 'the close')).toEqual({
      code: CLOSE.badKey,
      reason: 'a browser must not send a token; the gateway authenticates to the agent itself',
    });
    expect(client.records[0]).toMatchObject({ id: 'h', success: false, errorCode: 'auth_failed' });
    expect(agent.connections).toBe(0);
  });

  it('refuses a first record that is not a hello', async () => {
    const client = connect();
    client.send({ id: 'p', type: 'prompt', message: 'hi' });
    expect((await within(client.closed, 'the close')).code).toBe(CLOSE.badRequest);
    expect(client.records[0]).toMatchObject({ id: 'p', errorCode: 'hello_required' });
  });

  it('forwards each later record as exactly one line, however it was written', async () => {
    const client = connect();
    await client.hello();
    // Raw newlines around the JSON and an escaped newline inside a string: still one record.
    client.send('\n{"id":"p1","type":"prompt","message":"line one\\nline two"}\n');
    const answer = await client.waitFor((r) => r.id === 'p1', 'the echo');
    expect(answer).toMatchObject({ success: true, data: { echoed: { id: 'p1', type: 'prompt', message: 'line one\nline two' } } });
    expect(agent.lines).toHaveLength(2);
    // A record the gateway has no name for still goes on: the relay is transparent to new types.
    await client.request({ id: 'r1', type: 'response', command: 'approval', success: true });
    expect(JSON.parse(agent.lines[2]!)).toEqual({ id: 'r1', type: 'response', command: 'approval', success: true });
  });

  it('refuses a second hello, and a token in any later record, without forwarding them', async () => {
    const client = connect();
    await client.hello();
    expect(await client.request({ id: 'h2', type: 'hello', protocol: { version: '1.0', minVersion: '1.0' } })).toMatchObject({ errorCode: 'invalid_request' });
    expect(await client.request({ id: 'x', type: 'get_state', token: 'sneaky' })).toMatchObject({ errorCode: 'auth_failed' });
    expect(agent.lines).toHaveLength(1);
  });

  it('answers agent_not_found for an unknown id and closes with 4404', async () => {
    const client = connect('/agents/nobody');
    client.send({ id: 'h', type: 'hello', protocol: { version: '1.0', minVersion: '1.0' } });
    expect((await within(client.closed, 'the close')).code).toBe(CLOSE.notFound);
    expect(client.records[0]).toMatchObject({ id: 'h', success: false, errorCode: 'agent_not_found' });
  });

  it('never quotes the agent id a page typed into the URL, in the log or back to the page: it may be a key pasted by mistake', async () => {
    const pasted = 'AICC-KEY-0123456789abcdef0123456789abcdef';
    const client = connect(`/agents/${pasted}`);
    client.send({ id: 'h', type: 'hello', protocol: { version: '1.0', minVersion: '1.0' } });
    const closed = await within(client.closed, 'the close');
    expect(closed.code).toBe(CLOSE.notFound);
    await within(
      (async () => {
        while (logs.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      })(),
      'the log line',
    );
    expect(logs.at(-1)).toMatch(/relay to an unknown agent \(an id of 41 characters\): closed \(4404\)/);
    expect(everythingSeen()).not.toContain('0123456789abcdef');
    expect(closed.reason).not.toContain('0123456789abcdef');
  });

  it('answers a broken first record without quoting it', async () => {
    const client = connect();
    client.send('{"id": "h", "type": "hello", "secret-ish": 0123456789abcdef}');
    expect((await within(client.closed, 'the close')).code).toBe(CLOSE.badRequest);
    expect(client.records[0]).toMatchObject({ success: false, errorCode: 'hello_required', error: 'not JSON; send one JSON object per text frame' });
    expect(everythingSeen()).not.toContain('0123456789abcdef');
  });

  it('answers agent_unavailable (retryable) when the agent socket is gone, naming no path', async () => {
    writeEntry(home.path, agentEntry('ghost', join(home.path, 'ghost.sock'), TOKEN));
    const client = connect('/agents/ghost');
    client.send({ id: 'h', type: 'hello', protocol: { version: '1.0', minVersion: '1.0' } });
    expect((await within(client.closed, 'the close')).code).toBe(CLOSE.agentGone);
    expect(client.records[0]).toMatchObject({ errorCode: 'agent_unavailable', retryable: true });
    expect(client.frames[0]).not.toContain(home.path);
  });

  it('does not relay to an agent whose entry is from another runtime', async () => {
    writeEntry(home.path, agentEntry('winnie', agent.endpoint, TOKEN, { runtime: process.platform === 'win32' ? 'linux' : 'win32' }));
    const client = connect('/agents/winnie');
    client.send({ id: 'h', type: 'hello', protocol: { version: '1.0', minVersion: '1.0' } });
    expect((await within(client.closed, 'the close')).code).toBe(CLOSE.notFound);
    expect(agent.connections).toBe(0);
  });

  it('closes the browser with 4502 when the agent goes away, and logs one line without the token', async () => {
    const client = connect();
    await client.hello();
    agent.dropAll();
    const closed = await within(client.closed, 'the close');
    expect(closed.code).toBe(CLOSE.agentGone);
    expect(closed.reason).toMatch(/^the agent closed the connection/);
    await vi.waitFor(() => expect(logs.some((line) => line.includes('#1 ') && line.includes('closed (4502)'))).toBe(true), { timeout: 5000 });
    const lines = logs.filter((line) => line.includes('#1 '));
    expect(lines, lines.join('\n')).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^aicc gateway: #1 origin http:\/\/localhost:5173 relay to agent ada: closed \(4502\): the agent closed the connection: .*; 1 records in, 1 out, \d+\.\d s$/,
    );
  });

  it('forwards records sent right after the hello, in order, before the agent has answered', async () => {
    const client = connect();
    client.send({ id: 'h', type: 'hello', protocol: { version: '1.0', minVersion: '1.0' } });
    client.send({ id: 'a', type: 'get_state' });
    client.send({ id: 'b', type: 'get_last_assistant_text' });
    await client.waitFor((r) => r.id === 'b', 'the last answer');
    expect(agent.lines.map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(['h', 'a', 'b']);
  });
});
