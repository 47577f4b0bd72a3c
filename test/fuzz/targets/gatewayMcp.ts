// The gateway's MCP endpoint (Streamable HTTP at /mcp/<character>) under hostile clients: the
// endpoint on a real HTTP server on 127.0.0.1 and on a ManualClock of its own, the village's Cleo lent
// to it by a capsule in this worker (hybrid mode: her calls run at once). Batches of hostile requests
// (gatewayMcpRequests.ts), sent at once over keep-alive connections to a few open sessions, and
// after each batch some clients that vanish (an initialize, maybe an event stream or a call cut
// off, never a DELETE). The run checks that
// - every request is answered within ANSWER_MS, with a status docs/MCP.md lists and, but for 200
//   and 202, a JSON-RPC error with a code the same table lists; a POST answered 200 has one
//   response per request it carried, with that request's id, in order;
// - no answer, header or log line holds the gateway key;
// - once the clock passes the idle time, no session is left of the clients that vanished, and a new
//   client is served: none is locked out.

import { readFileSync } from 'node:fs';
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { FuzzContext, FuzzTarget } from '../harness/context.js';
import { bindTextWorld } from '../../../src/adapters/text/bind.js';
import { TextWorld } from '../../../src/adapters/text/world.js';
import { connectInProcess } from '../../../src/agent/inProcess.js';
import { AccessPolicy } from '../../../src/node/gateway/access.js';
import { mcpEndpoint } from '../../../src/node/gateway/mcpEndpoint.js';
import { createCapsule } from '../../../src/index.js';
import { ManualClock } from '../../../src/base/clock.js';
import { VILLAGE_SPEC, VILLAGER_SESSION } from '../../../src/worlds/village/world.js';
import { KEY, ORIGIN } from '../../node/gateway/helpers.js';
import { draw } from './agentFrames.js';
import { hostileRequest, requestIds, type HostileRequest } from './gatewayMcpRequests.js';
import { until } from './gatewayWaits.js';
import { stringify } from './hostileValues.js';

const IDLE_MS = 60_000;
const BATCH = 48;
/** A request not answered within this long (wall time) is a problem: every one is answered at once. */
const ANSWER_MS = 5_000;
/** Sessions the run holds open for its requests. */
const POOL = 3;
/** Clients that vanish after each batch. */
const VANISHING = 3;

type Answer = { status: number; headers: IncomingHttpHeaders; text: string; stream: boolean } | { error: string };

/** The statuses and JSON-RPC codes the endpoint answers with, as docs/MCP.md's table lists them. */
function documented(): { statuses: Set<string>; codes: Set<string> } {
  const docs = readFileSync(join(process.cwd(), 'docs', 'MCP.md'), 'utf8');
  const statuses = new Set<string>();
  const codes = new Set<string>();
  for (const [, status, code] of docs.matchAll(/^\| (\d{3}) \| (—|-\d+) \|/gm)) {
    statuses.add(status!);
    if (code !== '—') codes.add(code!);
  }
  return { statuses, codes };
}

