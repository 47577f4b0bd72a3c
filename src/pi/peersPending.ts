// Requests waiting for their answers, keyed by id: bounded in number, each with a timeout on the
// injected clock that starts again whenever a record carrying its id shows progress.

import type { Clock, TimerId } from '../runtime/clock.js';
import { localError, type PeersError } from './peersError.js';
import type { PeersResponse } from './peersProtocol.js';

interface Entry {
  command: string;
  timeoutMs: number;
  timer: TimerId;
  promise: Promise<PeersResponse>;
  resolve(response: PeersResponse): void;
  reject(error: PeersError): void;
}

export class PendingRequests {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly clock: Clock,
    /** Most requests waiting at once. */
    private readonly max: number,
    /** Names the owner in timeout messages (`PeersClient`). */
    private readonly place: string,
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
  add(id: string, command: string, timeoutMs: number): { promise: Promise<PeersResponse>; fresh: boolean } {
    const existing = this.entries.get(id);
    if (existing !== undefined) return { promise: existing.promise, fresh: false };
    if (this.entries.size >= this.max) {
      const error = localError('too_many_pending', `${this.place}: ${this.max} requests already wait for answers`, { requestId: id, command, local: true });
      return { promise: Promise.reject(error), fresh: false };
    }
    let resolve!: (response: PeersResponse) => void;
    let reject!: (error: PeersError) => void;
    const promise = new Promise<PeersResponse>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const entry: Entry = { command, timeoutMs, timer: 0, promise, resolve, reject };
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
  settle(response: PeersResponse): boolean {
    const entry = this.take(response.id);
    entry?.resolve(response);
    return entry !== undefined;
  }

  fail(id: string, error: PeersError): boolean {
    const entry = this.take(id);
    entry?.reject(error);
    return entry !== undefined;
  }

  /** Fails every waiting request, each with its own error (which names its id). */
  failAll(errorFor: (id: string, command: string) => PeersError): void {
    const entries = [...this.entries];
    this.entries.clear();
    for (const [id, entry] of entries) {
      this.clock.clearTimeout(entry.timer);
      entry.reject(errorFor(id, entry.command));
    }
  }

  private take(id: string): Entry | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    this.entries.delete(id);
    this.clock.clearTimeout(entry.timer);
    return entry;
  }

  private arm(id: string, entry: Entry): TimerId {
    return this.clock.setTimeout(() => {
      if (this.entries.get(id) !== entry) return;
      this.entries.delete(id);
      entry.reject(localError('timeout', `${this.place}: no answer to ${entry.command} ${id} within ${entry.timeoutMs} ms`, { requestId: id, command: entry.command }));
    }, entry.timeoutMs);
  }
}
