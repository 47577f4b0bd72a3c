// What a session has sent, kept so that an agent resuming after a dropped link gets every message
// it missed exactly once (docs/PROTOCOL.md, "Resume").

import { sequenceOfId } from './ids.js';
import type { AiccMessage } from './protocol.js';

export class ReplayBuffer {
  // A ring, filled by push until it holds `capacity`, then overwritten oldest first: no copying, and
  // an idle session pays only for what it sent. A message's sequence is read back from its id
  // (SequencedIds) when a resume needs it, rather than kept beside it.
  private readonly messages: AiccMessage[] = [];
  /** Where the oldest retained message sits once the ring is full. */
  private oldest = 0;
  private readonly slots: number;
  /** The newest message no longer retained (its sequence is read only when a resume asks). */
  private lastEvicted: AiccMessage | undefined;

  /** The highest sequence number no longer retained; 0 while nothing was evicted. */
  get evictedUpTo(): number {
    return this.lastEvicted === undefined ? 0 : sequenceOfId(this.lastEvicted.message_id);
  }

  constructor(readonly capacity: number) {
    this.slots = Math.max(1, Math.floor(capacity));
  }

  /** Keeps `message`, whose message_id carries `sequence`. */
  push(_sequence: number, message: AiccMessage): void {
    if (this.messages.length < this.slots) {
      this.messages.push(message);
      return;
    }
    const at = this.oldest;
    this.lastEvicted = this.messages[at];
    this.messages[at] = message;
    this.oldest = at + 1 === this.slots ? 0 : at + 1;
  }

  /** Every retained message after `sequence`, in order; undefined if some of them were evicted. */
  after(sequence: number): AiccMessage[] | undefined {
    const evictedUpTo = this.evictedUpTo;
    if (sequence < evictedUpTo) return undefined;
    const out: AiccMessage[] = [];
    const count = this.messages.length;
    for (let i = 0; i < count; i++) {
      const at = (this.oldest + i) % count;
      if (sequenceOfId(this.messages[at]!.message_id) > sequence) out.push(this.messages[at]!);
    }
    return out;
  }

  get size(): number {
    return this.messages.length;
  }
}
