// The demo server's WebSockets to an `aicc gateway`: a page opens them on its own origin, and the
// proxy opens the matching connection to the gateway, adding the gateway key there. Two routes:
//   /pi               `?agent=pi`: pi-peers.v1 (or pi-daemon.v2 for a gateway in daemon mode) to the
//                     gateway URL given with --gateway;
//   /characters/<id>  `?agent=mcp`: the page lends a character — its capsule's aicc/0.1 session
//                     (aicc.v0.1) — to the gateway's /characters/<id>, for MCP clients to drive.
// The key lives only in this process: the page never offers it, never receives it (the gateway
// selects only the protocol it serves, and so does the proxy), and no log line or close reason
// carries it. Only the route's own protocol is passed on; nothing else the page offers is.
//
// The demo server admits only its own pages to these paths (it checks Origin and Host before
// calling `upgrade`): the proxy holds the key, so a page of any other site must not reach it.

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer, type RawData } from 'ws';
import { closeReason } from '../../src/links/closeReason.js';
import { clip, CLOSE, DAEMON_SUBPROTOCOL, KEY_PREFIX, parseProtocols, SUBPROTOCOL } from '../../src/node/gateway/access.js';
import { CHARACTER_SUBPROTOCOL, characterOfPath, CHARACTERS_PATH } from '../../src/node/gateway/characters.js';

/** The gateway's own frame limit: a larger message could not pass it anyway. */
export const DEFAULT_PROXY_MAX_PAYLOAD = 1024 * 1024;
/** Pages connected through the proxy at once, both routes together (a demo page opens one). */
export const DEFAULT_PROXY_MAX_CONNECTIONS = 16;
/** Messages a page may send before the gateway has answered the handshake; more closes with 1013. */
export const DEFAULT_PROXY_MAX_PENDING = 64;
/** Bytes queued toward a side that does not read; past this both are closed with 1013. */
export const PROXY_MAX_BUFFERED = 4 * 1024 * 1024;
/** How long the gateway may take to answer the handshake. */
const HANDSHAKE_TIMEOUT_MS = 5000;

/**
 * Which gateway path a page asked for: `/pi`, or `/characters/<id>` — with the id checked as the
 * gateway checks it, or, for a bad one, the `problem` the page is told.
 */
export type ProxyRoute = { kind: 'pi' } | { kind: 'character'; id: string; problem?: string };

/** The route a request target asks for, or undefined when it is none of the proxy's paths. */
export function proxyRoute(target: string | undefined): ProxyRoute | undefined {
  let pathname: string;
  try {
    pathname = new URL(target ?? '/', 'http://demo').pathname;
  } catch {
    return undefined;
  }
  if (pathname.startsWith(CHARACTERS_PATH)) {
    const id = characterOfPath(pathname, CHARACTERS_PATH);
    // URL parsing has already resolved dot segments (%2E too): no id here is "." or "..".
    return typeof id === 'string' ? { kind: 'character', id } : { kind: 'character', id: '<id>', problem: id.reason };
  }
  try {
    return decodeURIComponent(pathname) === '/pi' ? { kind: 'pi' } : undefined;
  } catch {
    return undefined;
  }
}

/** What a page may speak on a route, in order of preference. */
function protocolsOf(route: ProxyRoute): readonly string[] {
  return route.kind === 'pi' ? [SUBPROTOCOL, DAEMON_SUBPROTOCOL] : [CHARACTER_SUBPROTOCOL];
}

/** The protocol to speak with a page that offered `offered` on `route`, or undefined. */
function pick(route: ProxyRoute, offered: Iterable<string>): string | undefined {
  const set = new Set(offered);
  return protocolsOf(route).find((protocol) => set.has(protocol));
}

/** How a route is named in log lines and refusals. */
function nameOf(route: ProxyRoute): string {
  return route.kind === 'pi' ? '/pi' : `${CHARACTERS_PATH}${route.id}`;
}

