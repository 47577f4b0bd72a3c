// The HTTP server of `npm run demo:web`, on 127.0.0.1 only: the bundled demos and their folders
// (/<name>/), the built library (/dist/*), Phaser's prebuilt script (/vendor/phaser.min.js), and the
// WebSocket proxy to a gateway: `/pi` and `/characters/<id>` (proxy.ts). Files are served
// only from those roots, only as the content types listed below, never as a directory listing.
// `npm run demo:web` serves every page under DEMO_CSP (the `csp` option), the strict policy the
// package promises to work under: a demo that needed eval or an inline script fails there first.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import type { Duplex } from 'node:stream';
import type { DemoBundle } from './bundle.js';
import { createGatewayProxy, proxyRoute, type GatewayProxyOptions } from './proxy.js';

export const DEMO_HOST = '127.0.0.1';
/** The Content-Security-Policy of every HTML page served: scripts from the page's own origin only, no eval. */
export const DEMO_CSP = "script-src 'self'";

/** The types served; a file with any other extension (.ts among them) is not served. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.wasm': 'application/wasm',
  '.mp3': 'audio/mpeg',
  '.ogg': 'audio/ogg',
  '.wav': 'audio/wav',
  '.woff2': 'font/woff2',
};

export interface DemoServerOptions {
  /** The repository: dist/ and node_modules/phaser are served from here. */
  root: string;
  demos: readonly DemoBundle[];
  /** TCP port on 127.0.0.1 (default 0: any free port; read it from `server.port`). */
  port?: number;
  /** Where `/pi` and `/characters/<id>` lead; without it a page's socket is closed with 4404 and how to start one. */
  gateway?: GatewayProxyOptions['gateway'];
  /** One line per proxied connection. Never the key. */
  log?: (line: string) => void;
  /** A Content-Security-Policy sent with every HTML page (`npm run demo:web` sends DEMO_CSP). Default: none. */
  csp?: string;
  /** The proxy's bounds (defaults in proxy.ts). */
  proxyLimits?: Pick<GatewayProxyOptions, 'maxConnections' | 'maxPending' | 'maxPayload'>;
}

export interface DemoPage {
  demo: string;
  /** e.g. http://127.0.0.1:5173/phaser/ or …/phaser/script.html */
  url: string;
}

export interface DemoServer {
  readonly port: number;
  /** http://127.0.0.1:PORT/ */
  readonly url: string;
  readonly pages: readonly DemoPage[];
  close(): Promise<void>;
}

type Resolved =
  | { kind: 'file'; path: string }
  | { kind: 'bytes'; bytes: Uint8Array; type: string }
  | { kind: 'redirect'; location: string }
  | { kind: 'status'; status: number; text: string };

