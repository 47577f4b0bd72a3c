// `aicc serve` under rounds of hostile traffic, in a process of its own with --expose-gc: every
// request answered with its documented status, no failure of the server's own, every episode closed,
// and the heap after GC as flat after the last round as after the second (the first warms up).

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';

it('stays up and flat through rounds of 200 resets past the bound, malformed, oversized and misaddressed requests', async () => {
  const program = join(import.meta.dirname, 'programs', 'hostileRounds.ts');
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', program, '8'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const status = await new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  expect(status, err).toBe(0);
  const { heaps, crashes, open, statuses } = JSON.parse(out.trim().split('\n').at(-1)!) as {
    heaps: number[];
    crashes: number;
    open: number;
    statuses: Record<string, number>;
  };
  expect(crashes).toBe(0);
  expect(open).toBe(0);
  // 8 rounds × 200 resets: 8 started a round, the rest refused; each started episode's six steps: one ok, five refused.
  expect(statuses).toEqual({ '200': 8 * 8 * 2, '400': 8 * 8 * 3, '404': 8 * 8, '413': 8 * 8, '503': 8 * 192 });
  const growth = heaps.at(-1)! - heaps[1]!;
  expect(growth, `heap after each round: ${heaps.map((bytes) => (bytes / 2 ** 20).toFixed(1)).join(', ')} MiB`).toBeLessThan(4 * 2 ** 20);
}, 120_000);
