import { describe, expect, it } from 'vitest';
import { progressBar, type ProgressStream } from '../../../src/node/cli/progress.js';

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

function ttyStream(): ProgressStream & { lines: string[] } {
  const lines: string[] = [];
  return { isTTY: true, columns: 100, lines, write: (text: string) => lines.push(text.replace('\r\x1b[2K', '')) };
}

describe('progressBar with eta', () => {
  it('shows the time left at the rate so far, in s, m and h', () => {
    const stream = ttyStream();
    let time = 0;
    const bar = progressBar(stream, { now: () => time, eta: true });
    time = 2000;
    bar(10, 40); // 5/s, 30 left
    time = 10_000;
    bar(50, 30_050); // 5/s, 30000 left = 6000 s
    time = 20_000;
    bar(100, 1100); // 5/s, 1000 left = 200 s
    expect(stream.lines.map((line) => line.slice(line.indexOf('%') + 1).trim())).toEqual([
      '10/40  5/s  ETA 6s',
      '50/30050  5/s  ETA 1h40m',
      '100/1100  5/s  ETA 3m20s',
    ]);
  });

  it('leaves the episodes done before this run out of the rate (a resumed sweep)', () => {
    const stream = ttyStream();
    let time = 0;
    const bar = progressBar(stream, { now: () => time, eta: true, baseline: 90 });
    bar(90, 100);
    time = 1000;
    bar(92, 100); // 2/s this run, 8 left
    expect(stream.lines.map((line) => line.slice(line.indexOf('%') + 1).trim())).toEqual(['90/100', '92/100  2/s  ETA 4s']);
  });

  it('has no ETA when done, nor before anything ran, nor unless asked', () => {
    const stream = ttyStream();
    let time = 0;
    const bar = progressBar(stream, { now: () => time, eta: true });
    time = 1000;
    bar(0, 10);
    bar(10, 10);
    const plain = ttyStream();
    progressBar(plain, { now: () => time })(5, 10);
    expect([...stream.lines, ...plain.lines].some((line) => line.includes('ETA'))).toBe(false);
  });
});
