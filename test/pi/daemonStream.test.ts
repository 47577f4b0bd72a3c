import { Worker } from 'node:worker_threads';
import { buildSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import type { DaemonEvent } from '../../src/pi/index.js';
import { EventStreams } from '../../src/pi/daemonStream.js';

const ev = (sequence: number, over: Partial<DaemonEvent> = {}): DaemonEvent => ({
  protocolVersion: '2.0',
  kind: 'event',
  event: 'messageUpdate',
  hostInstanceId: 'h1',
  sessionId: 's',
  generation: 1,
  sequence,
  ...over,
});

function streams(): EventStreams {
  const s = new EventStreams(2, 3);
  s.setHost('h1');
  s.begin({ sessionId: 's', generation: 1 }, 0);
  return s;
}

describe('EventStreams', () => {
  it('delivers events in sequence without a report', () => {
    const s = streams();
    expect([1, 2, 3].map((n) => s.accept(ev(n)))).toEqual([{ deliver: true }, { deliver: true }, { deliver: true }]);
  });

  it('reports a gap and delivers; a late event from the gap is delivered once, a repeat dropped', () => {
    const s = streams();
    s.accept(ev(1));
    expect(s.accept(ev(4))).toEqual({ deliver: true, report: { kind: 'gap', sessionId: 's', generation: 1, from: 2, to: 3 } });
    expect(s.accept(ev(3))).toEqual({ deliver: true, report: { kind: 'late', sessionId: 's', generation: 1, sequence: 3 } });
    expect(s.accept(ev(3))).toEqual({ deliver: false, report: { kind: 'duplicate', sessionId: 's', generation: 1, sequence: 3 } });
    expect(s.accept(ev(4))).toMatchObject({ deliver: false, report: { kind: 'duplicate', sequence: 4 } });
    expect(s.accept(ev(5))).toEqual({ deliver: true });
  });

  it('remembers only the newest missing sequences (bounded)', () => {
    const s = streams();
    s.accept(ev(100));
    expect(s.accept(ev(99)).report?.kind).toBe('late');
    expect(s.accept(ev(96)).report?.kind).toBe('duplicate');
  });

  it('drops events of another host, an older generation, or a session not attached', () => {
    const s = streams();
    expect(s.accept(ev(1, { hostInstanceId: 'h0' }))).toMatchObject({ deliver: false, report: { kind: 'stale', reason: 'host' } });
    expect(s.accept(ev(1, { sessionId: 'other' }))).toMatchObject({ deliver: false, report: { kind: 'stale', reason: 'unattached' } });
    s.begin({ sessionId: 's', generation: 2 }, 1);
    expect(s.accept(ev(2, { generation: 1 }))).toMatchObject({ deliver: false, report: { kind: 'stale', reason: 'generation' } });
    expect(s.accept(ev(2, { generation: 2 }))).toEqual({ deliver: true });
  });

  it('starts the numbering again when a higher generation shows up', () => {
    const s = streams();
    s.accept(ev(1));
    s.accept(ev(2));
    expect(s.accept(ev(1, { generation: 3 }))).toEqual({ deliver: true });
    expect(s.attached()).toEqual([{ sessionId: 's', generation: 3 }]);
  });

  it('starts again, at the same generation, after the incarnation ended: an evicted session reopened by anyone', () => {
    const s = streams();
    s.accept(ev(1, { event: 'opened' }));
    expect([2, 3].map((n) => s.accept(ev(n, { event: n === 2 ? 'sessionDormant' : 'sessionEvicted' })))).toEqual([{ deliver: true }, { deliver: true }]);
    // The successor numbers from 1 again; read by the last sequence alone, all of it would be duplicates.
    expect([1, 2, 3].map((n) => s.accept(ev(n, { event: n === 1 ? 'opened' : 'promptAccepted' })))).toEqual([
      { deliver: true },
      { deliver: true },
      { deliver: true },
    ]);
    expect(s.accept(ev(2))).toMatchObject({ deliver: false, report: { kind: 'duplicate', sequence: 2 } });
  });

  it('takes an opened at 1 as a new incarnation even when the end of the old one never came', () => {
    const s = streams();
    for (const n of [1, 2, 3]) s.accept(ev(n));
    expect(s.accept(ev(1, { event: 'opened' }))).toEqual({ deliver: true });
    expect(s.accept(ev(2))).toEqual({ deliver: true });
  });

  it('keeps an opened at 1 on a stream still at 1 a duplicate, and any other event at 1 on a live stream', () => {
    const s = streams();
    s.accept(ev(1, { event: 'opened' }));
    expect(s.accept(ev(1, { event: 'opened' }))).toMatchObject({ deliver: false, report: { kind: 'duplicate', sequence: 1 } });
    s.accept(ev(2));
    expect(s.accept(ev(1, { event: 'promptAccepted' }))).toMatchObject({ deliver: false, report: { kind: 'duplicate', sequence: 1 } });
  });

  it('after the end, delivers an event the host numbers 1 outside any incarnation, and the opened after it', () => {
    const s = streams();
    for (const [n, event] of [
      [1, 'opened'],
      [2, 'sessionDormant'],
      [3, 'sessionEvicted'],
    ] as const)
      s.accept(ev(n, { event }));
    // A dormant session deleted (close without retaining): numbered 1, no incarnation of its own.
    expect(s.accept(ev(1, { event: 'sessionDeleted' }))).toEqual({ deliver: true });
    expect(s.accept(ev(1, { event: 'opened' }))).toEqual({ deliver: true });
    expect(s.accept(ev(2))).toEqual({ deliver: true });
  });

  it('a new host ends every stream; streams are bounded in number', () => {
    const s = streams();
    expect(s.begin({ sessionId: 't', generation: 1 }, 0)).toBe(true);
    expect(s.begin({ sessionId: 'u', generation: 1 }, 0)).toBe(false);
    expect(s.begin({ sessionId: 's', generation: 2 }, 0)).toBe(true);
    s.setHost('h2');
    expect(s.attached()).toEqual([]);
    expect(s.accept(ev(1, { hostInstanceId: 'h2' }))).toMatchObject({ deliver: false, report: { reason: 'unattached' } });
  });

  // The schema admits any integer sequence. Past 2^53 `n + 1 === n`, so a gap counted one number
  // at a time never ends: the check runs in a worker, so that a frozen thread fails the test
  // instead of hanging the run.
  it('drops a sequence or generation above 2^53 − 1 at once, as invalid, and goes on', async () => {
    const bundled = buildSync({
      entryPoints: [new URL('../../src/pi/daemonStream.ts', import.meta.url).pathname],
      bundle: true,
      format: 'iife',
      globalName: 'daemonStream',
      write: false,
    });
    const source = `${bundled.outputFiles[0]!.text}
      const { parentPort } = require('node:worker_threads');
      {
        const { EventStreams } = daemonStream;
        const s = new EventStreams(2, 3);
        s.setHost('h1');
        s.begin({ sessionId: 's', generation: 1 }, 0);
        const ev = (sequence, generation = 1) => ({ protocolVersion: '2.0', kind: 'event', event: 'messageUpdate', hostInstanceId: 'h1', sessionId: 's', generation, sequence });
        parentPort.postMessage([s.accept(ev(2 ** 53 + 10)), s.accept(ev(1, 2 ** 60)), s.accept(ev(1)), s.accept(ev(Number.MAX_SAFE_INTEGER))]);
      }`;
    const worker = new Worker(source, { eval: true });
    try {
      const verdicts = await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('EventStreams.accept froze on a sequence above 2^53')), 5000);
        worker.once('message', (value) => (clearTimeout(timer), resolve(value)));
        worker.once('error', (error) => (clearTimeout(timer), reject(error)));
      });
      expect(verdicts).toEqual([
        { deliver: false, report: { kind: 'invalid', sessionId: 's', generation: 1, sequence: 2 ** 53 + 10 } },
        { deliver: false, report: { kind: 'invalid', sessionId: 's', generation: 2 ** 60, sequence: 1 } },
        { deliver: true },
        { deliver: true, report: { kind: 'gap', sessionId: 's', generation: 1, from: 2, to: Number.MAX_SAFE_INTEGER - 1 } },
      ]);
    } finally {
      await worker.terminate();
    }
  }, 10_000);
});