export async function startDemoServer(options: DemoServerOptions): Promise<DemoServer> {
  const demos = new Map(options.demos.map((demo) => [demo.name, demo]));
  const root = resolve(options.root);
  let port = 0;
  let allowedHosts = new Set<string>();

  const proxy = createGatewayProxy({
    ...options.proxyLimits,
    ...(options.gateway !== undefined && { gateway: options.gateway }),
    ...(options.log !== undefined && { log: options.log }),
  });

  const http = createServer((request, response) => {
    void respond(request, response).catch(() => {
      if (!response.headersSent) send(response, 500, 'text/plain; charset=utf-8', 'demo:web: could not read the file\n');
      else response.destroy();
    });
  });

  async function respond(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // A page reached under another host name (DNS rebinding) is not one of ours.
    if (!allowedHosts.has(request.headers.host ?? ''))
      return send(response, 421, 'text/plain; charset=utf-8', 'demo:web: open the demos at http://127.0.0.1:PORT/\n');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('allow', 'GET, HEAD');
      return send(response, 405, 'text/plain; charset=utf-8', 'demo:web: only GET and HEAD\n');
    }
    const found = route(request.url ?? '/');
    const head = request.method === 'HEAD';
    switch (found.kind) {
      case 'redirect':
        response.setHeader('location', found.location);
        return send(response, 301, 'text/plain; charset=utf-8', `see ${found.location}\n`);
      case 'status':
        return send(response, found.status, 'text/plain; charset=utf-8', found.status === 204 ? '' : `demo:web: ${found.text}\n`);
      case 'bytes':
        return send(response, 200, found.type, found.bytes, head, options.csp);
      case 'file':
        return send(response, 200, CONTENT_TYPES[extname(found.path).toLowerCase()]!, await readFile(found.path), head, options.csp);
    }
  }

  function route(rawUrl: string): Resolved {
    const pathname = pathOf(rawUrl);
    if (pathname === undefined) return { kind: 'status', status: 400, text: 'the path is not a valid URL path' };
    if (pathname === '/') return { kind: 'bytes', bytes: Buffer.from(indexPage()), type: CONTENT_TYPES['.html']! };
    // The browser asks for one on every page; a 404 would be a console error in every browser test.
    if (pathname === '/favicon.ico') return { kind: 'status', status: 204, text: '' };
    const [, first = '', ...rest] = pathname.split('/');
    const tail = rest.join('/');
    if (first === 'dist') return staticFile(join(root, 'dist'), tail);
    if (first === 'vendor' && tail === 'phaser.min.js') return staticFile(join(root, 'node_modules', 'phaser', 'dist'), 'phaser.min.js');
    const demo = demos.get(first);
    if (demo === undefined) return { kind: 'status', status: 404, text: `no such page: ${pathname.slice(0, 100)}` };
    if (rest.length === 0) return { kind: 'redirect', location: `/${demo.name}/` };
    const built = demo.files.get(tail);
    if (built !== undefined) return { kind: 'bytes', bytes: built, type: CONTENT_TYPES[extname(tail)] ?? 'application/octet-stream' };
    return staticFile(demo.dir, tail === '' ? 'index.html' : tail);
  }

  function indexPage(): string {
    const items = pagesOf(`http://${DEMO_HOST}:${port}`).map(
      ({ demo, url }) => `<li><a href="${new URL(url).pathname}">${demo}: ${new URL(url).pathname}</a></li>`,
    );
    return `<!doctype html><meta charset="utf-8"><title>aicc-capsule demos</title><h1>aicc-capsule demos</h1><ul>${items.join('')}</ul>`;
  }

  function pagesOf(origin: string): DemoPage[] {
    return options.demos.flatMap((demo) => demo.pages.map((page) => ({ demo: demo.name, url: `${origin}/${demo.name}/${page === 'index.html' ? '' : page}` })));
  }

  http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Only this server's own pages may use the proxy: it adds the gateway key for them.
    const origin = request.headers.origin;
    const route = proxyRoute(request.url);
    const own = origin !== undefined && allowedHosts.has(request.headers.host ?? '') && [...allowedHosts].some((host) => origin === `http://${host}`);
    if (route === undefined || !own) {
      socket.end(`HTTP/1.1 ${route === undefined ? '404 Not Found' : '403 Forbidden'}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    proxy.upgrade(request, socket, head, route);
  });

  await new Promise<void>((resolvePromise, reject) => {
    http.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(`demo:web: cannot listen on ${DEMO_HOST}:${options.port ?? 0} (${error.code ?? error.message}); pass another --port (0 picks a free one)`),
      ),
    );
    http.listen(options.port ?? 0, DEMO_HOST, () => resolvePromise());
  });
  const address = http.address();
  if (address === null || typeof address === 'string') throw new Error('demo:web: the server has no TCP address');
  port = address.port;
  allowedHosts = new Set([`${DEMO_HOST}:${port}`, `localhost:${port}`]);

  return {
    port,
    url: `http://${DEMO_HOST}:${port}/`,
    pages: pagesOf(`http://${DEMO_HOST}:${port}`),
    async close() {
      await proxy.close();
      await new Promise<void>((resolvePromise) => {
        http.close(() => resolvePromise());
        http.closeAllConnections();
      });
    },
  };
}

/** A request target's decoded path, or undefined when it is none (`//`, bad %-escapes). */
function pathOf(target: string | undefined): string | undefined {
  try {
    return decodeURIComponent(new URL(target ?? '/', 'http://demo').pathname);
  } catch {
    return undefined;
  }
}

/**
 * The file `relative` (URL path segments, already decoded) under `base`, or why not: nothing above
 * `base` (no `..`, no symbolic link out of it), files only, and only the types in CONTENT_TYPES.
 */
export function staticFile(base: string, relative: string): Resolved {
  const segments = relative.split('/');
  // No `..`, no empty segment, no dotfile (a dot first also covers `.` and `..`).
  if (relative.includes('\0') || relative.includes('\\') || segments.some((segment) => segment === '' || segment.startsWith('.'))) {
    return { kind: 'status', status: 404, text: 'no such file' };
  }
  if (CONTENT_TYPES[extname(relative).toLowerCase()] === undefined)
    return { kind: 'status', status: 404, text: `files of type "${extname(relative)}" are not served` };
  const full = resolve(base, ...segments);
  if (!existsSync(full) || !existsSync(base)) return { kind: 'status', status: 404, text: `no such file: ${relative.slice(0, 100)}` };
  const realBase = realpathSync(base);
  const real = realpathSync(full);
  if (!real.startsWith(realBase + sep) || !statSync(real).isFile()) return { kind: 'status', status: 404, text: 'no such file' };
  return { kind: 'file', path: real };
}

function send(response: ServerResponse, status: number, type: string, body: string | Uint8Array, head = false, csp?: string): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  response.writeHead(status, {
    'content-type': type,
    'content-length': bytes.byteLength,
    // A development server: every reload gets the latest build.
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    // Cross-origin isolated pages get performance.now() at 5 µs rather than 100 µs, which the frame
    // meter needs; the demos load nothing from other origins.
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-embedder-policy': 'require-corp',
    ...(csp !== undefined && type.startsWith('text/html') && { 'content-security-policy': csp }),
  });
  response.end(head ? undefined : bytes);
}
