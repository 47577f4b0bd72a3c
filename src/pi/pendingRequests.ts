// Requests waiting for their answers, keyed by id: bounded in number, each with a timeout on the
// injected clock that starts again whenever a record carrying its id shows progress. Part of the
// record clients' skeleton (recordClient.ts): each client supplies its answer type and its own
// typed errors.

import type { Clock, TimerId } from '../base/clock.js';

/** The errors a pending request fails with when no answer comes, or too many already wait. */
export interface PendingErrors<E> {
  timeout(id: string, command: string, timeoutMs: number): E;
  tooMany(id: string, command: string, max: number): E;
}

interface Entry<R, E> {
  command: string;
  timeoutMs: number;
  timer: TimerId;
  promise: Promise<R>;
  resolve(response: R): void;
  reject(error: E): void;
}

/** `R` is the answer (its `id` names the request it answers); `E` the error a request fails with. */
export class PendingRequests<R extends { id: string }, E> {
  private readonly entries = new Map<string, Entry<R, E>>();

  constructor(
    private readonly clock: Clock,
    /** Most requests waiting at once. */
    private readonly max: number,
    private readonly errors: PendingErrors<E>,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /**
   * Waits for the answer to `id`. `fresh` is false when a request with this id already waits: the
   * caller then shares its answer and must not send the record again (a retry racing the original).
   */
  add(id: string, command: string, timeoutMs: number): { promise: Promise<R>; fresh: boolean } {
    const existing = this.entries.get(id);
    if (existing !== undefined) return { promise: existing.promise, fresh: false };
    if (this.entries.size >= this.max) {
      return { promise: Promise.reject(this.errors.tooMany(id, command, this.max)), fresh: false };
    }
    let resolve!: (response: R) => void;
    let reject!: (error: E) => void;
    const promise = new Promise<R>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const entry: Entry<R, E> = { command, timeoutMs, timer: 0, promise, resolve, reject };
    entry.timer = this.arm(id, entry);
    this.entries.set(id, entry);
    return { promise, fresh: true };
  }

  /** A record carried this id without answering it: the request is alive, so its timeout restarts. */
  progress(id: string): boolean {
    const entry = this.entries.get(id);
    if (entry === undefined) return false;
    this.clock.clearTimeout(entry.timer);
    entry.timer = this.arm(id, entry);
    return true;
  }

  /** Hands `response` to the request it answers; false when none waits for it (a late answer). */
  settle(response: R): boolean {
    const entry = this.take(response.id);
    entry?.resolve(response);
    return entry !== undefined;
  }

  fail(id: string, error: E): boolean {
    const entry = this.take(id);
    entry?.reject(error);
    return entry !== undefined;
  }

  /** Fails every waiting request, each with its own error (which names its id). */
  failAll(errorFor: (id: string, command: string) => E): void {
    const entries = [...this.entries];
    this.entries.clear();
    for (const [id, entry] of entries) {
      this.clock.clearTimeout(entry.timer);
      entry.reject(errorFor(id, entry.command));
    }
  }

  private take(id: string): Entry<R, E> | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    this.entries.delete(id);
    this.clock.clearTimeout(entry.timer);
    return entry;
  }

  private arm(id: string, entry: Entry<R, E>): TimerId {
    return this.clock.setTimeout(() => {
      if (this.entries.get(id) !== entry) return;
      this.entries.delete(id);
      entry.reject(this.errors.timeout(id, entry.command, entry.timeoutMs));
    }, entry.timeoutMs);
  }
}
