import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, isManualClock, realClock } from '../../src/base/clock.js';

describe('ManualClock', () => {
  it('starts at the given time, 0 by default', () => {
    expect(new ManualClock().now()).toBe(0);
    expect(new ManualClock(1234).now()).toBe(1234);
  });

  it('fires timers in order of due time, whatever order they were set in', () => {
    const clock = new ManualClock();
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('c@30'), 30);
    clock.setTimeout(() => fired.push('a@10'), 10);
    clock.setTimeout(() => fired.push('b@20'), 20);
    clock.advance(100);
    expect(fired).toEqual(['a@10', 'b@20', 'c@30']);
  });

  it('fires timers due at the same time in the order they were set', () => {
    const clock = new ManualClock();
    const fired: number[] = [];
    for (let i = 1; i <= 5; i++) clock.setTimeout(() => fired.push(i), 50);
    clock.setTimeout(() => fired.push(0), 40);
    clock.advance(50);
    expect(fired).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('shows each timer its own due time as now() while it fires', () => {
    const clock = new ManualClock(1000);
    const seen: number[] = [];
    clock.setTimeout(() => seen.push(clock.now()), 25);
    clock.setTimeout(() => seen.push(clock.now()), 70);
    clock.advance(100);
    expect(seen).toEqual([1025, 1070]);
    expect(clock.now()).toBe(1100);
  });

  it('fires a timer exactly when its due time is reached, not before', () => {
    const clock = new ManualClock();
    let fired = 0;
    clock.setTimeout(() => fired++, 100);
    clock.advance(99);
    expect(fired).toBe(0);
    clock.advance(1);
    expect(fired).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('treats a negative delay as 0: the timer fires on the next advance, even advance(0)', () => {
    const clock = new ManualClock(10);
    const seen: number[] = [];
    clock.setTimeout(() => seen.push(clock.now()), -50);
    clock.advance(0);
    expect(seen).toEqual([10]);
  });

  it('treats a NaN delay as 0, as platform timers do, without disturbing the other timers', () => {
    const clock = new ManualClock();
    const fired: string[] = [];
    clock.setTimeout(() => fired.push(`a@${clock.now()}`), 10);
    clock.setTimeout(() => fired.push(`nan@${clock.now()}`), Number.NaN);
    clock.setTimeout(() => fired.push(`b@${clock.now()}`), 5);
    clock.advance(7);
    expect(fired).toEqual(['nan@0', 'b@5']);
    clock.advance(10);
    expect(fired).toEqual(['nan@0', 'b@5', 'a@10']);
  });

  it('moves now by the advanced amount when no timers are waiting', () => {
    const clock = new ManualClock(5);
    clock.advance(10);
    expect(clock.now()).toBe(15);
    clock.advance(0);
    expect(clock.now()).toBe(15);
    clock.advance(2.5);
    expect(clock.now()).toBe(17.5);
  });

  it('also fires timers set by a firing timer that fall due within the same advance', () => {
    const clock = new ManualClock();
    const fired: Array<[string, number]> = [];
    clock.setTimeout(() => {
      fired.push(['first', clock.now()]);
      clock.setTimeout(() => {
        fired.push(['second', clock.now()]);
        clock.setTimeout(() => fired.push(['third', clock.now()]), 40);
      }, 30);
    }, 10);
    clock.advance(60);
    expect(fired).toEqual([
      ['first', 10],
      ['second', 40],
    ]);
    expect(clock.pendingTimers).toBe(1);
    expect(clock.now()).toBe(60);
    clock.advance(20);
    expect(fired.at(-1)).toEqual(['third', 80]);
  });

  it('runs a timer set for 0 ms by a firing timer after the timers already due at that time', () => {
    const clock = new ManualClock();
    const fired: string[] = [];
    clock.setTimeout(() => {
      fired.push('a');
      clock.setTimeout(() => fired.push('a-child'), 0);
    }, 10);
    clock.setTimeout(() => fired.push('b'), 10);
    clock.advance(10);
    expect(fired).toEqual(['a', 'b', 'a-child']);
  });

  it('never fires a cleared timer, and keeps the others', () => {
    const clock = new ManualClock();
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('kept'), 10);
    const id = clock.setTimeout(() => fired.push('cleared'), 20);
    clock.setTimeout(() => fired.push('kept too'), 30);
    clock.clearTimeout(id);
    expect(clock.pendingTimers).toBe(2);
    clock.advance(100);
    expect(fired).toEqual(['kept', 'kept too']);
  });

  it('lets a firing timer clear a later one due in the same advance', () => {
    const clock = new ManualClock();
    const fired: string[] = [];
    let later = 0;
    clock.setTimeout(() => {
      fired.push('first');
      clock.clearTimeout(later);
    }, 10);
    later = clock.setTimeout(() => fired.push('later'), 20);
    clock.advance(50);
    expect(fired).toEqual(['first']);
  });

  it('ignores clearTimeout for an unknown or already fired id', () => {
    const clock = new ManualClock();
    const id = clock.setTimeout(() => {}, 1);
    clock.advance(1);
    expect(() => clock.clearTimeout(id)).not.toThrow();
    expect(() => clock.clearTimeout(9999)).not.toThrow();
    expect(clock.pendingTimers).toBe(0);
  });

  it('gives every timer a distinct id', () => {
    const clock = new ManualClock();
    const ids = new Set(Array.from({ length: 100 }, () => clock.setTimeout(() => {}, 5)));
    expect(ids.size).toBe(100);
  });

  it.each([-1, -0.001, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])('advance(%s) throws a RangeError and leaves time alone', (ms) => {
    const clock = new ManualClock(7);
    let fired = 0;
    clock.setTimeout(() => fired++, 0);
    expect(() => clock.advance(ms)).toThrow(RangeError);
    expect(() => clock.advance(ms)).toThrow(`ManualClock.advance: expected a finite number >= 0, got ${ms}`);
    expect(clock.now()).toBe(7);
    expect(fired).toBe(0);
  });

  it('is recognised by isManualClock, and a real clock is not', () => {
    expect(isManualClock(new ManualClock())).toBe(true);
    expect(isManualClock(realClock())).toBe(false);
  });
});

describe('realClock', () => {
  const pending: Array<() => void> = [];
  afterEach(() => {
    for (const cancel of pending.splice(0)) cancel();
  });

  it('reads a monotonic time that does not go backwards', () => {
    const clock = realClock();
    const a = clock.now();
    const b = clock.now();
    expect(typeof a).toBe('number');
    expect(b).toBeGreaterThanOrEqual(a);
  });

  it('fires a 0 ms timer', async () => {
    const clock = realClock();
    const fired = await new Promise<boolean>((resolve) => {
      const guard = setTimeout(() => resolve(false), 1000);
      pending.push(() => clearTimeout(guard));
      clock.setTimeout(() => resolve(true), 0);
    });
    expect(fired).toBe(true);
  });

  it('does not fire a timer that was cleared', async () => {
    const clock = realClock();
    let fired = false;
    const id = clock.setTimeout(() => (fired = true), 0);
    clock.clearTimeout(id);
    // Timers of one delay fire in the order they were set: the cleared one's turn has come and gone.
    await new Promise<void>((resolve) => clock.setTimeout(resolve, 0));
    expect(fired).toBe(false);
  });

  it('clears only the timer it is asked to', async () => {
    const clock = realClock();
    const fired: string[] = [];
    const cleared = clock.setTimeout(() => fired.push('cleared'), 0);
    clock.setTimeout(() => fired.push('kept'), 0);
    clock.clearTimeout(cleared);
    await new Promise<void>((resolve) => clock.setTimeout(resolve, 0)); // set last, so it fires last
    expect(fired).toEqual(['kept']);
  });
});

describe('ManualClock against a simple model (property)', () => {
  it('fires exactly the live timers, in due order, first-set first among equals', async () => {
    const fc = await import('fast-check');
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), delay: fc.integer({ min: 0, max: 50 }) }),
      fc.record({ kind: fc.constant('clear' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 30 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const clock = new ManualClock();
        const model: Array<{ id: number; at: number }> = [];
        const fired: number[] = [];
        const expected: number[] = [];
        for (const o of ops) {
          if (o.kind === 'set') {
            const id = clock.setTimeout(() => fired.push(id), o.delay);
            model.push({ id, at: clock.now() + o.delay });
          } else if (o.kind === 'clear' && model.length > 0) {
            const [gone] = model.splice(o.pick % model.length, 1);
            clock.clearTimeout(gone!.id);
          } else if (o.kind === 'advance') {
            const target = clock.now() + o.ms;
            const due = model.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.id - b.id);
            for (const t of due) model.splice(model.indexOf(t), 1);
            expected.push(...due.map((t) => t.id));
            clock.advance(o.ms);
          }
        }
        expect(fired).toEqual(expected);
        expect(clock.pendingTimers).toBe(model.length);
      }),
      { numRuns: 300, seed: 7 },
    );
  });
});

