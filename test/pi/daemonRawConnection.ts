// A raw NDJSON connection to a pi-daemon socket — the real daemon's or the simulator's — for tests
// that look at the records themselves, and send what DaemonClient never would (a bad line, a reused
// requestId). Every wait is bounded and names what it waited for.

import { createConnection, type Socket } from 'node:net';

export type RawRecord = Record<string, unknown> & { kind?: string; requestId?: string; event?: string; sequence?: number };

export class RawDaemonConnection {
  /** Every record received, in order. */
  readonly records: RawRecord[] = [];
  closed = false;
  private pending = '';
  private readonly waiters = new Set<() => void>();
  /** Responses already returned by `answer`: a requestId answered twice (a refusal, then the answer) is read in order. */
  private readonly taken = new Set<RawRecord>();

  private constructor(private readonly socket: Socket) {
    // Decoded across chunks: a character split between two would otherwise read as two replacements.
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.pending += chunk;
      let at: number;
      while ((at = this.pending.indexOf('\n')) >= 0) {
        const line = this.pending.slice(0, at);
        this.pending = this.pending.slice(at + 1);
        this.records.push(JSON.parse(line) as RawRecord);
      }
      this.wake();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  static open(path: string): Promise<RawDaemonConnection> {
    return new Promise((resolve, reject) => {
      const socket = createConnection({ path });
      socket.once('connect', () => {
        socket.removeListener('error', reject);
        resolve(new RawDaemonConnection(socket));
      });
      socket.once('error', reject);
    });
  }

  /** Writes one line as given (a newline is added). */
  writeLine(line: string): void {
    this.socket.write(`${line}\n`);
  }

  write(record: Record<string, unknown>): void {
    this.writeLine(JSON.stringify(record));
  }

  /** The next response to `requestId` not returned before. */
  answer(requestId: string, timeoutMs = 20_000): Promise<RawRecord> {
    return this.until(
      `an answer to ${requestId}`,
      timeoutMs,
      () => this.records.find((r) => r.kind === 'response' && r.requestId === requestId && !this.taken.has(r)),
      (found) => this.taken.add(found),
    );
  }

  /** The first response of the connection (to a line whose requestId the host could not read, say). */
  firstResponse(timeoutMs = 20_000): Promise<RawRecord> {
    return this.until('a response', timeoutMs, () => this.records.find((r) => r.kind === 'response'));
  }

  /** The first event (at or after index `from` of `records`) that `match` takes. */
  event(what: string, match: (event: RawRecord) => boolean, from = 0, timeoutMs = 20_000): Promise<RawRecord> {
    return this.until(what, timeoutMs, () => this.records.slice(from).find((r) => r.kind === 'event' && match(r)));
  }

  /** Resolves with true once the connection is closed, or false once `requestId` is answered (it is open). */
  async closedOrAnswered(requestId: string, timeoutMs = 20_000): Promise<boolean> {
    await this.until(`the close of the connection, or an answer to ${requestId}`, timeoutMs, () =>
      this.closed || this.records.some((r) => r.requestId === requestId) ? true : undefined,
    );
    return this.closed;
  }

  close(): void {
    this.socket.destroy();
  }

  private until<T>(what: string, timeoutMs: number, find: () => T | undefined, found?: (value: T) => void): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const value = find();
        if (value === undefined) return false;
        clearTimeout(timer);
        this.waiters.delete(check as () => void);
        found?.(value);
        resolve(value);
        return true;
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check as () => void);
        reject(
          new Error(
            `RawDaemonConnection: no ${what} within ${timeoutMs} ms (closed: ${this.closed}; last records: ${JSON.stringify(this.records.slice(-3)).slice(0, 600)})`,
          ),
        );
      }, timeoutMs);
      if (!check()) this.waiters.add(check as () => void);
    });
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
