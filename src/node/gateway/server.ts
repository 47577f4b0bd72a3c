// The gateway's WebSocket server on 127.0.0.1: checks each upgrade (Origin, key, path, capacity),
// then hands the page to the characters it lends (with MCP, or a mode that drives them) or to its
// mode (gatewayModes.ts: relay, host, daemon, model), and writes one log line per connection when
// it ends. Refused connections are accepted and closed at once with a code and a reason, because a
// browser sees nothing of a refused HTTP upgrade but "failed".

import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { CapsuleError } from '../../base/errors.js';
import { AccessPolicy, checkKeyFormat, clip, CLOSE, normalizeOrigin, parseProtocols, selectSubprotocol, type Refusal } from './access.js';
import { BrowserConnection, GatewayWebSocket } from './browser.js';
import { characterOfPath, CharacterSessions, CHARACTER_SUBPROTOCOL, CHARACTERS_PATH, MCP_PATH } from './characters.js';
import { GATEWAY_HOST, type GatewayMode, type GatewayTarget } from './gatewayMode.js';
import { gatewayModeOf } from './gatewayModes.js';
import type { McpEndpoint, McpEndpointOptions } from './mcpEndpoint.js';
import type { PiHost } from './piHost.js';

/** Whether an upgrade asks to lend a character (the only WebSocket path that speaks aicc/0.1). */
function isCharacterPath(url: string | undefined): boolean {
  return (url ?? '').startsWith(CHARACTERS_PATH);
}

/** The MCP endpoint, loaded only when asked for: it brings the MCP SDK, an optional peer. */
async function loadMcpEndpoint(options: McpEndpointOptions): Promise<McpEndpoint> {
  try {
    return (await import('./mcpEndpoint.js')).mcpEndpoint(options);
  } catch (error) {
    throw new CapsuleError(
      'AICC_INVALID_OPTION',
      `startGateway: serving MCP needs the optional dependency @modelcontextprotocol/sdk (npm install @modelcontextprotocol/sdk); loading it failed: ${(error as Error).message.split('\n', 1)[0]}`,
    );
  }
}

export { DEFAULT_MAX_PAYLOAD, GATEWAY_HOST, HOSTED_MCP_SERVER } from './gatewayMode.js';
export type { GatewayTarget, HostStarter, HostTarget } from './gatewayMode.js';

export interface GatewayOptions {
  target: GatewayTarget;
  /** Origins whose pages may connect, e.g. http://localhost:5173. */
  origins: string[];
  /** The key every client must present (see access.ts). */
  key: string;
  /** TCP port (default 0: any free port; read it from `gateway.port`). */
  port?: number;
  /**
   * Largest WebSocket message accepted, in bytes (default 1 MiB); a larger one closes with 1009. In
   * daemon mode the default is twice the daemon target's maxLineBytes, so that a record over the
   * line limit but under this is read and answered with `line_too_large` before the close, which
   * says how long it was; a larger one too gets `line_too_large`, just before ws's own close.
   */
  maxPayload?: number;
  /** Most open connections (default 64); more are closed with 1013. */
  maxConnections?: number;
  /** Receives one line per connection, and one when listening. Never given a key or a token. */
  log?: (line: string) => void;
  /**
   * Also serve MCP: game pages lend characters at `/characters/<id>` (their capsule's session, over
   * WebSocket, subprotocols `aicc.v0.1` and `aicc-key.<KEY>`), and MCP clients drive them over
   * Streamable HTTP at `/mcp/<id>` with `Authorization: Bearer <key>`. Needs the optional peer
   * @modelcontextprotocol/sdk.
   */
  mcp?: boolean;
  /** With mcp: an MCP session with no request waiting and no event stream open is closed after this long. Default MCP_IDLE_MS (10 minutes). */
  mcpIdleMs?: number;
}

export interface Gateway {
  readonly port: number;
  /** ws://127.0.0.1:PORT */
  readonly url: string;
  /** Open browser connections. */
  readonly connections: number;
  /** The hosted pi (host mode), also when the gateway started it. */
  readonly host?: PiHost;
  /** Closes every connection (1001) and stops listening. Does not stop a hosted pi. */
  close(): Promise<void>;
}

