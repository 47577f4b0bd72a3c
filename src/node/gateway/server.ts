// The gateway's WebSocket server on 127.0.0.1: checks each upgrade (Origin, key, path, capacity),
// then hands the browser to relay mode, host mode or daemon mode, and writes one log line per connection when
// it ends. Refused connections are accepted and closed at once with a code and a reason, because a
// browser sees nothing of a refused HTTP upgrade but "failed".

import { createServer, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { CapsuleError } from '../../base/errors.js';
import {
  AccessPolicy,
  checkKeyFormat,
  clip,
  CLOSE,
  DAEMON_SUBPROTOCOL,
  normalizeOrigin,
  parseProtocols,
  selectSubprotocol,
  SUBPROTOCOL,
  type Refusal,
} from './access.js';
import { BrowserConnection, GatewayWebSocket } from './browser.js';
import { checkDaemonRelayOptions, relayDaemon, type DaemonRelayOptions, type DaemonRelayShared } from './daemonRelay.js';
import { serveHost, type HostSessionOptions } from './hostSession.js';
import type { PiHost } from './piHost.js';
import { relayBrowser, type RelayOptions } from './relay.js';
import { SessionOwners } from './sessionOwners.js';
import { ModelDrivers, type ModelTarget } from './modelDrivers.js';
import { characterOfPath, CharacterSessions, CHARACTER_SUBPROTOCOL, CHARACTERS_PATH, MCP_PATH } from './characters.js';
import type { McpEndpoint, McpEndpointOptions } from './mcpEndpoint.js';

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

/** Only the loopback interface: the gateway is for pages and programs on this machine. */
export const GATEWAY_HOST = '127.0.0.1';
export const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

/** Starts the hosted pi once the gateway listens, with the MCP servers to give it (see HostTarget). */
export type HostStarter = (mcpServers: Record<string, object> | undefined) => Promise<PiHost>;

export interface HostTarget extends HostSessionOptions {
  kind: 'host';
  /** The hosted pi, or how to start it: a starter is called once the gateway listens (its port known). */
  host: PiHost | HostStarter;
  /**
   * With `mcp: true` and a starter: the hosted pi calls this lent character's tools natively, its
   * MCP config pointing at this gateway's `/mcp/<id>` with the key as bearer header (in a private
   * file, never in argv or a log line). pi connects at start and does not retry a 404, so when a
   * page lends the character (first or again) the gateway has pi reconnect (PiHost.reconnectMcp).
   */
  mcpCharacter?: string;
}

/** The name of the hosted pi's MCP server for mcpCharacter: the model sees `mcp__aicc__<tool>`. */
export const HOSTED_MCP_SERVER = 'aicc';

export type GatewayTarget = ({ kind: 'relay' } & RelayOptions) | HostTarget | ({ kind: 'daemon' } & DaemonRelayOptions) | ModelTarget;

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
  const target = options.target;
  const targetProblem =
    target.kind === 'daemon'
      ? checkDaemonRelayOptions(target)
      : target.kind === 'host'
        ? checkHostTarget(target, options.mcp === true)
        : target.kind === 'model'
          ? checkModelTarget(target, options.mcp === true)
          : undefined;
  if (targetProblem !== undefined) throw new CapsuleError('AICC_INVALID_OPTION', `startGateway: ${targetProblem}`);
  const subprotocol = target.kind === 'daemon' ? DAEMON_SUBPROTOCOL : SUBPROTOCOL;
  const policy = new AccessPolicy(origins, options.key, subprotocol);
  const log = options.log ?? (() => {});
  const maxConnections = options.maxConnections ?? 64;
  const sockets = new Set<WebSocket>();
  let counter = 0;

  // Pages lend characters to MCP clients, or to the gateway's own model.
  const characters = options.mcp === true || target.kind === 'model' ? new CharacterSessions() : undefined;
  const drivers = target.kind === 'model' ? new ModelDrivers(characters!, target, log) : undefined;
  // Host mode with a starter: undefined until pi has started (pages are asked to come back).
  let host: PiHost | undefined = target.kind === 'host' && typeof target.host !== 'function' ? target.host : undefined;
  const characterPolicy = policy.withSubprotocol(CHARACTER_SUBPROTOCOL);
  let port = 0;
  const mcp =
    characters === undefined || options.mcp !== true
      ? undefined
      : await loadMcpEndpoint({ characters, policy, port: () => port, log, ...(options.mcpIdleMs !== undefined && { idleMs: options.mcpIdleMs }) });
  const http = createServer((request, response) => {
    if (mcp !== undefined && (request.url ?? '').startsWith(MCP_PATH)) return mcp.handle(request, response);
    response.writeHead(426, { 'content-type': 'text/plain; charset=utf-8', upgrade: 'websocket' });
    response.end(
      `aicc gateway: this is a WebSocket endpoint for ${target.kind === 'daemon' ? 'pi-daemon protocol v2' : target.kind === 'model' ? `capsule sessions lent at ${CHARACTERS_PATH}<id>` : 'pi-peers 1.0'}; see \`aicc gateway --help\`\n`,
    );
  });
  const maxPayload = options.maxPayload ?? (target.kind === 'daemon' ? 2 * (target.maxLineBytes ?? DEFAULT_MAX_PAYLOAD) : DEFAULT_MAX_PAYLOAD);
  const wss = new WebSocketServer({
    noServer: true,
    // Its close() hook lets the daemon relay answer a message ws refuses before ws closes (browser.ts).
    WebSocket: GatewayWebSocket,
    maxPayload,
    handleProtocols: (protocols, request) => selectSubprotocol(protocols, isCharacterPath(request.url) ? CHARACTER_SUBPROTOCOL : subprotocol, options.key),
  });
  // One ledger of session owners for all the pages of this gateway (sessionOwners.ts).
  const daemonShared: DaemonRelayShared = {
    owners: new SessionOwners(),
    maxMessageBytes: maxPayload,
    redact: (message) => message.replaceAll(options.key, 'the gateway key'),
  };

  http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const number = ++counter;
    const origin = request.headers.origin;
    const started = Date.now();
    const lending = characters !== undefined && isCharacterPath(request.url);
    const route = lending
      ? characterOfPath(new URL(request.url ?? '/', 'ws://gateway').pathname, CHARACTERS_PATH)
      : routeOf(request.url ?? '/', options.target);
    const refusal: Refusal | undefined =
      (lending ? characterPolicy : policy).check(origin, parseProtocols(request.headers['sec-websocket-protocol'])) ??
      (typeof route === 'object' ? route : undefined) ??
      (sockets.size >= maxConnections
        ? { code: CLOSE.tryAgainLater, reason: `the gateway has ${maxConnections} connections open; try again later` }
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
      } else if (target.kind === 'relay') relayBrowser(browser, route as string, target);
      else if (target.kind === 'daemon') relayDaemon(browser, target, daemonShared);
      else if (target.kind === 'model') browser.close(CLOSE.notFound, MODEL_ROUTE);
      else if (host !== undefined) serveHost(browser, host, target);
      else browser.close(CLOSE.tryAgainLater, 'the hosted pi is starting; try again in a moment');
    });
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(`startGateway: cannot listen on ${GATEWAY_HOST}:${options.port ?? 0} (${error.code ?? error.message}); choose another --port`)),
    );
    http.listen(options.port ?? 0, GATEWAY_HOST, () => resolve());
  });
  const address = http.address();
  if (address === null || typeof address === 'string') throw new Error('startGateway: the server has no TCP address');
  port = address.port;
  if (target.kind === 'host' && host === undefined) host = await startHost(target, { port, key: options.key, characters, log }, closeAll);
  const serving =
    target.kind === 'relay'
      ? 'relaying to the agents in PI_PEERS_HOME'
      : target.kind === 'daemon'
        ? `relaying pi-daemon protocol v2 to ${target.socketPath}${target.admin === true ? ' (admin: pages may drain it)' : ''}`
        : target.kind === 'model'
          ? `driving the characters pages lend with ${target.name}`
          : 'hosting pi';
  log(`aicc gateway: ${serving} on ws://${GATEWAY_HOST}:${port}/ for ${origins.length === 1 ? 'origin' : 'origins'} ${origins.join(', ')}`);
  if (drivers !== undefined) log(`aicc gateway: pages lend characters at ws://${GATEWAY_HOST}:${port}${CHARACTERS_PATH}<id>; the model drives each`);
  if (mcp !== undefined)
    log(
      `aicc gateway: pages lend characters at ws://${GATEWAY_HOST}:${port}${CHARACTERS_PATH}<id>; MCP clients drive them at http://${GATEWAY_HOST}:${port}${MCP_PATH}<id>`,
    );

  /** Closes every connection (pages lending characters among them), then the server. */
  async function closeAll(): Promise<void> {
    // Each connection's close (and its log line) completes before this resolves; a browser that
    // does not answer the close handshake within a second is cut off.
    const closed = [...sockets].map((ws) => new Promise<void>((resolve) => ws.once('close', () => resolve())));
    for (const ws of sockets) ws.close(1001, 'the gateway is shutting down');
    const cutoff = setTimeout(() => {
      for (const ws of sockets) ws.terminate();
    }, 1000);
    await mcp?.close();
    drivers?.close('the gateway is shutting down');
    await characters?.closeAll('the gateway is shutting down');
    await Promise.all(closed);
    clearTimeout(cutoff);
    await closeServer();
  }

  function closeServer(): Promise<void> {
    wss.close();
    return new Promise<void>((resolve) => {
      http.close(() => resolve());
      http.closeAllConnections();
    });
  }

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

