// The gateway's MCP endpoint: Streamable HTTP at `/mcp/<character>`, one MCP server per MCP session
// over the character a page lent (characters.ts). What the MCP spec asks of a local server: it
// listens on loopback only; every request must name this gateway in its Host header (a page on
// another name that resolves here — DNS rebinding — is refused) and, when it has an Origin, come
// from an allowed one; and it must carry the gateway key (`Authorization: Bearer <key>`). No answer
// and no log line ever holds the key. Loaded only when the gateway serves MCP (the SDK is an
// optional peer).
//
// Of MAX_MCP_SESSIONS sessions, one a client left without a DELETE (it crashed, it quit) is ended
// once idle for `idleMs` (MCP_IDLE_MS by default): idle from the moment none of its requests waits
// for an answer and its event stream, if it opened one, is closed. An initialize that would be
// refused (406, 415, not JSON-RPC) is refused before a server is built for it.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { CapsuleError } from '../../base/errors.js';
import { createCharacterServer, type CharacterServer } from '../../mcp/characterServer.js';
import { realClock, UPKEEP, type Clock, type TimerId } from '../../base/clock.js';
import { clip, type AccessPolicy } from './access.js';
import { characterOfPath, MCP_PATH, type CharacterSessions } from './characters.js';
import { answerError, checkPost, McpHttpSession, refuseWith } from './mcpHttpSession.js';

/** Most MCP sessions open at once on one gateway; an initialize beyond them gets 503. */
export const MAX_MCP_SESSIONS = 16;
/** Largest request body read, in bytes; a larger one gets 413. */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;
/** How long an MCP session may stay idle (no request under way, no event stream open) before it is ended: 10 minutes. */
export const MCP_IDLE_MS = 10 * 60_000;

export interface McpEndpointOptions {
  /** The characters pages lend (the endpoint reads them and hears them leave). */
  characters: Pick<CharacterSessions, 'get' | 'news' | 'onChange'>;
  policy: AccessPolicy;
  /** The port the gateway listens on: the Host header must name it. */
  port: () => number;
  log: (line: string) => void;
  /** Ends a session idle this long, in ms: nothing of it under way, no event stream open. Default MCP_IDLE_MS. */
  idleMs?: number;
  /** Time for idleMs. Default realClock() (its timers do not keep Node alive). */
  clock?: Clock;
}

interface McpSession {
  character: string;
  transport: McpHttpSession;
  served: CharacterServer;
  /** HTTP exchanges with the session under way: POSTs waiting for their answers, the event stream. */
  exchanges: number;
  /** When the last exchange ended, on the endpoint's clock. */
  idleSince: number;
  /** The timer that looks whether the session is still idle, while one is set. */
  timer: TimerId | undefined;
  /** Set when the session is ended for being idle: for how long it was, in ms. */
  idled?: number;
}

export interface McpEndpoint {
  handle(request: IncomingMessage, response: ServerResponse): void;
  readonly sessions: number;
  close(): Promise<void>;
}