/**
 * Starts the gateway; rejects on a bad option or when the port cannot be bound.
 *
 * @example
 * const gateway = await startGateway({ target: { kind: 'relay', peersHome }, origins: ['http://localhost:5173'], key, mcp: true });
 * console.log(gateway.url); // ws://127.0.0.1:<port>: pages connect here, MCP clients at http://127.0.0.1:<port>/mcp/<character>
 * await gateway.close();
 */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const keyProblem = checkKeyFormat(options.key);
  if (keyProblem !== undefined) throw new CapsuleError('AICC_INVALID_OPTION', `startGateway: ${keyProblem}`);
  const origins = options.origins.map((origin) => {
    const normalized = normalizeOrigin(origin);
    if (normalized instanceof Error) throw new CapsuleError('AICC_INVALID_OPTION', `startGateway: ${normalized.message}`);
    return normalized;
  });
  const mode = gatewayModeOf(options.target, {
    key: options.key,
    mcp: options.mcp === true,
    ...(options.maxPayload !== undefined && { maxPayload: options.maxPayload }),
  });
  const policy = new AccessPolicy(origins, options.key, mode.subprotocol);
  const log = options.log ?? (() => {});
  // Pages lend characters to MCP clients, or to a mode that drives them.
  const characters = options.mcp === true || mode.drivesCharacters ? new CharacterSessions() : undefined;
  let port = 0;
  const mcp =
    characters === undefined || options.mcp !== true
      ? undefined
      : await loadMcpEndpoint({ characters, policy, port: () => port, log, ...(options.mcpIdleMs !== undefined && { idleMs: options.mcpIdleMs }) });
  const http = createServer((request, response) => {
    if (mcp !== undefined && (request.url ?? '').startsWith(MCP_PATH)) return mcp.handle(request, response);
    response.writeHead(426, { 'content-type': 'text/plain; charset=utf-8', upgrade: 'websocket' });
    response.end(`aicc gateway: this is a WebSocket endpoint for ${mode.endpoint}; see \`aicc gateway --help\`\n`);
  });
  const sockets = new Set<WebSocket>();
  http.on('upgrade', upgrades({ mode, policy, key: options.key, characters, sockets, maxConnections: options.maxConnections ?? 64, log }));
  const closeAll = async (): Promise<void> => {
    await closeConnections(sockets, async () => {
      await mcp?.close();
      await mode.close('the gateway is shutting down');
      await characters?.closeAll('the gateway is shutting down');
    });
    await new Promise<void>((resolve) => {
      http.close(() => resolve());
      http.closeAllConnections();
    });
  };
  port = await listen(http, options.port ?? 0);
  const { serving, notes = [] } = await mode.start({ port, key: options.key, characters, log, close: closeAll });
  log(`aicc gateway: ${serving} on ws://${GATEWAY_HOST}:${port}/ for ${origins.length === 1 ? 'origin' : 'origins'} ${origins.join(', ')}`);
  for (const note of notes) log(note);
  if (mcp !== undefined)
    log(
      `aicc gateway: pages lend characters at ws://${GATEWAY_HOST}:${port}${CHARACTERS_PATH}<id>; MCP clients drive them at http://${GATEWAY_HOST}:${port}${MCP_PATH}<id>`,
    );
  const host = mode.host;
  return {
    port,
    url: `ws://${GATEWAY_HOST}:${port}`,
    ...(host !== undefined && { host }),
    get connections() {
      return sockets.size;
    },
    close: closeAll,
  };
}

/** Listens on loopback; resolves with the port (rejects, saying so, when it cannot be bound). */
function listen(http: Server, port: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    http.once('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(`startGateway: cannot listen on ${GATEWAY_HOST}:${port} (${error.code ?? error.message}); choose another --port`)),
    );
    http.listen(port, GATEWAY_HOST, () => {
      const address = http.address();
      if (address === null || typeof address === 'string') reject(new Error('startGateway: the server has no TCP address'));
      else resolve(address.port);
    });
  });
}