/** Where a page connects in model mode (anything else is refused with this). */
const MODEL_ROUTE = `this gateway drives the characters pages lend it with its model: connect a capsule session to ${CHARACTERS_PATH}<id>`;

/** What is wrong with a model target, if anything. */
function checkModelTarget(target: ModelTarget, mcp: boolean): string | undefined {
  if (typeof target.turn !== 'function') return 'a model target needs turn, a ModelTurn (piAiModel(…).turn)';
  if (mcp) return 'a model target drives the lent characters itself: MCP clients cannot drive them too (leave mcp out)';
  return undefined;
}

/** What is wrong with a host target's MCP option, if anything. */
function checkHostTarget(target: HostTarget, mcp: boolean): string | undefined {
  if (target.mcpCharacter === undefined) return undefined;
  if (!mcp) return "mcpCharacter needs mcp: true (the hosted pi reaches the character through this gateway's /mcp/<id>)";
  if (typeof target.host !== 'function')
    return 'mcpCharacter needs the host target as a starter ((mcpServers) => PiHost.start({ ...options, mcpServers })): a pi already running cannot be given MCP servers';
  const id = characterOfPath(`${MCP_PATH}${target.mcpCharacter}`, MCP_PATH);
  return typeof id === 'string' && id === target.mcpCharacter
    ? undefined
    : `mcpCharacter ${JSON.stringify(target.mcpCharacter.slice(0, 80))} is not a character id (1 to 64 letters, digits, _ . or -)`;
}

