// `aicc serve`'s server: one world's episodes for remote agents over HTTP (httpApi.ts), OpenEnv's
// WebSocket (/ws, openEnvSocket.ts) and aicc/0.1 for a live character (/aicc, liveEpisodes.ts). On 127.0.0.1 by default; any other address needs a key, which
// every request then presents as `Authorization: Bearer KEY` (compared as digests, never echoed).
// Pages of other sites cannot drive it: a POST must say `content-type: application/json` (which a
// cross-site page cannot send without a preflight this server never grants), the Host must be the
// server's own, and a WebSocket that a browser opens (it carries an Origin) is refused.

import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { CapsuleError } from '../../base/errors.js';
import type { World } from '../../research/world.js';
import { checkKeyFormat } from '../gateway/access.js';
import { EpisodeTable, type EpisodeTableOptions } from './episodeTable.js';
import { DEFAULT_MAX_BODY_BYTES, httpApi } from './httpApi.js';
import { serveOpenEnvSocket } from './openEnvSocket.js';
import { LiveEpisodes } from './liveEpisodes.js';
import { webSocketLink, type WebSocketLike } from '../../links/websocket.js';
import { ServeError } from '../../research/servedEnv.js';

export interface ServeOptions extends EpisodeTableOptions {
  world: World;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 8000; 0 picks a free port. */
  port?: number;
  /** Required on any address but loopback. */
  key?: string;
  /** Largest request body or WebSocket message. Default 64 KiB. */
  maxBodyBytes?: number;
  /** Told of failures that are the server's, not a client's (the client gets a 500 without details). */
  onError?: (error: unknown) => void;
}

export interface ServeHandle {
  url: string;
  port: number;
  episodes: EpisodeTable;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export async function startServe(options: ServeOptions): Promise<ServeHandle> {
  const host = options.host ?? '127.0.0.1';
  const key = options.key;
  if (key === undefined && !LOOPBACK.has(host))
    throw new CapsuleError('AICC_INVALID_OPTION', `serve: ${host} is not loopback; give a key (AICC_SERVE_KEY) for any other address`);
  if (key !== undefined) {
    const problem = checkKeyFormat(key);
    if (problem !== undefined) throw new CapsuleError('AICC_INVALID_OPTION', `serve: ${problem.replace('gateway key', 'serve key')}`);
  }
  const keyDigest = key === undefined ? undefined : digest(key);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  let live: LiveEpisodes | undefined;
  const episodes = new EpisodeTable(options.world, { ...options, others: () => live?.size ?? 0 });
  live = new LiveEpisodes(options.world, { room: () => episodes.room() });
  const lives = live;
  const api = httpApi(episodes, lives, maxBodyBytes);
  let port = 0;

  /** Why a request may not come in, or undefined when it may. */
  const refusal = (request: IncomingMessage): { status: number; code: string; message: string } | undefined => {
    const hostHeader = (request.headers.host ?? '').replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
    if (key === undefined && !LOOPBACK.has(hostHeader)) return { status: 421, code: 'not_found', message: 'this server answers on its loopback address only' };
    if (keyDigest !== undefined) {
      const offered = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      if (offered === undefined || !timingSafeEqual(digest(offered), keyDigest))
        return { status: 401, code: 'unauthorized', message: 'send the serve key as Authorization: Bearer KEY' };
    }
    return undefined;
  };

  const http: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const refused =
      refusal(request) ??
      (request.method === 'POST' && !/^application\/json\b/i.test(request.headers['content-type'] ?? '')
        ? { status: 415, code: 'invalid_request', message: 'send the body as content-type: application/json' }
        : undefined);
    if (refused !== undefined) {
      response.writeHead(refused.status, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
      response.end(JSON.stringify({ error: { code: refused.code, message: refused.message } }));
      request.resume();
      return;
    }
    api.handle(request, response).catch((error: unknown) => options.onError?.(error));
  });
  const sockets = new WebSocketServer({ noServer: true, maxPayload: maxBodyBytes });
  http.on('upgrade', (request: IncomingMessage, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://serve');
    const refused =
      refusal(request) ??
      (url.pathname !== '/ws' && url.pathname !== '/aicc'
        ? { status: 404, code: 'not_found', message: 'the WebSockets are /ws (OpenEnv) and /aicc (aicc/0.1)' }
        : request.headers.origin !== undefined
          ? { status: 403, code: 'unauthorized', message: 'a browser page may not open this socket' }
          : undefined);
    if (refused !== undefined) {
      socket.end(`HTTP/1.1 ${refused.status} ${refused.code}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => {
      if (url.pathname === '/ws') {
        void serveOpenEnvSocket(ws, episodes).catch((error: unknown) => options.onError?.(error));
        return;
      }
      // aicc/0.1 for a live character: the episode and, on a first socket, the character.
      try {
        lives.attach(url.searchParams.get('episode_id') ?? '', url.searchParams.get('agent') ?? undefined, webSocketLink(ws as unknown as WebSocketLike));
      } catch (error) {
        ws.close(4404, error instanceof ServeError ? error.message.slice(0, 120) : 'the episode could not take this socket');
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 8000, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  port = (http.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    port,
    episodes,
    async close() {
      for (const client of sockets.clients) client.terminate();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
      await episodes.closeAll();
      await lives.endAll();
    },
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