interface UpgradeContext {
  mode: GatewayMode;
  policy: AccessPolicy;
  key: string;
  characters: CharacterSessions | undefined;
  sockets: Set<WebSocket>;
  maxConnections: number;
  log: (line: string) => void;
}

/**
 * Every upgrade checked alike — Origin and key, its path, the gateway's capacity — then taken as a
 * WebSocket and either closed at once with the refusal (a browser sees nothing of a refused HTTP
 * upgrade but "failed") or handed to the characters it lends or to the mode; one log line when it ends.
 */
function upgrades(context: UpgradeContext): (request: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const { mode, policy, characters, sockets, log } = context;
  const characterPolicy = policy.withSubprotocol(CHARACTER_SUBPROTOCOL);
  const wss = new WebSocketServer({
    noServer: true,
    // Its close() hook lets the daemon relay answer a message ws refuses before ws closes (browser.ts).
    WebSocket: GatewayWebSocket,
    maxPayload: mode.maxPayload,
    handleProtocols: (protocols, request) => selectSubprotocol(protocols, isCharacterPath(request.url) ? CHARACTER_SUBPROTOCOL : mode.subprotocol, context.key),
  });
  let counter = 0;
  return (request, socket, head) => {
    const number = ++counter;
    const origin = request.headers.origin;
    const started = Date.now();
    const lending = characters !== undefined && isCharacterPath(request.url);
    const route = lending ? characterOfPath(new URL(request.url ?? '/', 'ws://gateway').pathname, CHARACTERS_PATH) : routeOf(request.url ?? '/', mode);
    const refusal: Refusal | undefined =
      (lending ? characterPolicy : policy).check(origin, parseProtocols(request.headers['sec-websocket-protocol'])) ??
      (typeof route === 'object' ? route : undefined) ??
      (sockets.size >= context.maxConnections
        ? { code: CLOSE.tryAgainLater, reason: `the gateway has ${context.maxConnections} connections open; try again later` }
        : undefined);
    wss.handleUpgrade(request, socket, head, (ws) => {
      const browser = new BrowserConnection(ws, number);
      const who = `#${number} ${origin === undefined ? 'no origin' : policy.describeOrigin(origin)}`;
      if (refusal !== undefined) {
        browser.close(refusal.code, refusal.reason);
        log(`aicc gateway: ${who} refused (${refusal.code}): ${refusal.reason}`);
        return;
      }
      sockets.add(ws);
      ws.once('close', (code: number, reason: Buffer) => {
        sockets.delete(ws);
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        const why = browser.closeReason ?? (reason.length > 0 ? reason.toString('utf8') : 'no reason');
        log(
          `aicc gateway: ${who} ${browser.role}: closed (${browser.closeCode ?? code}): ${clip(why, 160)}; ${browser.recordsIn} records in, ${browser.recordsOut} out, ${seconds} s`,
        );
      });
      if (lending) {
        browser.role = `lends ${route as string}`;
        void characters!.adopt(route as string, browser);
      } else mode.accept(browser, route as string);
    });
  };
}

/**
 * Closes every connection (1001; pages lending characters among them) and, meanwhile, what `others`
 * closes. Each connection's close (and its log line) completes before this resolves; a browser that
 * does not answer the close handshake within a second is cut off.
 */
async function closeConnections(sockets: Set<WebSocket>, others: () => Promise<void>): Promise<void> {
  const closed = [...sockets].map((ws) => new Promise<void>((resolve) => ws.once('close', () => resolve())));
  for (const ws of sockets) ws.close(1001, 'the gateway is shutting down');
  const cutoff = setTimeout(() => {
    for (const ws of sockets) ws.terminate();
  }, 1000);
  await others();
  await Promise.all(closed);
  clearTimeout(cutoff);
}

/** What a page's path asks of the mode, or a refusal for a path that is not one. */
function routeOf(url: string, mode: GatewayMode): string | Refusal {
  let parsed: URL;
  try {
    parsed = new URL(url, 'ws://gateway');
  } catch {
    return { code: CLOSE.badRequest, reason: 'the request path is not a URL path' };
  }
  return mode.route(parsed);
}
