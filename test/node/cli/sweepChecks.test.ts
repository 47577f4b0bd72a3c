// `aicc sweep` checks everything a user typed before the first episode, and before it creates or
// cuts any file (#25.10): param values the world's setup refuses, seeds in either option form, seeds
// past 2^53, a results file that cannot be written. And it plans lazily: a million seeds cost no
// more than ten before the first episode. In-process, with no worker thread: every case here ends
// before the sweep would start one.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sweepCommand } from '../../../src/node/cli/sweepCommand.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});
function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'aicc-sweep-checks-'));
  folders.push(folder);
  return folder;
}

function fakeIo(isTTY = false, onErr: (text: string) => void = () => {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { isTTY, columns: 120, write: (text: string) => (err.push(text), onErr(text)) },
  };
  return { out, err, io };
}

/** A sweep stopped before it starts: whatever it does before its first episode, and no thread. */
const stopped = (): { signal: AbortSignal } => {
  const controller = new AbortController();
  controller.abort();
  return { signal: controller.signal };
};

async function usage(argv: string[]): Promise<string> {
  const { io, out, err } = fakeIo();
  const code = await sweepCommand(argv, io, stopped());
  expect(code, argv.join(' ')).toBe(2);
  expect(out).toEqual([]);
  expect(err.join('')).toMatch(/^aicc sweep: .*; run `aicc sweep --help`\n$/);
  return err.join('');
}

describe('aicc sweep checks its input before the first episode', () => {
  it('refuses a --param value the world refuses, naming it and the world’s reason, and creates no results file', async () => {
    const out = join(tempFolder(), 'r.jsonl');
    const message = await usage(['village', '--seeds', '1..3', '--param', 'apples=1,99', '--out', out]);
    expect(message).toMatch(/the world "village" refuses apples=99 \(its setup with seed 1 threw: village: apples must be from 0 to 3, got 99\)/);
    expect(message).toMatch(/change or drop the value it refuses \(--param apples=…\)/);
    expect(message).not.toMatch(/job village\//); // no internal job key
    expect(existsSync(out)).toBe(false);
  });

  it('leaves a results file it is told to resume untouched, torn last line and all, when a value is refused', async () => {
    const out = join(tempFolder(), 'r.jsonl');
    const text = '{"world":"village","seed":1,"params":{"apples":3,"dayTicks":600}}\n{"world":"vill';
    writeFileSync(out, text);
    await usage(['village', '--seeds', '1..3', '--param', 'apples=99', '--out', out, '--resume']);
    expect(readFileSync(out, 'utf8')).toBe(text);
  });

  it('reads --seeds -5..3 as --seeds=-5..3: negative seeds are seeds', async () => {
    const outputs = [];
    for (const seeds of [['--seeds', '-5..3'], ['--seeds=-5..3']]) {
      const folder = tempFolder();
      const { io, out, err } = fakeIo();
      expect(await sweepCommand(['village', ...seeds, '--out', join(folder, 'r.jsonl')], io, stopped()), seeds.join(' ')).toBe(130);
      expect(out.join('')).toMatch(/^ran 0 episodes, 0 already in the results file; 0 of 9 in /);
      expect(err.join('')).toMatch(/stopped with 9 episodes missing/);
      outputs.push(out.join('').replace(folder, 'FOLDER'));
    }
    expect(outputs[0]).toBe(outputs[1]);
  });

  it('refuses seeds past 2^53 - 1, where numbers skip and collide, instead of crashing', async () => {
    const out = join(tempFolder(), 'r.jsonl');
    expect(await usage(['village', '--seeds', '9007199254740993..9007199254740995', '--out', out])).toMatch(
      /--seeds names 9007199254740993, beyond the largest seed 9007199254740991 \(2\^53 - 1\)/,
    );
    expect(await usage(['village', '--seeds', '1,9007199254740992', '--out', out])).toMatch(/--seeds names 9007199254740992, beyond the largest seed/);
    expect(await usage(['village', '--seeds=-9007199254740992..0', '--out', out])).toMatch(/--seeds names -9007199254740992, beyond the smallest seed/);
    expect(existsSync(out)).toBe(false);
  });

  it('names --seeds in every complaint about seeds', async () => {
    const out = join(tempFolder(), 'r.jsonl');
    const cases: Array<[string, RegExp]> = [
      ['1-5', /--seeds takes whole numbers and upward ranges, like 1\.\.200, 1,5,9 or 1\.\.10,20; got "1-5"/],
      ['5..1', /--seeds has the range 5\.\.1, which goes downwards; write 1\.\.5/],
      ['1..10,5', /--seeds lists seed 5 twice \(in 1\.\.10 and in 5\); list each seed once/],
      ['1..3,2..4', /--seeds lists seed 2 twice \(in 1\.\.3 and in 2\.\.4\)/],
      ['1..600000,700000..1300000', /--seeds names 1200001 seeds, more than the 1000000 one sweep may run; split it into several sweeps/],
      ['', /--seeds takes whole numbers and upward ranges.*; got ""/],
    ];
    for (const [seeds, message] of cases) expect(await usage(['village', `--seeds=${seeds}`, '--out', out]), seeds).toMatch(message);
  });

  it('refuses a results file it could never write, before any episode', async () => {
    const folder = tempFolder();
    writeFileSync(join(folder, 'file'), '');
    mkdirSync(join(folder, 'dir'));
    expect(await usage(['village', '--seeds', '1', '--out', join(folder, 'dir')])).toMatch(
      /\(--out\) .*dir is a folder; name a file in it, like .*dir\/results\.jsonl/,
    );
    expect(await usage(['village', '--seeds', '1', '--out', join(folder, 'file', 'r.jsonl')])).toMatch(
      /\(--out\) .*file\/r\.jsonl cannot be made: .*file is a file, not a folder/,
    );
  });

  it('plans a million seeds lazily: the first report comes at once, with little memory', async () => {
    const out = join(tempFolder(), 'r.jsonl');
    const controller = new AbortController();
    const started = performance.now();
    const heapBefore = process.memoryUsage().heapUsed;
    let first: { ms: number; heapMb: number } | undefined;
    // On a terminal the bar is drawn at the first report, which comes before the first episode.
    const { io, out: stdout } = fakeIo(true, (text) => {
      if (first === undefined && text.includes('0/1000000')) {
        first = { ms: performance.now() - started, heapMb: (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20 };
        controller.abort();
      }
    });
    expect(await sweepCommand(['village', '--seeds', '1..1000000', '--out', out], io, { signal: controller.signal })).toBe(130);
    expect(first).toBeDefined();
    expect(first!.heapMb).toBeLessThan(32);
    expect(first!.ms).toBeLessThan(2000);
    expect(stdout.join('')).toMatch(/0 of 1000000 in /);
  }, 60_000);
});
