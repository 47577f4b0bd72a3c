// `aicc serve` as the command line runs it: usage mistakes exit 2 before anything listens, a world
// that will not load exits 1, and a served world answers until the signal stops it.

import { describe, expect, it } from 'vitest';
import { serveCommand } from '../../../src/node/cli/serveCommand.js';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: { write: (text: string) => out.push(text) }, stderr: { write: (text: string) => err.push(text) } } };
}

describe('aicc serve', () => {
  it('refuses bad usage with exit 2 and a world it cannot load with exit 1', async () => {
    for (const [argv, message] of [
      [[], /name the world to serve/],
      [['swarm', 'village'], /one world at a time/],
      [['swarm', '--port', 'eighty'], /--port expects a whole number/],
      [['swarm', '--max-episodes', '0'], /--max-episodes expects a whole number/],
      [['swarm', '--fly'], /--fly/],
    ] as const) {
      const run = io();
      expect(await serveCommand([...argv], run.io)).toBe(2);
      expect(run.err.join('')).toMatch(message);
    }
    const missing = io();
    expect(await serveCommand(['atlantis'], missing.io)).toBe(1);
    expect(missing.err.join('')).toMatch(/no built-in world named "atlantis"/);
    const open = io();
    expect(await serveCommand(['swarm', '--host', '0.0.0.0', '--port', '0'], open.io, { env: {} })).toBe(1);
    expect(open.err.join('')).toMatch(/not loopback; give a key \(AICC_SERVE_KEY\)/);
  });

  it('serves the world on 127.0.0.1 until the signal, then exits 0', async () => {
    const run = io();
    const stop = new AbortController();
    const exit = serveCommand(['swarm', '--port', '0', '--max-episodes', '3'], run.io, { signal: stop.signal, env: {} });
    await expect.poll(() => run.out.join(''), { timeout: 10_000 }).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+ \(world swarm\)/);
    const url = /listening on (\S+)/.exec(run.out.join(''))![1]!;
    expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'healthy' });
    stop.abort();
    expect(await exit).toBe(0);
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  });
});