/**
 * Where the gateway serves a route: /pi goes to the URL given with --gateway as it is (host mode's
 * `/`, relay mode's `/agents/<id>`); a character to /characters/<id> on the same gateway.
 */
function upstreamUrl(route: ProxyRoute, gatewayUrl: string): string {
  if (route.kind === 'pi') return gatewayUrl;
  const base = new URL(gatewayUrl);
  return `${base.protocol}//${base.host}${CHARACTERS_PATH}${encodeURIComponent(route.id)}`;
}

/** Why a page may not open `route`: undefined when it may. */
function routeProblem(route: ProxyRoute): { code: number; reason: string } | undefined {
  return route.kind === 'character' && route.problem !== undefined ? { code: CLOSE.notFound, reason: route.problem } : undefined;
}

export interface GatewayProxyOptions {
  /** The gateway, e.g. ws://127.0.0.1:8787/ (host mode) or ws://127.0.0.1:8787/agents/cleo (relay). */
  gateway?: { url: string; key: string };
  maxPayload?: number;
  maxConnections?: number;
  maxPending?: number;
  /** One line per connection when it ends; never the key. */
  log?: (line: string) => void;
}

export interface GatewayProxy {
  /** Takes over an upgrade request the server has already admitted (own origin, a route's path). */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer, route: ProxyRoute): void;
  readonly connections: number;
  /** Closes every proxied connection (1001) on both sides. */
  close(): Promise<void>;
}

