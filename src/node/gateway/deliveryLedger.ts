// pi-peers' at-most-once delivery: the delivery id is the dedupe key, and a repeated id within ten
// minutes gets the original response without being delivered again — even while the original is
// still in flight. A failure marked retryable is forgotten, so the sender's retry can succeed.

import { failure, type Response } from './records.js';

export interface DeliveryLedgerOptions {
  /** How long an id is remembered, in ms (default ten minutes). */
  ttlMs?: number;
  /** Most ids remembered; the oldest go first (default 10,000). */
  maxEntries?: number;
  now?: () => number;
}

export const DEDUPE_TTL_MS = 10 * 60 * 1000;

export class DeliveryLedger {
  private readonly entries = new Map<string, { at: number; response: Promise<Response> }>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: DeliveryLedgerOptions = {}) {
    this.ttlMs = options.ttlMs ?? DEDUPE_TTL_MS;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Runs `deliver` for a new id; for a remembered one, returns its original response instead. */
  async once(id: string, deliver: () => Promise<Response>): Promise<{ response: Response; repeated: boolean }> {
    this.sweep();
    const known = this.entries.get(id);
    if (known !== undefined) return { response: await known.response, repeated: true };
    // A deliverer that throws still answers, and retryably: nothing is known to have been delivered.
    const response = deliver().catch((error: unknown) =>
      failure(id, 'deliver', 'internal_error', error instanceof Error ? error.message : String(error), true),
    );
    this.entries.set(id, { at: this.now(), response });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    const settled = await response;
    if (!settled.success && settled.retryable === true) this.entries.delete(id);
    return { response: settled, repeated: false };
  }

  /** Drops expired ids; the map is in arrival order, so the expired ones are at its front. */
  private sweep(): void {
    const cutoff = this.now() - this.ttlMs;
    for (const [id, entry] of this.entries) {
      if (entry.at > cutoff) break;
      this.entries.delete(id);
    }
  }
}
