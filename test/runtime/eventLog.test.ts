// The event log's readers: a list kept in the readers themselves. A reader that goes away while the
// log polls them (a session a listener closes during a delivery) must not cut the walk short, and a
// reader that joins meanwhile is polled too — as a Set's iteration would have it.

import { describe, expect, it } from 'vitest';
import { EventLog, type LogReader } from '../../src/runtime/eventLog.js';

function reader(name: string, polled: string[], onPoll?: () => void): LogReader {
  return {
    cursor: 0,
    catchUp: () => {},
    poll: () => {
      polled.push(name);
      onPoll?.();
    },
    previousReader: undefined,
    nextReader: undefined,
  };
}

describe('EventLog readers', () => {
  it('polls every reader in the order they came, and none that left', () => {
    const log = new EventLog(16);
    const polled: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((name) => reader(name, polled));
    for (const r of [a!, b!, c!]) log.addReader(r);
    log.removeReader(b!);
    log.removeReader(b!); // twice: nothing more
    log.pollReaders();
    expect(polled).toEqual(['a', 'c']);
    log.removeReader(a!);
    log.removeReader(c!);
    polled.length = 0;
    log.pollReaders();
    expect(polled).toEqual([]);
  });

  it('goes on past readers removed while it polls, and polls one added meanwhile', () => {
    const log = new EventLog(16);
    const polled: string[] = [];
    const late = reader('late', polled);
    const readers: LogReader[] = [];
    // b's poll removes itself and c (closed by a listener), and adds a new reader.
    readers.push(reader('a', polled));
    readers.push(
      reader('b', polled, () => {
        log.removeReader(readers[1]!);
        log.removeReader(readers[2]!);
        log.addReader(late);
      }),
    );
    readers.push(reader('c', polled));
    readers.push(reader('d', polled));
    for (const r of readers) log.addReader(r);
    log.pollReaders();
    expect(polled).toEqual(['a', 'b', 'd', 'late']);
    polled.length = 0;
    log.pollReaders();
    expect(polled).toEqual(['a', 'd', 'late']);
  });
});