/**
 * Starts the hosted pi of a starter target, now that the port is known. With mcpCharacter, pi's MCP
 * server is this gateway's endpoint for the character, and each time a page lends the character pi
 * is told to reconnect (its connect at start found a 404 if no page lent it yet). The key goes only
 * into the entry handed to the starter (which PiProcess writes to a private 0600 file).
 */
async function startHost(
  target: HostTarget,
  gateway: { port: number; key: string; characters: CharacterSessions | undefined; log: (line: string) => void },
  closeGateway: () => Promise<void>,
): Promise<PiHost> {
  const character = target.mcpCharacter;
  const servers =
    character === undefined
      ? undefined
      : {
          [HOSTED_MCP_SERVER]: {
            url: `http://${GATEWAY_HOST}:${gateway.port}${MCP_PATH}${character}`,
            headers: { Authorization: `Bearer ${gateway.key}` },
            exposure: 'direct',
          },
        };
  let host: PiHost;
  try {
    host = await (target.host as HostStarter)(servers);
  } catch (error) {
    await closeGateway();
    throw error;
  }
  if (character !== undefined && gateway.characters !== undefined) {
    // A pilot driving the character asks (get_state): it then briefs pi to call the tools itself.
    host.setNativeCharacters([character]);
    const reconnect = (): void => {
      void host
        .reconnectMcp(HOSTED_MCP_SERVER)
        .then((took) => gateway.log(`aicc gateway: ${character} is lent; the hosted pi ${took ? 'reconnected to' : 'could not reconnect to'} its tools`));
    };
    gateway.characters.onChange((lent, client) => {
      if (lent === character && client !== undefined && host.exit === undefined) reconnect();
    });
    // Lent while pi was starting: pi's own connect may have come before the page.
    if (gateway.characters.get(character) !== undefined) reconnect();
    else gateway.log(`aicc gateway: the hosted pi gets ${character}'s tools once a page lends ${character} at ${CHARACTERS_PATH}${character}`);
  }
  return host;
}

/**
 * Reads which agent a relay connection wants (`/agents/<id>` or `/?agent=<id>`), or accepts `/`
 * for host and daemon mode; anything else is refused with the shape to use.
 */
function routeOf(url: string, target: GatewayTarget): string | Refusal {
  let parsed: URL;
  try {
    parsed = new URL(url, 'ws://gateway');
  } catch {
    return { code: CLOSE.badRequest, reason: 'the request path is not a URL path' };
  }
  if (target.kind === 'host') {
    return parsed.pathname === '/' ? '' : { code: CLOSE.notFound, reason: 'this gateway hosts one pi: connect to /' };
  }
  if (target.kind === 'daemon') {
    return parsed.pathname === '/' ? '' : { code: CLOSE.notFound, reason: 'this gateway relays one pi daemon: connect to /' };
  }
  if (target.kind === 'model') return { code: CLOSE.notFound, reason: MODEL_ROUTE };
  const match = /^\/agents\/([^/]+)\/?$/.exec(parsed.pathname);
  let id: string | null = null;
  try {
    id = match?.[1] !== undefined ? decodeURIComponent(match[1]) : parsed.pathname === '/' ? parsed.searchParams.get('agent') : null;
  } catch {
    id = null;
  }
  if (id === null || id === '' || id.length > 200) return { code: CLOSE.notFound, reason: 'name the agent: connect to /agents/<id> or /?agent=<id>' };
  return id;
}
