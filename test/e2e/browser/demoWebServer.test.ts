// The demo server's static side, over real HTTP on 127.0.0.1: what it serves and as what, and what
// it refuses — paths out of its roots (.., encoded .., symbolic links), directories, unlisted types,
// dotfiles, other methods and other Host names.

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoBundle } from '../../../demos/server/bundle.js';
import { DEMO_CSP, startDemoServer, type DemoServer } from '../../../demos/server/server.js';

let root: string;
let server: DemoServer;

/** One raw request: the path goes out exactly as written (fetch would normalise `..`). */
function get(
  path: string,
  options: { method?: string; host?: string } = {},
): Promise<{ status: number; type: string | undefined; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path,
        method: options.method ?? 'GET',
        headers: { host: options.host ?? `127.0.0.1:${server.port}` },
        timeout: 5000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body, headers: res.headers }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'aicc-demo-web-'));
  const dir = join(root, 'demos', 'game');
  mkdirSync(join(dir, 'assets'), { recursive: true });
  mkdirSync(join(root, 'dist'));
  mkdirSync(join(root, 'node_modules', 'phaser', 'dist'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>game</title>');
  writeFileSync(join(dir, 'script.html'), '<!doctype html><title>script page</title>');
  writeFileSync(join(dir, 'main.ts'), 'export const source = 1;');
  writeFileSync(join(dir, 'assets', 'sprite.png'), 'not really a png');
  writeFileSync(join(dir, '.env'), 'SECRET=1');
  writeFileSync(join(root, 'dist', 'aicc.iife.js'), 'var AICC = {};');
  writeFileSync(join(root, 'node_modules', 'phaser', 'dist', 'phaser.min.js'), 'var Phaser = {};');
  writeFileSync(join(root, 'node_modules', 'phaser', 'dist', 'phaser.js'), 'var Phaser = {}; // not served');
  writeFileSync(join(root, 'secret.txt'), 'outside every root');
  // A link inside a served folder that points out of it must not be followed.
  symlinkSync(join(root, 'secret.txt'), join(dir, 'assets', 'link.txt'));
  const game: DemoBundle = { name: 'game', dir, pages: ['index.html', 'script.html'], files: new Map([['main.js', Buffer.from('console.log("bundled");')]]) };
  server = await startDemoServer({ root, demos: [game], port: 0, csp: DEMO_CSP });
});

afterAll(async () => {
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

/** A raw WebSocket upgrade request to `path`; resolves with the status line of the answer. */
function upgrade(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1', () =>
      socket.write(
        `GET ${path} HTTP/1.1\r\nhost: 127.0.0.1:${server.port}\r\norigin: ${server.url.slice(0, -1)}\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n`,
      ),
    );
    let text = '';
    socket.setTimeout(5000, () => socket.destroy(new Error(`upgrade ${path} timed out`)));
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n')) {
        resolve(text.slice(0, text.indexOf('\r\n')));
        socket.destroy();
      }
    });
    socket.on('error', reject);
  });
}

describe('demo server', () => {
  it('lists its pages, index first', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/`);
    expect(server.pages).toEqual([
      { demo: 'game', url: `http://127.0.0.1:${server.port}/game/` },
      { demo: 'game', url: `http://127.0.0.1:${server.port}/game/script.html` },
    ]);
  });

  it('serves each root with its content type', async () => {
    expect(await get('/game/')).toMatchObject({ status: 200, type: 'text/html; charset=utf-8', body: '<!doctype html><title>game</title>' });
    expect(await get('/game/script.html')).toMatchObject({ status: 200, type: 'text/html; charset=utf-8', body: '<!doctype html><title>script page</title>' });
    expect(await get('/game/main.js')).toMatchObject({ status: 200, type: 'text/javascript; charset=utf-8', body: 'console.log("bundled");' });
    expect(await get('/game/assets/sprite.png')).toMatchObject({ status: 200, type: 'image/png' });
    expect(await get('/dist/aicc.iife.js')).toMatchObject({ status: 200, type: 'text/javascript; charset=utf-8', body: 'var AICC = {};' });
    expect(await get('/vendor/phaser.min.js')).toMatchObject({ status: 200, body: 'var Phaser = {};' });
    const page = await get('/game/');
    expect(page.headers).toMatchObject({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  });

  it(`serves every page, and only pages, under the Content-Security-Policy it is given: ${DEMO_CSP}`, async () => {
    expect(DEMO_CSP).toBe("script-src 'self'");
    for (const path of ['/', '/game/', '/game/script.html']) expect((await get(path)).headers['content-security-policy'], path).toBe(DEMO_CSP);
    for (const path of ['/game/main.js', '/dist/aicc.iife.js', '/game/assets/sprite.png'])
      expect((await get(path)).headers['content-security-policy'], path).toBeUndefined();
  });

  it('links every page from /, and sends /game to /game/', async () => {
    const index = await get('/');
    expect(index.body).toContain('<a href="/game/">');
    expect(index.body).toContain('<a href="/game/script.html">');
    expect(await get('/game')).toMatchObject({ status: 301, headers: { location: '/game/' } });
  });

  it('answers HEAD without a body', async () => {
    const head = await get('/dist/aicc.iife.js', { method: 'HEAD' });
    expect(head).toMatchObject({ status: 200, body: '', headers: { 'content-length': '14' } });
  });

  it('never serves a file outside its roots', async () => {
    for (const path of [
      '/game/../secret.txt',
      '/game/..%2f..%2fsecret.txt',
      '/game/%2e%2e/%2e%2e/secret.txt',
      '/dist/..%2fsecret.txt',
      '/dist/%2e%2e%2fsecret.txt',
      '/game/assets/..%5c..%5c..%5csecret.txt',
      '/game/assets/link.txt',
      '/vendor/phaser.js',
      '/vendor/..%2fphaser.js',
      '/secret.txt',
      '/game/%00index.html',
    ]) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(response.body, path).not.toContain('outside every root');
      expect(response.body, path).not.toContain('not served');
    }
  });

  it('lists no directory, serves no .ts source and no dotfile', async () => {
    expect((await get('/game/assets/')).status).toBe(404);
    expect((await get('/game/assets')).status).toBe(404);
    expect((await get('/dist/')).status).toBe(404);
    expect(await get('/game/main.ts')).toMatchObject({ status: 404, body: 'demo:web: files of type ".ts" are not served\n' });
    expect((await get('/game/.env')).status).toBe(404);
  });

  it('refuses other methods, malformed paths and other host names', async () => {
    expect(await get('/game/', { method: 'POST' })).toMatchObject({ status: 405, headers: { allow: 'GET, HEAD' } });
    expect((await get('/game/%E0%A4%A')).status).toBe(400);
    expect((await get('//')).status).toBe(400);
    // DNS rebinding: a foreign name resolving to 127.0.0.1 gets nothing.
    expect((await get('/game/', { host: 'attacker.example' })).status).toBe(421);
    expect((await get('/game/', { host: `localhost:${server.port}` })).status).toBe(200);
  });

  it('upgrades only /pi and /characters/<id>, and lives through a malformed upgrade path', async () => {
    expect(await upgrade('//')).toBe('HTTP/1.1 404 Not Found');
    expect(await upgrade('/game/')).toBe('HTTP/1.1 404 Not Found');
    expect(await upgrade('/pi')).toBe('HTTP/1.1 101 Switching Protocols');
    expect(await upgrade('/characters/cleo')).toBe('HTTP/1.1 101 Switching Protocols');
    expect((await get('/game/')).status).toBe(200);
  });
});