export const target: FuzzTarget = async (outer) => {
  // A batch that found a problem ends the run: what it found is reported, not buried under the
  // waits of every later batch (each unanswered request costs ANSWER_MS).
  let troubled = false;
  const context: FuzzContext = {
    ...outer,
    problem: (what) => {
      troubled = true;
      outer.problem(what);
    },
  };
  context.secret(KEY);
  const { statuses, codes } = documented();
  if (statuses.size < 10) context.problem(`mcp: docs/MCP.md lists only ${statuses.size} statuses`);
  const clock = new ManualClock();
  const village = createCapsule({ world: { name: 'Millbrook', kind: 'text' }, clock: new ManualClock(), tickMode: 'hybrid', tickRateHz: 10 });
  bindTextWorld(village, new TextWorld(VILLAGE_SPEC));
  const cleo = await connectInProcess(village, { character: 'cleo', ...VILLAGER_SESSION });
  let port = 0;
  const endpoint = mcpEndpoint({
    characters: { get: (character) => (character === 'cleo' ? cleo : undefined), news: () => undefined, onChange: () => () => {} },
    policy: new AccessPolicy([ORIGIN], KEY),
    port: () => port,
    log: (line) => context.seen(line, 'mcp: a log line'),
    clock,
    idleMs: IDLE_MS,
  });
  /** By connection: the last request on it, as the run's problems name it. */
  const lastOn = new WeakMap<object, string>();
  const server = createServer((request, response) => {
    const what = `${request.method} ${request.headers['content-length'] ?? '-'} bytes`;
    response.once('finish', () => lastOn.set(request.socket, `${what} answered ${response.statusCode}`));
    endpoint.handle(request, response);
  });
  // A request Node's parser refuses (it would answer 400 itself): the run's client sends only well-framed ones.
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket) => {
    // A connection the run cut itself (a call cut off, an event stream dropped).
    if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE')
      context.problem(
        `mcp: the server could not parse a request (${error.code}: ${error.message}) after ${lastOn.get(socket) ?? 'nothing'}: ${JSON.stringify(
          String(error.rawPacket ?? '')
            .replaceAll(KEY, '<key>')
            .slice(0, 160),
        )}`,
      );
    socket.destroy();
  });
  // Keep-alive connections are never closed under a request about to reuse them.
  server.keepAliveTimeout = 10 * 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  const keepAlive = new Agent({ keepAlive: true, maxSockets: 16 });
  const streams = new Set<IncomingMessage>();

  /** One request; an event stream counts as answered once its head came (it stays open in `streams`). */
  const exchange = (method: string, path: string, headers: Record<string, string>, body?: string | Uint8Array): Promise<Answer | undefined> =>
    new Promise((resolve) => {
      let done = false;
      const finish = (answer: Answer | undefined): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(answer);
      };
      // An event stream holds its connection: not one of the keep-alive ones.
      // Node's client frames a GET, DELETE or OPTIONS body only when told its length: else the
      // server reads the body as the next request on the connection.
      const framed = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
      const request = httpRequest({ host: '127.0.0.1', port, method, path, headers: framed, agent: method === 'GET' ? false : keepAlive }, (response) => {
        const status = response.statusCode ?? 0;
        if (status === 200 && response.headers['content-type'] === 'text/event-stream') {
          streams.add(response);
          response.once('close', () => streams.delete(response));
          response.on('error', () => {});
          response.on('data', (chunk: Buffer) => context.seen(String(chunk), 'mcp: an event'));
          return finish({ status, headers: response.headers, text: '', stream: true });
        }
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.once('end', () => finish({ status, headers: response.headers, text, stream: false }));
        response.once('error', (error) => finish({ error: error.message }));
      });
      const timer = setTimeout(() => {
        request.destroy();
        finish(undefined);
      }, ANSWER_MS);
      request.once('error', (error) => finish({ error: error.message }));
      request.end(body);
    });

  const wellFormed = (method: string): Record<string, string> => ({
    host: `127.0.0.1:${port}`,
    authorization: `Bearer ${KEY}`,
    accept: method === 'GET' ? 'text/event-stream' : 'application/json, text/event-stream',
    'content-type': 'application/json',
  });
  const INITIALIZE = JSON.stringify({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
  });
  /** A new session's id, or what the endpoint answered instead. */
  const initialize = async (): Promise<{ id?: string; answer: Answer | undefined }> => {
    const answer = await exchange('POST', '/mcp/cleo', wellFormed('POST'), INITIALIZE);
    const id = answer !== undefined && 'status' in answer && answer.status === 200 ? answer.headers['mcp-session-id'] : undefined;
    return typeof id === 'string' ? { id, answer } : { answer };
  };
  const describe = (answer: Answer | undefined): string =>
    answer === undefined ? `no answer within ${ANSWER_MS} ms` : 'error' in answer ? answer.error : `${answer.status} ${answer.text.slice(0, 160)}`;

  /** What the endpoint answered `sent`, checked. */
  const check = (sent: HostileRequest, text: string | undefined, answer: Answer | undefined): void => {
    const what = `a ${sent.method} (${sent.session} session) of ${(text ?? '').slice(0, 120)}`;
    if (answer === undefined) return context.problem(`mcp: ${what} was not answered within ${ANSWER_MS} ms`);
    if ('error' in answer) return context.problem(`mcp: ${what} got no answer: ${answer.error}`);
    context.seen(answer.text, 'mcp: an answer');
    context.seen(JSON.stringify(answer.headers), 'mcp: the headers of an answer');
    context.code(String(answer.status), statuses, 'mcp: an HTTP status');
    context.tally(`${sent.method} ${answer.status}`);
    if (answer.stream) return;
    if (answer.status === 202 || (answer.status === 200 && sent.method === 'DELETE')) {
      if (answer.text !== '') context.problem(`mcp: a ${answer.status} to a ${sent.method} has a body: ${answer.text.slice(0, 80)}`);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.text);
    } catch {
      return context.problem(`mcp: ${what} was answered ${answer.status} with a body that is not JSON: ${answer.text.slice(0, 80)}`);
    }
    if (answer.status !== 200) {
      const error = (parsed as { error?: { code?: unknown; message?: unknown } }).error;
      if ((parsed as { jsonrpc?: unknown }).jsonrpc !== '2.0' || typeof error?.message !== 'string' || (parsed as { id?: unknown }).id !== null)
        return context.problem(`mcp: a ${answer.status} is not a JSON-RPC error: ${answer.text.slice(0, 120)}`);
      context.code(String(error.code), codes, `mcp: the JSON-RPC code of a ${answer.status}`);
      const gist = error.message
        .replace(/^aicc gateway: /, '')
        .split(' ', 3)
        .join(' ');
      context.tally(`refused ${answer.status} ${String(error.code)} ${gist}`);
      return;
    }
    // 200 to a POST: one response per request, in order.
    let expected: unknown[] = [];
    try {
      expected = requestIds(JSON.parse(text ?? ''));
    } catch {}
    const answers = expected.length === 1 ? [parsed] : parsed;
    if (!Array.isArray(answers) || answers.length !== expected.length)
      return context.problem(`mcp: ${what} carried ${expected.length} requests but was answered ${answer.text.slice(0, 160)}`);
    answers.forEach((each: { jsonrpc?: unknown; id?: unknown; result?: unknown; error?: { code?: unknown } }, i) => {
      if (each?.jsonrpc !== '2.0' || each.id !== expected[i] || 'result' in each === 'error' in each)
        context.problem(
          `mcp: response ${i + 1} to ${what} is not the response to request ${JSON.stringify(expected[i])}: ${JSON.stringify(each).slice(0, 120)}`,
        );
      else if ('error' in each) context.tally(`answered error ${String(each.error?.code)}`);
      else context.tally('answered result');
    });
  };

  let live: string[] = [];
  const fill = async (batch: number): Promise<void> => {
    while (live.length < POOL) {
      const { id, answer } = await initialize();
      if (id === undefined) return context.problem(`mcp: a new client was locked out after batch ${batch}: ${describe(answer)}`);
      live.push(id);
    }
  };

  /** One hostile request, sent and its answer checked. */
  const send = async (sent: HostileRequest, n: number): Promise<void> => {
    const headers: Record<string, string> = wellFormed(sent.method);
    // A DELETE ends a session of its own, not one the others of the batch use.
    const session =
      sent.session === 'live' && sent.method === 'DELETE'
        ? (await initialize()).id
        : sent.session === 'live'
          ? live[n % Math.max(1, live.length)]
          : sent.session === 'unknown'
            ? '0f8fad5b-d9cb-469f-a165-70867728950e'
            : sent.session === 'key'
              ? KEY
              : undefined;
    if (session !== undefined) headers['mcp-session-id'] = session;
    for (const [name, value] of Object.entries(sent.headers)) {
      if (value === undefined) delete headers[name];
      else headers[name] = value.replaceAll('<key>', KEY);
    }
    const text = sent.body.kind === 'json' ? stringify(sent.body.value) : sent.body.kind === 'text' ? sent.body.text : undefined;
    const body = sent.body.kind === 'bytes' ? sent.body.bytes : sent.method === 'GET' || sent.method === 'DELETE' ? undefined : text;
    const answer = await exchange(sent.method, `/mcp/${sent.character.replaceAll('<key>', KEY)}`, headers, body);
    context.sent();
    check(sent, typeof body === 'string' ? body : undefined, answer);
    // A session this run ended (DELETE) or found ended: out of the pool.
    if (session !== undefined && answer !== undefined && 'status' in answer && (answer.status === 404 || (sent.method === 'DELETE' && answer.status === 200)))
      live = live.filter((each) => each !== session);
  };

  /** Clients that open a session and vanish without a DELETE: some after opening the event stream, some with a call under way. */
  const vanish = async (batch: number): Promise<void> => {
    for (let i = 0; i < VANISHING; i++) {
      const { id } = await initialize();
      context.sent();
      if (id === undefined) continue;
      const headers = { ...wellFormed('POST'), 'mcp-session-id': id };
      if ((batch + i) % 3 === 0) {
        const answer = await exchange('GET', '/mcp/cleo', { ...headers, accept: 'text/event-stream' });
        if (answer !== undefined && 'stream' in answer && answer.stream)
          for (const stream of streams) if (stream.headers['mcp-session-id'] === id) stream.destroy();
      } else if ((batch + i) % 3 === 1) {
        const cut = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/mcp/cleo', headers, agent: false });
        cut.on('error', () => {});
        cut.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'look', arguments: {} } }));
        setImmediate(() => cut.destroy());
      }
    }
  };

  await fill(-1);
  for (let batch = 0; batch * BATCH < context.frames; batch++) {
    const requests = draw(hostileRequest, context.seed, batch, BATCH);
    await Promise.all(requests.map((sent, n) => send(sent, n)));
    await vanish(batch);
    // Every client of this batch gone: once the clock passes the idle time, no session is left, and
    // a new client is served.
    for (const stream of streams) stream.destroy();
    live = [];
    const freed = await until(() => {
      clock.advance(IDLE_MS);
      return endpoint.sessions === 0;
    }, 3_000);
    if (!freed) context.problem(`mcp: ${endpoint.sessions} sessions still open after their clients vanished and the idle time passed (batch ${batch})`);
    await fill(batch);
    await context.breathe();
    if (troubled) break;
  }

  for (const stream of streams) stream.destroy();
  await endpoint.close();
  keepAlive.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await cleo.close();
  village.dispose();
};
