import { describe, expect, it } from 'vitest';
import { progressBar, type ProgressStream } from '../../src/node/progress.js';

function fakeStream(isTTY: boolean, columns?: number): ProgressStream & { written: string[] } {
  const written: string[] = [];
  return { isTTY, ...(columns === undefined ? {} : { columns }), written, write: (text: string) => written.push(text) };
}

const CLEAR = '\r\x1b[2K';

describe('progressBar', () => {
  it('draws a one-line bar with percentage, count and rate on a TTY', () => {
    const stream = fakeStream(true, 80);
    let time = 0;
    const bar = progressBar(stream, { now: () => time });
    time = 2000;
    bar(500, 1000);
    expect(stream.written).toEqual([`${CLEAR}[${'#'.repeat(15)}${'-'.repeat(15)}]  50%  500/1000  250/s`]);
    time = 4000;
    bar(1000, 1000);
    expect(stream.written[1]).toBe(`${CLEAR}[${'#'.repeat(30)}] 100%  1000/1000  250/s`);
  });

  it('clears its line on finish, and only if it drew one', () => {
    const stream = fakeStream(true);
    const bar = progressBar(stream, { now: () => 0 });
    bar.finish();
    expect(stream.written).toEqual([]);
    bar(1, 2);
    bar.finish();
    expect(stream.written.at(-1)).toBe(CLEAR);
    expect(stream.written).toHaveLength(2);
  });

  it('leaves out the rate before any time has passed, and fits a narrow terminal', () => {
    const stream = fakeStream(true, 30);
    const bar = progressBar(stream, { now: () => 0 });
    bar(1, 4);
    const line = stream.written[0]!.slice(CLEAR.length);
    expect(line.endsWith(' 25%  1/4')).toBe(true);
    expect(line.length).toBeLessThan(30);
  });

  it('does nothing when the stream is not a terminal (a log, a pipe, CI)', () => {
    for (const stream of [fakeStream(false), { write: () => expect.unreachable('no TTY, no writes') } as ProgressStream]) {
      const bar = progressBar(stream);
      bar(1, 10);
      bar(10, 10);
      bar.finish();
    }
    const plain = fakeStream(false);
    progressBar(plain)(5, 10);
    expect(plain.written).toEqual([]);
  });

  it('copes with a total of zero and with done past the total', () => {
    const stream = fakeStream(true, 80);
    const bar = progressBar(stream, { now: () => 0 });
    bar(0, 0);
    bar(12, 10);
    expect(stream.written.map((line) => line.includes('100%'))).toEqual([true, true]);
  });
});
