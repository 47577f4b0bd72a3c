// What a session has sent, kept so that an agent resuming after a dropped link gets every message
// it missed exactly once (docs/PROTOCOL.md, "Resume").

import type { AiccMessage } from './protocol.js';

export class ReplayBuffer {
  private sequences: number[] = [];
  private messages: AiccMessage[] = [];
  private head = 0;
  /** The highest sequence number no longer retained; 0 while nothing was evicted. */
  evictedUpTo = 0;

  constructor(readonly capacity: number) {}

  push(sequence: number, message: AiccMessage): void {
    this.sequences.push(sequence);
    this.messages.push(message);
    if (this.sequences.length - this.head > this.capacity) {
      this.evictedUpTo = this.sequences[this.head]!;
      this.head++;
      // Reclaim the evicted front now and then rather than shifting on every push.
      if (this.head >= this.capacity) {
        this.sequences = this.sequences.slice(this.head);
        this.messages = this.messages.slice(this.head);
        this.head = 0;
      }
    }
  }

  /** Every retained message after `sequence`, in order; undefined if some of them were evicted. */
  after(sequence: number): AiccMessage[] | undefined {
    if (sequence < this.evictedUpTo) return undefined;
    const out: AiccMessage[] = [];
    for (let i = this.head; i < this.sequences.length; i++) if (this.sequences[i]! > sequence) out.push(this.messages[i]!);
    return out;
  }

  get size(): number {
    return this.sequences.length - this.head;
  }
}
