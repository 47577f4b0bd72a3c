// One MCP session over Streamable HTTP, on Node's own request and response: what it answers, what
// it refuses and with which status, its event stream and its bounds. A plain HTTP server on 127.0.0.1 hands every request to one session;
// the "server" behind it is this test, answering through send().

import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_MCP_BATCH, MAX_MCP_PENDING_REQUESTS, McpHttpSession, REQUEST_CANCELLED } from '../../../src/node/gateway/mcpHttpSession.js';
import { within } from './helpers.js';

const KEY = 'test-key-0123456789abcdef';

let server: Server;
let port: number;
let session: McpHttpSession;
let heard: JSONRPCMessage[];
let opened: string[];
let closed: number;

beforeEach(async () => {
  heard = [];
  opened = [];
  closed = 0;
  session = new McpHttpSession(
    (text) => text.replaceAll(KEY, '<key>'),
    (id) => opened.push(id),
  );
  session.onmessage = (message) => void heard.push(message);
  session.onclose = () => void closed++;
  server = createServer((request, response) => {
    if (request.method === 'GET') return session.handleGet(request, response);
    if (request.method === 'DELETE') return session.handleDelete(request, response);
    let text = '';
    request.on('data', (chunk: Buffer) => (text += String(chunk)));
    request.on('end', () => session.handlePost(request, response, JSON.parse(text)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});

afterEach(async () => {
  await session.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const ACCEPT = 'application/json, text/event-stream';
type Answer = { status: number; headers: IncomingMessage['headers']; text: string };

function ask(method: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        headers: {
          'content-type': 'application/json',
          accept: ACCEPT,
          ...(session.sessionId !== undefined && { 'mcp-session-id': session.sessionId }),
          ...headers,
        },
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

const post = (body: unknown, headers?: Record<string, string>): Promise<Answer> => ask('POST', body, headers);
const initialize = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};
const request = (id: number, method = 'tools/list'): object => ({ jsonrpc: '2.0', id, method });
const errorOf = (answer: Answer): { code: number; message: string } => (JSON.parse(answer.text) as { error: { code: number; message: string } }).error;

/** The test's server: answers each request it heard with { n: id } once `count` requests arrived. */
async function answerHeard(count: number): Promise<void> {
  for (let i = 0; i < 100 && heard.filter((m) => 'id' in m).length < count; i++) await new Promise((resolve) => setImmediate(resolve));
  for (const message of heard.splice(0))
    if ('id' in message && 'method' in message) await session.send({ jsonrpc: '2.0', id: message.id, result: { n: message.id } });
}

async function open(): Promise<void> {
  const answer = post(initialize);
  await answerHeard(1);
  expect((await answer).status).toBe(200);
}

describe('an MCP session over Streamable HTTP', () => {
  it('opens on initialize, names itself in mcp-session-id, and answers requests as JSON once each has its response', async () => {
    const first = post(initialize);
    await answerHeard(1);
    const answered = await first;
    expect(answered.status).toBe(200);
    expect(answered.headers['content-type']).toBe('application/json');
    expect(answered.headers['mcp-session-id']).toBe(opened[0]);
    expect(JSON.parse(answered.text)).toEqual({ jsonrpc: '2.0', id: 0, result: { n: 0 } });
    // A batch of two requests and a notification: one answer, the responses in the batch's order.
    const batch = post([request(2), { jsonrpc: '2.0', method: 'notifications/initialized' }, request(1)]);
    await answerHeard(2);
    expect(JSON.parse((await batch).text)).toEqual([
      { jsonrpc: '2.0', id: 2, result: { n: 2 } },
      { jsonrpc: '2.0', id: 1, result: { n: 1 } },
    ]);
  });

  it('takes notifications alone with 202 and no body', async () => {
    await open();
    const answer = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(answer).toMatchObject({ status: 202, text: '' });
    expect(heard).toEqual([{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
  });

  it('refuses what the transport spec refuses, with the status it names', async () => {
    expect((await post(request(1))).status).toBe(400); // no initialize yet
    await open();
    expect((await post(request(1), { accept: 'application/json' })).status).toBe(406);
    expect((await post(request(1), { 'content-type': 'text/plain' })).status).toBe(415);
    expect(errorOf(await post({ id: 1, method: 'tools/list' }))).toMatchObject({ code: -32700 });
    expect(errorOf(await post([]))).toMatchObject({ code: -32600 });
    expect(errorOf(await post(Array.from({ length: MAX_MCP_BATCH + 1 }, (_, i) => request(i))))).toMatchObject({ code: -32600 });
    expect(errorOf(await post(initialize))).toMatchObject({ message: expect.stringMatching(/already initialized/) });
    const version = await post(request(1), { 'mcp-protocol-version': '1999-01-01' });
    expect(version.status).toBe(400);
    expect(errorOf(version).message).toMatch(/unsupported MCP protocol version 1999-01-01 \(supported: .*2025-06-18/);
    // Nothing refused reached the server.
    expect(heard).toEqual([]);
  });

  it('refuses, and so answers, a message the MCP SDK would drop unanswered, and a batch that repeats a request id', async () => {
    await open();
    const refused: Array<[unknown, number]> = [
      [[request(1), request(1)], -32600],
      [{ jsonrpc: '2.0', id: 2, method: 'ping', result: {} }, -32700],
      [{ jsonrpc: '2.0', id: 3, method: 'ping', error: { code: 1, message: 'no' } }, -32700],
      [{ jsonrpc: '2.0', id: 4, method: 'ping', extra: true }, -32700],
      [{ jsonrpc: '2.0', id: 5, method: 'tools/list', params: null }, -32700],
      [{ jsonrpc: '2.0', id: 6, method: 'tools/list', params: 'all' }, -32700],
      [{ jsonrpc: '2.0', method: 'notifications/initialized', params: [] }, -32700],
      [{ jsonrpc: '2.0', id: 7, result: [] }, -32700],
    ];
    for (const [body, code] of refused) {
      const answer = await within(post(body), JSON.stringify(body), 2_000);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(errorOf(answer).code, JSON.stringify(body)).toBe(code);
    }
    expect(errorOf(await post([request(1), request(1)])).message).toMatch(/the batch repeats the request id 1/);
    expect(heard).toEqual([]);
  });

  it(`answers a request its client cancelled ${REQUEST_CANCELLED}, which the SDK's server will not answer`, async () => {
    await open();
    // In one batch: the server hears both, and says nothing of 8.
    const batch = within(
      post([request(8), request(9), { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 8, reason: 'no' } }]),
      'the batch',
      2_000,
    );
    for (let i = 0; i < 100 && heard.length < 3; i++) await new Promise((resolve) => setImmediate(resolve));
    await session.send({ jsonrpc: '2.0', id: 9, result: { n: 9 } });
    expect(JSON.parse((await batch).text)).toEqual([
      { jsonrpc: '2.0', id: 8, error: { code: REQUEST_CANCELLED, message: 'Request cancelled: the client cancelled request 8' } },
      { jsonrpc: '2.0', id: 9, result: { n: 9 } },
    ]);
    // In another POST, while the first waits; a late answer to it goes nowhere.
    const waiting = within(post(request(10)), 'the cancelled request', 2_000);
    for (let i = 0; i < 100 && heard.length < 4; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 10 } })).toMatchObject({ status: 202 });
    expect(JSON.parse((await waiting).text)).toMatchObject({ id: 10, error: { code: REQUEST_CANCELLED } });
    await session.send({ jsonrpc: '2.0', id: 10, result: {} });
    expect(heard.map((message) => ('method' in message ? message.method : ''))).toEqual([
      'tools/list',
      'tools/list',
      'notifications/cancelled',
      'tools/list',
      'notifications/cancelled',
    ]);
  });

  it('never quotes the gateway key from a header', async () => {
    await open();
    const answer = await post(request(1), { 'mcp-protocol-version': KEY });
    expect(answer.status).toBe(400);
    expect(errorOf(answer).message).toMatch(/unsupported MCP protocol version <key>/);
    expect(answer.text).not.toContain(KEY);
  });

  it(`holds at most ${MAX_MCP_PENDING_REQUESTS} requests waiting for responses, and refuses an id already waiting`, async () => {
    await open();
    const waiting = Array.from({ length: MAX_MCP_PENDING_REQUESTS }, (_, i) => post(request(i + 1)));
    for (let i = 0; i < 200 && heard.length < MAX_MCP_PENDING_REQUESTS; i++) await new Promise((resolve) => setImmediate(resolve));
    const over = await post(request(1000));
    expect(over.status).toBe(503);
    await answerHeard(MAX_MCP_PENDING_REQUESTS);
    expect((await Promise.all(waiting)).every((answer) => answer.status === 200)).toBe(true);
    const held = post(request(7));
    for (let i = 0; i < 100 && heard.length === 0; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(errorOf(await post(request(7)))).toMatchObject({ code: -32600, message: expect.stringMatching(/already waits/) });
    await answerHeard(1);
    expect((await held).status).toBe(200);
  });

  it('forgets a request whose client left before its answer', async () => {
    await open();
    const gone = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': session.sessionId! },
    });
    gone.on('error', () => {});
    gone.end(JSON.stringify(request(5)));
    for (let i = 0; i < 100 && heard.length === 0; i++) await new Promise((resolve) => setImmediate(resolve));
    gone.destroy();
    // Once the session saw it go, the same id may be asked again (until then it is refused as
    // still waiting); the late answer of the first goes nowhere.
    heard.length = 0;
    let again: Answer | undefined;
    for (let i = 0; i < 100 && again?.status !== 200; i++) {
      let answer: Answer | undefined;
      const next = post(request(5)).then((each) => (answer = each));
      for (let j = 0; j < 100 && answer === undefined && heard.length === 0; j++) await new Promise((resolve) => setImmediate(resolve));
      if (heard.length > 0) await session.send({ jsonrpc: '2.0', id: 5, result: { n: 5 } });
      again = await next;
    }
    expect(again?.status).toBe(200);
  });

  it('says what the server says unasked on the one event stream of the session', async () => {
    await open();
    // Nobody listens yet: dropped, no throw.
    await session.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    const events: string[] = [];
    const stream = await new Promise<IncomingMessage>((resolve) => {
      httpRequest({ host: '127.0.0.1', port, method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': session.sessionId! } }, resolve).end();
    });
    expect(stream.statusCode).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream');
    stream.on('data', (chunk: Buffer) => events.push(String(chunk)));
    expect((await ask('GET', undefined, { accept: 'text/event-stream' })).status).toBe(409);
    await session.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    for (let i = 0; i < 100 && events.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(events.join('')).toBe(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n\n`);
    expect((await ask('GET', undefined, { accept: 'application/json' })).status).toBe(406);
    stream.destroy();
  });

  it('ends on DELETE: told once, and what still waited is answered "Session not found"', async () => {
    await open();
    const waiting = post(request(3));
    for (let i = 0; i < 100 && heard.length === 0; i++) await new Promise((resolve) => setImmediate(resolve));
    expect((await ask('DELETE', undefined)).status).toBe(200);
    expect(closed).toBe(1);
    expect(await waiting).toMatchObject({ status: 404 });
    expect(errorOf(await post(request(4)))).toMatchObject({ code: -32001 });
    await session.close();
    expect(closed).toBe(1);
  });
});