export function mcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const { characters, policy, log } = options;
  const idleMs = options.idleMs ?? MCP_IDLE_MS;
  if (!(Number.isFinite(idleMs) && idleMs > 0)) throw new CapsuleError('AICC_INVALID_OPTION', `mcpEndpoint: idleMs must be a number of ms > 0, got ${idleMs}`);
  const clock = options.clock ?? realClock();
  const sessions = new Map<string, McpSession>();
  // A page taking its character away ends the MCP sessions that drove it.
  characters.onChange((character, client) => {
    if (client !== undefined) return;
    for (const session of sessions.values()) if (session.character === character) void session.transport.close();
  });

  const refuse = (response: ServerResponse, status: number, message: string): void => answerError(response, status, `aicc gateway: ${message}`);

  /** Whether the session is still open (in `sessions`). */
  const isOpen = (session: McpSession): boolean => session.transport.sessionId !== undefined && sessions.get(session.transport.sessionId) === session;
  /** Looks, once the session may have been idle for idleMs, whether it was; ends it if so. */
  const watch = (session: McpSession, delayMs: number): void => {
    session.timer = clock.setTimeout(
      () => {
        session.timer = undefined;
        if (session.exchanges > 0 || !isOpen(session)) return;
        const idle = clock.now() - session.idleSince;
        if (idle < idleMs) return watch(session, idleMs - idle);
        session.idled = idle;
        void session.transport.close();
      },
      delayMs,
      UPKEEP,
    );
  };
  /** An exchange with the session under way until its response closes (answered, or the client gone). */
  const track = (session: McpSession, response: ServerResponse): void => {
    session.exchanges++;
    response.once('close', () => {
      session.exchanges--;
      session.idleSince = clock.now();
      if (session.exchanges === 0 && session.timer === undefined && isOpen(session)) watch(session, idleMs);
    });
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const port = options.port();
    const host = request.headers.host ?? '';
    if (![`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(host.toLowerCase())) {
      return refuse(response, 403, `the Host ${policy.describeHost(host)} is not this gateway's; call it as http://127.0.0.1:${port}${MCP_PATH}<character>`);
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !policy.admitsOrigin(origin))
      return refuse(response, 403, `${policy.describeOrigin(origin)} is not in the gateway's --origin list`);
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (bearer === null) return refuse(response, 401, 'no gateway key; send the header Authorization: Bearer <key>');
    if (!policy.keyMatches(bearer[1]!)) return refuse(response, 401, 'wrong gateway key');
    // The bearer is the key: what the request says is quoted without it (a key pasted into the path or a header).
    const key = bearer[1]!;
    const unkeyed = (text: string): string => text.replaceAll(key, '<key>');
    const character = characterOfPath(new URL(request.url ?? '/', 'http://gateway').pathname, MCP_PATH);
    if (typeof character !== 'string') return refuse(response, 404, character.reason);

    if (request.method !== 'POST' && request.method !== 'GET' && request.method !== 'DELETE') {
      response.setHeader('allow', 'GET, POST, DELETE');
      return refuse(response, 405, `${clip(request.method ?? '', 10)} is not an MCP request; POST messages, GET the event stream, DELETE the session`);
    }
    let body: unknown;
    if (request.method === 'POST') {
      const text = await readBody(request);
      if (text === undefined) return refuse(response, 413, `the request body is over ${MAX_MCP_BODY_BYTES} bytes`);
      try {
        body = JSON.parse(text);
      } catch {
        return answerError(response, 400, 'Parse error: the request body is not JSON', -32700);
      }
    }
    const id = request.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const session = sessions.get(id);
      if (session === undefined || session.character !== character)
        return answerError(
          response,
          404,
          `aicc gateway: no MCP session ${clip(unkeyed(id), 40)} for ${unkeyed(character)}; start a new one with an initialize request`,
          -32001,
        );
      track(session, response);
      if (request.method === 'POST') session.transport.handlePost(request, response, body);
      else if (request.method === 'GET') session.transport.handleGet(request, response);
      else session.transport.handleDelete(request, response);
      return;
    }
    if (request.method !== 'POST' || !opensSession(body)) return refuse(response, 400, 'no mcp-session-id header: start with an initialize request');
    const client = characters.get(character);
    if (client === undefined)
      return refuse(response, 404, `no page lends ${unkeyed(character)}; the game page connects its session to /characters/${unkeyed(character)}`);
    if (sessions.size >= MAX_MCP_SESSIONS) return refuse(response, 503, `the gateway has ${MAX_MCP_SESSIONS} MCP sessions open; try again later`);
    // What the transport would refuse, refused before anything is built for it.
    const checked = checkPost(request, body);
    if (!Array.isArray(checked)) return refuseWith(response, checked);

    const news = characters.news(character);
    // An MCP client is a model: in a hybrid-mode game its calls run at once, not at the next tick.
    const served = createCharacterServer(client, { character, immediate: true, ...(news !== undefined && { news }) });
    const transport = new McpHttpSession(unkeyed, (sessionId) => {
      const session: McpSession = { character, transport, served, exchanges: 0, idleSince: clock.now(), timer: undefined };
      sessions.set(sessionId, session);
      track(session, response);
      log(`aicc gateway: MCP session for ${character} opened (${sessions.size} open)`);
    });
    transport.onclose = () => {
      served.detach();
      const session = transport.sessionId === undefined ? undefined : sessions.get(transport.sessionId);
      if (session?.transport !== transport) return;
      if (session.timer !== undefined) clock.clearTimeout(session.timer);
      sessions.delete(transport.sessionId!);
      log(`aicc gateway: MCP session for ${character} closed${session.idled === undefined ? '' : ` after ${Math.round(session.idled / 1000)} s idle`}`);
    };
    await served.connect(transport);
    transport.handlePost(request, response, body);
    // Refused after all (it never opened): nothing of it stays.
    if (transport.sessionId === undefined) void transport.close();
  };

  return {
    handle: (request, response) => {
      handle(request, response).catch((error: unknown) => {
        log(`aicc gateway: an MCP request failed: ${clip(error instanceof Error ? error.message : String(error), 160)}`);
        if (!response.headersSent) refuse(response, 500, 'the request failed inside the gateway');
        else response.end();
      });
    },
    get sessions() {
      return sessions.size;
    },
    async close() {
      await Promise.all([...sessions.values()].map((session) => session.transport.close()));
    },
  };
}

/** Whether a body asks to open a session: one initialize request (with an id: a notification opens nothing). */
function opensSession(body: unknown): boolean {
  return isInitializeRequest(body) && 'id' in body;
}

/** The body as text, or undefined when it passes MAX_MCP_BODY_BYTES (the rest is not read). */
function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_MCP_BODY_BYTES) {
        request.removeAllListeners('data');
        request.resume();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    request.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.once('error', reject);
  });
}