export function createGatewayProxy(options: GatewayProxyOptions): GatewayProxy {
  const maxPayload = options.maxPayload ?? DEFAULT_PROXY_MAX_PAYLOAD;
  const maxConnections = options.maxConnections ?? DEFAULT_PROXY_MAX_CONNECTIONS;
  const maxPending = options.maxPending ?? DEFAULT_PROXY_MAX_PENDING;
  const log = options.log ?? (() => {});
  // Each request's route, for choosing the protocol to answer the page's handshake with.
  const routes = new WeakMap<IncomingMessage, ProxyRoute>();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload,
    handleProtocols: (protocols, request) => pick(routes.get(request) ?? { kind: 'pi' }, protocols) ?? false,
  });
  const pairs = new Set<{ page: WebSocket; upstream: WebSocket }>();
  let counter = 0;

  function upgrade(request: IncomingMessage, socket: Duplex, head: Buffer, route: ProxyRoute): void {
    const offered = parseProtocols(request.headers['sec-websocket-protocol']);
    routes.set(request, route);
    wss.handleUpgrade(request, socket, head, (page) => {
      const number = ++counter;
      const name = nameOf(route);
      // Refusals are made after the handshake, with a code and a reason: a page sees nothing of a
      // refused HTTP upgrade but "failed".
      const gateway = options.gateway;
      const protocol = pick(route, offered);
      const wanted = protocolsOf(route).map((p) => `"${p}"`);
      const refusal =
        gateway === undefined
          ? {
              code: CLOSE.notFound,
              reason: `no gateway: start npm run demo:web with --gateway ws://127.0.0.1:PORT and AICC_GATEWAY_KEY${route.kind === 'character' ? ' (an aicc gateway --mcp)' : ''}`,
            }
          : protocol === undefined
            ? { code: CLOSE.badRequest, reason: `offer the subprotocol ${wanted[0]}${wanted.length > 1 ? ` (or ${wanted.slice(1).join(', ')})` : ''}` }
            : (routeProblem(route) ??
              (pairs.size >= maxConnections
                ? { code: CLOSE.tryAgainLater, reason: `the demo server has ${maxConnections} gateway connections open; try again later` }
                : undefined));
      if (refusal !== undefined || gateway === undefined || protocol === undefined) {
        page.close(refusal?.code, closeReason(refusal?.reason ?? ''));
        log(`demo:web: ${name} #${number} refused (${refusal?.code}): ${refusal?.reason}`);
        return;
      }
      relay(`${name} #${number}`, page, protocol, upstreamUrl(route, gateway.url), gateway.key);
    });
  }

  function relay(who: string, page: WebSocket, protocol: string, url: string, key: string): void {
    // Only this side ever names the key, and only to the gateway.
    const upstream = new WebSocket(url, [protocol, KEY_PREFIX + key], { maxPayload, handshakeTimeout: HANDSHAKE_TIMEOUT_MS });
    const pair = { page, upstream };
    pairs.add(pair);
    const pending: Array<{ data: RawData; isBinary: boolean }> = [];
    let ended = false;
    const end = (code: number, reason: string): void => {
      if (ended) return;
      ended = true;
      pairs.delete(pair);
      pending.length = 0;
      log(`demo:web: ${who} closed (${code}): ${clip(reason, 160)}`);
      closeSocket(page, code, reason);
      closeSocket(upstream, code, reason);
    };
    const forward = (to: WebSocket, data: RawData, isBinary: boolean, what: string): void => {
      if (to.bufferedAmount > PROXY_MAX_BUFFERED) return end(CLOSE.tryAgainLater, `${what} stopped reading`);
      to.send(data, { binary: isBinary });
    };

    page.on('message', (data, isBinary) => {
      if (upstream.readyState === WebSocket.OPEN) forward(upstream, data, isBinary, 'the gateway');
      else if (pending.length >= maxPending) end(CLOSE.tryAgainLater, `more than ${maxPending} messages before the gateway answered`);
      else pending.push({ data, isBinary });
    });
    upstream.on('open', () => {
      for (const { data, isBinary } of pending.splice(0)) forward(upstream, data, isBinary, 'the gateway');
    });
    upstream.on('message', (data, isBinary) => forward(page, data, isBinary, 'the page'));
    // The gateway's reasons never hold the key (access.ts); they tell the page what went wrong.
    upstream.on('close', (code, reason) => end(sendable(code), reason.length > 0 ? reason.toString('utf8') : 'the gateway closed the connection'));
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      // Not error.message: a failed handshake's message could quote what was sent. The URL is
      // ours (--gateway's host and a checked path): it holds no key.
      end(CLOSE.agentGone, `the gateway at ${clip(url, 60)} did not answer (${error.code ?? 'handshake failed'})`);
    });
    page.on('close', (code) => end(sendable(code), 'the page closed'));
    // ws has already closed the page with the matching code (1009 for a message over maxPayload).
    page.on('error', (error: NodeJS.ErrnoException) => end(CLOSE.badRequest, `the page sent a bad frame (${error.code ?? 'invalid'})`));
  }

  return {
    upgrade,
    get connections() {
      return pairs.size;
    },
    async close() {
      const closed = [...pairs].map(
        ({ page }) => new Promise<void>((resolve) => (page.readyState === WebSocket.CLOSED ? resolve() : page.once('close', () => resolve()))),
      );
      for (const { page, upstream } of pairs) {
        closeSocket(page, 1001, 'the demo server is shutting down');
        closeSocket(upstream, 1001, 'the demo server is shutting down');
      }
      const cutoff = setTimeout(() => {
        for (const { page } of pairs) page.terminate();
      }, 1000);
      await Promise.all(closed);
      clearTimeout(cutoff);
      pairs.clear();
      wss.close();
    },
  };
}

/** A close code one side reported, as one the other side may be sent (1005/1006/1015 may not). */
function sendable(code: number): number {
  if (code === 1005) return 1000;
  if (code === 1006 || code === 1015 || code === 1004 || code < 1000 || code > 4999 || (code > 1014 && code < 3000)) return CLOSE.agentGone;
  return code;
}

function closeSocket(socket: WebSocket, code: number, reason: string): void {
  if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
  else if (socket.readyState === WebSocket.OPEN) socket.close(code, closeReason(reason));
}
