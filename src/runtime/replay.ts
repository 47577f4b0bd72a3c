// What a session has sent, kept so that an agent resuming after a dropped link gets every message
// it missed exactly once (docs/PROTOCOL.md, "Resume").

import type { AiccMessage } from './protocol.js';

export class ReplayBuffer {
  // A ring, filled by push until it holds `capacity`, then overwritten oldest first: no copying, and
  // an idle session pays only for what it sent.
  private readonly sequences: number[] = [];
  private readonly messages: AiccMessage[] = [];
  /** Where the oldest retained message sits once the ring is full. */
  private oldest = 0;
  private readonly slots: number;
  /** The highest sequence number no longer retained; 0 while nothing was evicted. */
  evictedUpTo = 0;

  constructor(readonly capacity: number) {
    this.slots = Math.max(1, Math.floor(capacity));
  }

  push(sequence: number, message: AiccMessage): void {
    if (this.messages.length < this.slots) {
      this.sequences.push(sequence);
      this.messages.push(message);
      return;
    }
    const at = this.oldest;
    this.evictedUpTo = this.sequences[at]!;
    this.sequences[at] = sequence;
    this.messages[at] = message;
    this.oldest = at + 1 === this.slots ? 0 : at + 1;
  }

  /** Every retained message after `sequence`, in order; undefined if some of them were evicted. */
  after(sequence: number): AiccMessage[] | undefined {
    if (sequence < this.evictedUpTo) return undefined;
    const out: AiccMessage[] = [];
    const count = this.messages.length;
    for (let i = 0; i < count; i++) {
      const at = (this.oldest + i) % count;
      if (this.sequences[at]! > sequence) out.push(this.messages[at]!);
    }
    return out;
  }

  get size(): number {
    return this.messages.length;
  }
}
