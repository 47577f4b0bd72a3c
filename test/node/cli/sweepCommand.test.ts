import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { aggregate, formatAggregate } from '../../../src/research/aggregate.js';
import { readResults } from '../../../src/node/sweep/resultsFile.js';
import type { SweepResult } from '../../../src/node/sweep/sweepResult.js';
import { sweepCommand, type QueueModule } from '../../../src/node/cli/sweepCommand.js';
import { brokenWorldModule, keyCounts, requireBuiltWorker, tempFolder } from '../sweep/helpers.js';

beforeAll(requireBuiltWorker);

function fakeIo(isTTY = false) {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: { write: (text: string) => out.push(text) }, stderr: { isTTY, columns: 120, write: (text: string) => err.push(text) } } };
}

/** A signal nothing aborts: keeps the test's process free of a SIGINT listener. */
const runtime = { signal: new AbortController().signal };

describe('aicc sweep', () => {
  it('runs the sweep, prints the aggregate table and what ran, with a progress bar on a terminal', async () => {
    const out = join(tempFolder(), 'results.jsonl');
    const { io, out: stdout, err } = fakeIo(true);
    const code = await sweepCommand(
      ['village', '--seeds', '1..6', '--param', 'dayTicks=40', '--param', 'apples=1,3', '--workers', '2', '--out', out],
      io,
      runtime,
    );
    expect(err.filter((text) => !text.startsWith('\r'))).toEqual([]);
    expect(code).toBe(0);
    const table = formatAggregate(aggregate(readResults(out).episodes));
    expect(stdout.join('')).toBe(`${table}\n\nran 12 episodes, 0 already in the results file; 12 of 12 in ${out}\n`);
    expect(table).toMatch(/^apples=1 dayTicks=40: 6 episodes/);
    expect(err.some((text) => text.includes('12/12'))).toBe(true);
    expect(err.at(-1)).toBe('\r\x1b[2K'); // the bar's line is cleared at the end
  });

  it('prints JSON with --json, and with --resume runs only what is missing', async () => {
    const out = join(tempFolder(), 'results.jsonl');
    const argv = ['village', '--seeds', '1..4', '--param', 'dayTicks=30', '--workers', '1', '--out', out];
    expect(await sweepCommand(argv, fakeIo().io, runtime)).toBe(0);
    writeFileSync(out, `${readFileSync(out, 'utf8').split('\n').slice(0, 2).join('\n')}\n{"world":"vill`); // two whole lines and a torn one
    const { io, out: stdout, err } = fakeIo();
    expect(await sweepCommand(['village', '--seeds', '1..5', '--param', 'dayTicks=30', '--out', out, '--resume', '--json'], io, runtime)).toBe(0);
    const report = JSON.parse(stdout.join('')) as { jobs: number; ran: number; held: number; missing: number; out: string; aggregate: unknown };
    expect({ ...report, aggregate: undefined }).toEqual({ world: 'village', jobs: 5, ran: 3, held: 2, missing: 0, out, aggregate: undefined });
    expect(report.aggregate).toEqual(JSON.parse(JSON.stringify(aggregate(readResults(out).episodes))));
    expect(err.join('')).toBe(`ran 3 episodes, 2 already in the results file; 5 of 5 in ${out}\n`);
    expect([...keyCounts(out).values()]).toEqual([1, 1, 1, 1, 1]);
  });

  it('refuses bad usage with exit 2 and a message, before running anything', async () => {
    const folder = tempFolder();
    const full = join(folder, 'full.jsonl');
    writeFileSync(full, '{"world":"village","seed":1,"params":{"apples":3,"dayTicks":600}}\n');
    const cases: Array<[string[], RegExp]> = [
      [['--seeds', '1..3', '--out', join(folder, 'a.jsonl')], /name one world/],
      [['village', '--out', join(folder, 'a.jsonl')], /--seeds is required/],
      [['village', '--seeds', '1..3'], /--out is required/],
      [['village', '--seeds', '3..1', '--out', join(folder, 'a.jsonl')], /--seeds has the range 3\.\.1, which goes downwards; write 1\.\.3/],
      [['village', '--seeds', '1..3', '--param', 'apple=1', '--out', join(folder, 'a.jsonl')], /no parameter "apple"; it takes apples, dayTicks/],
      [['village', '--seeds', '1..3', '--param', 'apples', '--out', join(folder, 'a.jsonl')], /--param takes NAME=V1,V2/],
      [['village', '--seeds', '1..3', '--param', 'apples=1', '--param', 'apples=2', '--out', join(folder, 'a.jsonl')], /--param apples is given twice/],
      [['village', '--seeds', '1..3', '--workers', '0', '--out', join(folder, 'a.jsonl')], /--workers takes a whole number >= 1/],
      [['hamlet', '--seeds', '1..3', '--out', join(folder, 'a.jsonl')], /no built-in world named "hamlet"/],
      [['village', '--seeds', '1..3', '--out', full], /full\.jsonl is not empty; resume to keep its episodes/],
      [['village', '--seeds', '1..3', '--out', join(folder, 'a.jsonl'), '--queue', 'http://x'], /--queue takes a Redis URL/],
      [['village', '--seeds', '1..3', '--out', join(folder, 'a.jsonl'), '--bogus'], /unknown option "--bogus"/],
    ];
    for (const [argv, message] of cases) {
      const { io, out, err } = fakeIo();
      expect(await sweepCommand(argv, io, runtime), argv.join(' ')).toBe(2);
      expect(err.join(''), argv.join(' ')).toMatch(message);
      expect(err.join('')).toMatch(/^aicc sweep: .*; run `aicc sweep --help`\n$/);
      expect(out).toEqual([]);
    }
    expect(readFileSync(full, 'utf8')).toBe('{"world":"village","seed":1,"params":{"apples":3,"dayTicks":600}}\n');
  });

  it('prints its help with exit 0', async () => {
    const { io, out } = fakeIo();
    expect(await sweepCommand(['--help'], io, runtime)).toBe(0);
    expect(out.join('')).toMatch(/^aicc sweep — .*\n\nUsage: aicc sweep WORLD --seeds 1\.\.N --out results\.jsonl/);
  });

  it('passes an episode that fails at run time, named by its seed and params, to the CLI (which prints it and exits 1)', async () => {
    const { io, err } = fakeIo();
    const folder = tempFolder();
    const out = join(folder, 'r.jsonl');
    const code = await sweepCommand([brokenWorldModule(folder), '--seeds', '1', '--max-ticks', '5', '--out', out], io, runtime).catch((error: Error) => error);
    // Failures past usage are thrown to the CLI's main, which prints them and exits 1.
    expect(code).toBeInstanceOf(Error);
    expect((code as Error).message).toMatch(/the episode broken seed 1 \(apples=3, dayTicks=600\) failed: the broken world cannot measure/);
    expect(err).toEqual([]);
    expect(existsSync(out)).toBe(false);
  });

  it('refuses a value the world refuses with exit 2 before any episode, and makes no results file', async () => {
    const out = join(tempFolder(), 'r.jsonl');
    const { io, err } = fakeIo();
    expect(await sweepCommand(['village', '--seeds', '1', '--param', 'apples=99', '--out', out], io, runtime)).toBe(2);
    expect(err.join('')).toMatch(
      /^aicc sweep: the world "village" refuses apples=99 \(its setup with seed 1 threw: village: apples must be from 0 to 3, got 99\)/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('hands --queue to the BullMQ sweep, and says what to install when it cannot be loaded', async () => {
    const out = join(tempFolder(), 'r.jsonl');
    const calls: unknown[] = [];
    const result: SweepResult = { jobs: 2, ran: 2, episodes: [], missing: [], aggregate: [] };
    const queue: QueueModule = { runQueueSweep: async (options) => (calls.push(options), result) };
    const { io, out: stdout } = fakeIo();
    expect(
      await sweepCommand(['village', '--seeds', '1,2', '--out', out, '--queue', 'redis://127.0.0.1:6390', '--max-ticks', '50'], io, {
        ...runtime,
        loadQueue: async () => queue,
      }),
    ).toBe(0);
    expect(calls).toEqual([expect.objectContaining({ world: 'village', seeds: '1,2', grid: {}, out, maxTicks: 50, queue: 'redis://127.0.0.1:6390' })]);
    expect(stdout.join('')).toMatch(/ran 2 episodes/);

    const missing = fakeIo();
    const failed = async (): Promise<QueueModule> => {
      throw new Error("Cannot find package 'bullmq'");
    };
    expect(
      await sweepCommand(['village', '--seeds', '1', '--out', out, '--queue', 'redis://127.0.0.1:6390'], missing.io, { ...runtime, loadQueue: failed }),
    ).toBe(1);
    expect(missing.err.join('')).toMatch(/--queue needs the optional dependencies bullmq and ioredis .*Cannot find package 'bullmq'/);
    expect(await sweepCommand(['village', '--seeds', '1', '--out', out, '--queue', 'redis://h:1', '--workers', '2'], fakeIo().io, runtime)).toBe(2);
  });

  it('exits 130 on Ctrl-C with the missing episodes left for --resume', async () => {
    const controller = new AbortController();
    controller.abort();
    const { io, out, err } = fakeIo();
    expect(await sweepCommand(['village', '--seeds', '1..3', '--out', join(tempFolder(), 'r.jsonl')], io, { signal: controller.signal })).toBe(130);
    expect(out.join('')).toMatch(/^ran 0 episodes, 0 already in the results file; 0 of 3 in /);
    expect(err.join('')).toMatch(/stopped with 3 episodes missing; run the same command with --resume to finish/);
  });
});
