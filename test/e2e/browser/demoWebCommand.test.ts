// `npm run demo:web` as a user runs it: the arguments it refuses and why, --help, and a run on a
// copy of the repository's layout that bundles a demo, prints its URLs, serves it (its pages under
// the strict Content-Security-Policy) and stops.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoWebCommand, missingDistFiles, parseDemoWebArgs } from '../../../demos/server/command.js';
import { DEMO_CSP } from '../../../demos/server/server.js';

const KEY = 'command-test-key-0123456789abcdef';
const repo = join(import.meta.dirname, '..', '..', '..');

function io(): { out: string[]; err: string[]; io: { stdout: { write(t: string): boolean }; stderr: { write(t: string): boolean } } } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: { write: (t) => out.push(t) > 0 }, stderr: { write: (t) => err.push(t) > 0 } } };
}

describe('parseDemoWebArgs', () => {
  it('defaults to port 5173 and no gateway', () => {
    expect(parseDemoWebArgs([])).toEqual({ port: 5173, demos: [] });
  });

  it('takes the gateway key from AICC_GATEWAY_KEY only', () => {
    expect(parseDemoWebArgs(['--gateway', 'ws://127.0.0.1:8787/', '--port', '0'], { AICC_GATEWAY_KEY: KEY })).toEqual({
      port: 0,
      demos: [],
      gateway: { url: 'ws://127.0.0.1:8787/', key: KEY },
    });
    expect(parseDemoWebArgs(['--gateway', 'ws://127.0.0.1:8787/'])).toBe('--gateway needs the gateway key in the environment variable AICC_GATEWAY_KEY');
    expect(parseDemoWebArgs(['--gateway', 'ws://127.0.0.1:8787/'], { AICC_GATEWAY_KEY: 'short' })).toMatch(
      /^AICC_GATEWAY_KEY: the gateway key must be at least 16 characters \(got 5\)/,
    );
    expect(parseDemoWebArgs(['--key', KEY])).toBe('unknown option "--key"');
  });

  it('keeps the key on this machine', () => {
    expect(parseDemoWebArgs(['--gateway', 'ws://gateway.example:8787/'], { AICC_GATEWAY_KEY: KEY })).toBe(
      '--gateway must be on this machine (127.0.0.1), got gateway.example',
    );
    expect(parseDemoWebArgs(['--gateway', 'http://127.0.0.1:8787/'], { AICC_GATEWAY_KEY: KEY })).toBe(
      "--gateway expects a ws:// URL (the gateway's), got http:",
    );
    expect(parseDemoWebArgs(['--gateway', 'ws://me:pw@127.0.0.1:8787/'], { AICC_GATEWAY_KEY: KEY })).toBe(
      '--gateway takes no user or password in the URL; the key comes from AICC_GATEWAY_KEY',
    );
    expect(parseDemoWebArgs(['--gateway', 'nope'], { AICC_GATEWAY_KEY: KEY })).toBe('--gateway expects a URL such as ws://127.0.0.1:8787/, got "nope"');
  });

  it('names a bad port or a missing value', () => {
    expect(parseDemoWebArgs(['--port', '70000'])).toBe('--port expects a whole number from 0 to 65535, got "70000"');
    expect(parseDemoWebArgs(['--port'])).toBe('--port expects a value');
    expect(parseDemoWebArgs(['--demo', '--port', '1'])).toBe('--demo expects a value');
  });
});

describe('missingDistFiles', () => {
  it('names the /dist/ bundles the pages load that dist/ lacks', () => {
    const root = mkdtempSync(join(tmpdir(), 'aicc-demo-web-dist-'));
    try {
      mkdirSync(join(root, 'demos', 'game'), { recursive: true });
      mkdirSync(join(root, 'dist'));
      writeFileSync(join(root, 'demos', 'game', 'index.html'), '<script type="module" src="./main.js"></script>');
      writeFileSync(join(root, 'demos', 'game', 'script.html'), `<script src="/dist/aicc.iife.js"></script><script src='/dist/aicc-game.iife.js'></script>`);
      writeFileSync(join(root, 'dist', 'aicc.iife.js'), '');
      expect(missingDistFiles(join(root, 'demos'), ['game'], root)).toEqual(['dist/aicc-game.iife.js']);
      writeFileSync(join(root, 'dist', 'aicc-game.iife.js'), '');
      expect(missingDistFiles(join(root, 'demos'), ['game'], root)).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('demoWebCommand', () => {
  // The fixture is the one demo; dist/ and Phaser come from this repository.
  const demosDir = join(import.meta.dirname, 'fixtures', 'demos');

  it('prints its help', async () => {
    const { out, io: streams } = io();
    expect(await demoWebCommand(['--help'], streams)).toBe(0);
    expect(out.join('')).toMatch(/^npm run demo:web — the browser demos, built and served on 127\.0\.0\.1\n/);
    expect(out.join('')).toContain('AICC_GATEWAY_KEY');
  });

  it('refuses bad usage with exit code 2 and names an unknown demo', async () => {
    const bad = io();
    expect(await demoWebCommand(['--port', 'x'], bad.io, { root: repo, demosDir })).toBe(2);
    expect(bad.err.join('')).toBe('demo:web: --port expects a whole number from 0 to 65535, got "x"; run `npm run demo:web -- --help`\n');
    const unknown = io();
    expect(await demoWebCommand(['--demo', 'nope'], unknown.io, { root: repo, demosDir })).toBe(2);
    expect(unknown.err.join('')).toBe('demo:web: no demo "nope"; the demos are: fixture\n');
  });

  it('bundles, serves and lists the demo pages, then stops on its signal', async () => {
    const { out, err, io: streams } = io();
    const stop = new AbortController();
    const exit = demoWebCommand(['--port', '0', '--gateway', 'ws://127.0.0.1:9/'], streams, {
      root: repo,
      env: { AICC_GATEWAY_KEY: KEY },
      signal: stop.signal,
      demosDir,
    });
    const deadline = Date.now() + 20_000;
    while (!out.join('').includes('reach pi')) {
      if (Date.now() > deadline) throw new Error(`no URLs printed; stderr: ${err.join('')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const text = out.join('');
    const base = /serving on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(text)![1]!;
    expect(text).toBe(
      `demo:web: serving on ${base}\n  fixture  ${base}fixture/\npages opened with ?agent=pi reach pi at ws://127.0.0.1:9/ through ${base.replace('http', 'ws')}pi\n`,
    );
    // Its pages run under the strict policy the package promises to work under.
    const page = await fetch(`${base}fixture/`, { signal: AbortSignal.timeout(5000) });
    expect(page.headers.get('content-security-policy')).toBe(DEMO_CSP);
    const script = await fetch(`${base}fixture/main.js`, { signal: AbortSignal.timeout(5000) });
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toContain('the harness must see');
    stop.abort();
    expect(await exit).toBe(0);
    await expect(fetch(base, { signal: AbortSignal.timeout(5000) })).rejects.toThrow();
    expect(out.join('') + err.join('')).not.toContain(KEY);
  });
});
