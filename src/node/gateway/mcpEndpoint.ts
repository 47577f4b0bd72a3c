// The gateway's MCP endpoint: Streamable HTTP at `/mcp/<character>`, one MCP server per MCP session
// over the character a page lent (characters.ts). What the MCP spec asks of a local server: it
// listens on loopback only; every request must name this gateway in its Host header (a page on
// another name that resolves here — DNS rebinding — is refused) and, when it has an Origin, come
// from an allowed one; and it must carry the gateway key (`Authorization: Bearer <key>`). No answer
// and no log line ever holds the key. Loaded only when the gateway serves MCP (the SDK is an
// optional peer).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createCharacterServer, type CharacterServer } from '../../mcp/characterServer.js';
import { clip, type AccessPolicy } from './access.js';
import { characterOfPath, MCP_PATH, type CharacterSessions } from './characters.js';
import { answerError, McpHttpSession } from './mcpHttpSession.js';

/** Most MCP sessions open at once on one gateway; an initialize beyond them gets 503. */
export const MAX_MCP_SESSIONS = 16;
/** Largest request body read, in bytes; a larger one gets 413. */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;

export interface McpEndpointOptions {
  characters: CharacterSessions;
  policy: AccessPolicy;
  /** The port the gateway listens on: the Host header must name it. */
  port: () => number;
  log: (line: string) => void;
}

interface McpSession {
  character: string;
  transport: McpHttpSession;
  served: CharacterServer;
}

export interface McpEndpoint {
  handle(request: IncomingMessage, response: ServerResponse): void;
  readonly sessions: number;
  close(): Promise<void>;
}

export function mcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const { characters, policy, log } = options;
  const sessions = new Map<string, McpSession>();
  // A page taking its character away ends the MCP sessions that drove it.
  characters.onChange((character, client) => {
    if (client !== undefined) return;
    for (const session of sessions.values()) if (session.character === character) void session.transport.close();
  });

  const refuse = (response: ServerResponse, status: number, message: string): void => answerError(response, status, `aicc gateway: ${message}`);

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
        return answerError(response, 404, `aicc gateway: no MCP session ${clip(id, 40)} for ${character}; start a new one with an initialize request`, -32001);
      if (request.method === 'POST') session.transport.handlePost(request, response, body);
      else if (request.method === 'GET') session.transport.handleGet(request, response);
      else session.transport.handleDelete(request, response);
      return;
    }
    if (request.method !== 'POST' || !isInitializeRequest(body)) return refuse(response, 400, 'no mcp-session-id header: start with an initialize request');
    const client = characters.get(character);
    if (client === undefined) return refuse(response, 404, `no page lends ${character}; the game page connects its session to /characters/${character}`);
    if (sessions.size >= MAX_MCP_SESSIONS) return refuse(response, 503, `the gateway has ${MAX_MCP_SESSIONS} MCP sessions open; try again later`);

    const news = characters.news(character);
    // An MCP client is a model: in a hybrid-mode game its calls run at once, not at the next tick.
    const served = createCharacterServer(client, { character, immediate: true, ...(news !== undefined && { news }) });
    const transport = new McpHttpSession((sessionId) => {
      sessions.set(sessionId, { character, transport, served });
      log(`aicc gateway: MCP session for ${character} opened (${sessions.size} open)`);
    });
    transport.onclose = () => {
      served.detach();
      if (transport.sessionId !== undefined && sessions.delete(transport.sessionId)) log(`aicc gateway: MCP session for ${character} closed`);
    };
    await served.connect(transport);
    transport.handlePost(request, response, body);
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
