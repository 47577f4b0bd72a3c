// `aicc demo`: what its JSON carries, how its summary says why the day ended, and Ctrl-C, which
// ends the day early with the story and the summary still printed, and exit code 130.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../../src/node/cli/main.js';
import { main } from '../../../src/node/cli/main.js';
import { demoCommand, INTERRUPTED_EXIT_CODE } from '../../../src/node/cli/demoCommand.js';

const CLI = fileURLToPath(new URL('../../../dist/cli.js', import.meta.url));
const FAKE_PI = fileURLToPath(new URL('../gateway/fakePi.mjs', import.meta.url));

interface Output {
  code: number;
  out: string;
  err: string;
}

function io(stdin?: AsyncIterable<string>, onWrite?: (text: string) => void): { io: CliIo; output: () => Omit<Output, 'code'> } {
  let out = '';
  let err = '';
  return {
    io: {
      stdout: { write: (t: string) => ((out += t), onWrite?.(t)) },
      stderr: { write: (t: string) => (err += t) },
      ...(stdin && { stdin }),
    },
    output: () => ({ out, err }),
  };
}

async function demo(argv: string[], lines?: string[]): Promise<Output> {
  const cli = io(
    lines &&
      (async function* () {
        yield* lines;
      })(),
  );
  const code = await main(['demo', ...argv], cli.io);
  return { code, ...cli.output() };
}

/** Standard input that is open and silent: a player who has not typed anything yet. */
const silentInput: AsyncIterable<string> = {
  [Symbol.asyncIterator]: () => ({
    next: () => new Promise<IteratorResult<string>>(() => {}),
    return: async () => ({ done: true as const, value: undefined }),
  }),
};

describe('aicc demo --json', () => {
  it('carries the seed, the ticks run, the most ticks and why the day stopped', async () => {
    const { code, out } = await demo(['--json']);
    expect(code).toBe(0);
    const json = JSON.parse(out);
    expect(Object.keys(json)).toEqual(['seed', 'ticks', 'maxTicks', 'stop', 'story', 'summary', 'wall']);
    expect(json).toMatchObject({ seed: 7, maxTicks: 600, stop: 'goals_met' });
    expect(json.ticks).toBeGreaterThan(0);
    expect(json.ticks).toBeLessThan(600);
    // The same day, told as text, says the same.
    const text = await demo([]);
    expect(text.out).toContain(`\nticks: ${json.ticks} (every villager met its goal)\n`);
  });

  it('says the ticks ran out when they did', async () => {
    const json = JSON.parse((await demo(['--json', '--seed', '3', '--ticks', '40'])).out);
    expect(json).toMatchObject({ seed: 3, ticks: 40, maxTicks: 40, stop: 'tick_limit' });
    expect((await demo(['--seed', '3', '--ticks', '40'])).out).toContain('\nticks: 40 (out of ticks)\n');
  });
});

describe('aicc demo --play', () => {
  it('says the player quit when the player quits', async () => {
    const { code, out } = await demo(['--play', 'cleo'], ['look', 'quit']);
    expect(code).toBe(0);
    expect(out).toMatch(/\nticks: \d+ \(the player quit\)\n/);
    expect(out).not.toContain('condition');
    // The story ends where the player left it, not with an evening that never came.
    const ticks = /\nticks: (\d+) /.exec(out)![1];
    expect(out).toContain(`The player quits at tick ${ticks}; the day ends there.\n`);
    expect(out).not.toContain('Evening falls');
  });

  it("says the player's input ended when it does", async () => {
    const { out } = await demo(['--play', 'ada'], ['wait']);
    expect(out).toMatch(/\nticks: \d+ \(the player's input ended\)\n/);
    expect(out).toMatch(/The player's input runs out at tick \d+; the day ends there\.\n/);
  });
});

describe('aicc demo, interrupted', () => {
  it('ends a --play day waiting for the player, prints the story and the summary, and exits 130', async () => {
    const stop = new AbortController();
    // The first prompt: the day has begun and waits for the player.
    const cli = io(silentInput, (text) => text === '> ' && stop.abort());
    const code = await demoCommand(['--play', 'cleo'], cli.io, { signal: stop.signal });
    expect(code).toBe(INTERRUPTED_EXIT_CODE);
    expect(INTERRUPTED_EXIT_CODE).toBe(130);
    const { out, err } = cli.output();
    expect(err).toBe('');
    expect(out).toContain('The day in Millbrook, as it happened:');
    expect(out).toMatch(/\nticks: 1 \(interrupted\)\ncalls: \d+/);
    expect(out).toContain('The day is interrupted at tick 1.\n');
  });

  it('prints the --json output of a day interrupted before its first tick was out', async () => {
    const cli = io();
    const code = await demoCommand(['--json', '--seed', '5'], cli.io, { signal: AbortSignal.abort() });
    expect(code).toBe(130);
    expect(JSON.parse(cli.output().out)).toMatchObject({ seed: 5, ticks: 1, maxTicks: 600, stop: 'interrupted' });
  });
});

describe('the built `aicc demo` and SIGINT', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aicc-demo-sigint-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The built command in a process of its own; `ready` says when to send SIGINT. */
  function spawnDemo(argv: string[], ready: (stdout: string) => boolean, env: NodeJS.ProcessEnv = {}): Promise<Output> {
    expect(existsSync(CLI), 'dist/cli.js: run `npm run build` first').toBe(true);
    const child = spawn(process.execPath, [CLI, 'demo', ...argv], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    let sent = false;
    const check = (): void => {
      if (!sent && ready(out)) {
        sent = true;
        child.kill('SIGINT');
      }
    };
    child.stdout.on('data', (chunk: Buffer) => ((out += chunk.toString('utf8')), check()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    // For a ready() that looks elsewhere than stdout (a file another process writes).
    const poll = setInterval(check, 25);
    return new Promise((resolve) =>
      child.once('close', (code, signal) => {
        clearInterval(poll);
        resolve({ code: code ?? (signal === null ? -1 : -2), out, err });
      }),
    );
  }

  it('ends a --play day on Ctrl-C with the summary, and exits 130', async () => {
    const { code, out, err } = await spawnDemo(['--play', 'bram'], (stdout) => stdout.endsWith('> '));
    expect(err).toBe('');
    expect(code).toBe(130);
    expect(out).toContain('The day in Millbrook, as it happened:');
    expect(out).toMatch(/\nticks: \d+ \(interrupted\)\n/);
    expect(out).toMatch(/-- wall time \(varies run to run\) --\nwall: .*\n$/);
  }, 30_000);

  it('prints the --json output of a real-time day (pi driving Cleo) on Ctrl-C, and exits 130', async () => {
    const log = join(dir, 'pi.log');
    // Ready once pi has been briefed: the day is under way, one tick per 100 ms, for hours.
    const briefed = (): boolean => existsSync(log) && readFileSync(log, 'utf8').includes('"type":"prompt"');
    const { code, out, err } = await spawnDemo(['--json', '--agent', 'pi', '--pi-bin', FAKE_PI, '--ticks', '100000'], briefed, { FAKE_PI_LOG: log });
    expect(err).toBe('');
    expect(code).toBe(130);
    const json = JSON.parse(out);
    expect(json).toMatchObject({ seed: 7, maxTicks: 100000, stop: 'interrupted' });
    expect(json.ticks).toBeLessThan(100000);
    expect(json.story[0]).toMatch(/Morning in Millbrook/);
  }, 60_000);
});
