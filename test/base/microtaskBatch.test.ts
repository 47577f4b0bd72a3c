import { describe, expect, it } from 'vitest';
import { microtaskBatch, runAround, soon } from '../../src/base/microtaskBatch.js';

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('soon', () => {
  it('runs tasks after the current work, in the order asked', async () => {
    const ran: string[] = [];
    soon(() => ran.push('a'));
    soon(() => ran.push('b'));
    ran.push('sync');
    await turn();
    expect(ran).toEqual(['sync', 'a', 'b']);
  });

  it('runs a task asked for during a batch after the promise jobs the batch queued, as its own microtask would', async () => {
    const ran: string[] = [];
    soon(() => {
      ran.push('first');
      void Promise.resolve().then(() => ran.push('promise job'));
      soon(() => ran.push('asked during the batch'));
    });
    await turn();
    expect(ran).toEqual(['first', 'promise job', 'asked during the batch']);
  });

  it('runs every task of a batch when one throws, and reports the error on its own', async () => {
    const ran: string[] = [];
    const reported: unknown[] = [];
    const listener = (error: unknown): void => void reported.push(error);
    const previous = process.listeners('uncaughtException');
    process.removeAllListeners('uncaughtException');
    process.on('uncaughtException', listener);
    try {
      soon(() => {
        throw new Error('task failed');
      });
      soon(() => ran.push('after the failure'));
      await turn();
    } finally {
      process.off('uncaughtException', listener);
      for (const handler of previous) process.on('uncaughtException', handler);
    }
    expect(ran).toEqual(['after the failure']);
    expect(reported).toEqual([new Error('task failed')]);
  });
});

describe('microtaskBatch', () => {
  it('runs each batch inside `around`, once', async () => {
    const log: string[] = [];
    const add = microtaskBatch((run) => {
      log.push('before');
      run();
      log.push('after');
    });
    add(() => log.push('a'));
    add(() => log.push('b'));
    await turn();
    expect(log).toEqual(['before', 'a', 'b', 'after']);
  });

  it('still runs the tasks when `around` forgets to call run', async () => {
    const ran: string[] = [];
    const add = microtaskBatch(() => {});
    add(() => ran.push('a'));
    await turn();
    expect(ran).toEqual(['a']);
  });
});

describe('runAround', () => {
  it('runs the work inside `around`', () => {
    const log: string[] = [];
    runAround(
      (work) => {
        log.push('before');
        work();
        log.push('after');
      },
      () => log.push('work'),
    );
    expect(log).toEqual(['before', 'work', 'after']);
  });

  it('runs the work once, right after, when `around` forgets it or throws before it', () => {
    const ran: string[] = [];
    runAround(
      () => {},
      () => ran.push('forgotten'),
    );
    expect(() =>
      runAround(
        () => {
          throw new Error('timer broke');
        },
        () => ran.push('after a throw'),
      ),
    ).toThrow('timer broke');
    expect(ran).toEqual(['forgotten', 'after a throw']);
  });

  it('runs the work once when `around` calls it twice', () => {
    let runs = 0;
    runAround(
      (work) => {
        work();
        work();
      },
      () => runs++,
    );
    expect(runs).toBe(1);
  });
});