describe('capsule.step and the clock', () => {
  it('moves any clock that has advance (not only a ManualClock), and never wall time', async () => {
    const { createCapsule } = await import('../../src/runtime/capsule.js');
    const { ajvValidators } = await import('../../src/validators/ajv.js');
    const inner = new ManualClock();
    const moved: number[] = [];
    // A simulation's own clock: the capsule knows it only by the Clock interface.
    const clock = {
      now: () => inner.now(),
      setTimeout: inner.setTimeout.bind(inner),
      clearTimeout: inner.clearTimeout.bind(inner),
      advance: (ms: number) => (moved.push(ms), inner.advance(ms)),
    };
    const capsule = createCapsule({ world: { name: 'w', kind: 'abstract' }, validators: ajvValidators(), clock, tickRateHz: 10 });
    capsule.step(250);
    expect([capsule.tick, clock.now(), moved.reduce((a, b) => a + b, 0)]).toEqual([2, 250, 250]);
    capsule.dispose();
  });
});

describe('realClock and the Node process', () => {
  it('does not let an upkeep timer (background) keep Node alive, and keeps it alive for one that is not', async () => {
    const { spawnSync } = await import('node:child_process');
    const { buildSync } = await import('esbuild');
    const source = buildSync({ entryPoints: [new URL('../../src/base/clock.ts', import.meta.url).pathname], bundle: true, format: 'esm', write: false })
      .outputFiles[0]!.text;
    const run = (background: boolean) =>
      spawnSync(
        process.execPath,
        ['--input-type=module', '-e', `${source}\nrealClock().setTimeout(() => console.log('fired'), 300, { background: ${background} });`],
        { encoding: 'utf8', timeout: 10_000 },
      );
    const upkeep = run(true);
    const work = run(false);
    expect([upkeep.status, upkeep.stdout]).toEqual([0, '']); // the process ended before the timer
    expect([work.status, work.stdout]).toEqual([0, 'fired\n']);
  });
});
