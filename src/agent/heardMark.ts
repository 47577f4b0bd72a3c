// What an agent has heard of its bridge's stream, as the mark a resume names: the last message's id
// (sequenced: the session's prefix, then a count), plus the shared events a direct wire handed on
// after it, each the next of the stream. It also tells a new message from a replayed one.

import { idOfSequence, sequenceOfId } from '../protocol/ids.js';

/** lastSequence not read from lastId yet (a trusted bridge's messages are not parsed for it). */
const UNREAD = -1;

/** A message judged by its id: new (and now the mark), a replayed repeat, or a jump too far to believe. */
export type Heard = 'new' | 'repeat' | { jumpFrom: number; to: number };

export class HeardMark {
  private prefix = '';
  private lastId = '';
  private lastSequence = 0;
  /** Shared events heard since the last whole message (lastId). */
  private sharedSinceLast = 0;

  /** @param maxJump the largest step between two sequence numbers taken as genuine (maxSequenceJump). */
  constructor(private readonly maxJump: number) {}

  /** The session_init: its id names the session's prefix. */
  begin(id: string): void {
    this.prefix = id.slice(0, -12).toLowerCase();
    this.take(id, sequenceOfId(id));
  }

  /**
   * A message from a bridge in this process, which sends each once and in order but for the replay
   * a resume asks for: taken as it is, its sequence read back only when a resume needs it.
   */
  trust(id: string): void {
    this.take(id, UNREAD);
  }

  /** Judges a message by its id. One not under the session's prefix is not sequenced: new, as it comes. */
  judge(id: string): Heard {
    if (!id.startsWith(this.prefix) && !id.toLowerCase().startsWith(this.prefix)) return 'new';
    if (this.lastSequence === UNREAD) this.lastSequence = sequenceOfId(this.lastId);
    const sequence = sequenceOfId(id);
    // Anything at or below the last sequence held is a replayed duplicate.
    if (sequence <= this.lastSequence) return 'repeat';
    // Taken as the newest, a jump would make every genuine message after it read as a duplicate.
    if (sequence - this.lastSequence > this.maxJump) return { jumpFrom: this.lastSequence, to: sequence };
    this.take(id, sequence);
    return 'new';
  }

  /** A shared event handed on by a direct wire: the next of the stream. */
  shared(): void {
    this.sharedSinceLast++;
  }

  /** The id of the last message heard, shared events counted: what a resume says it has. */
  get id(): string {
    if (this.sharedSinceLast === 0) return this.lastId;
    const base = this.lastSequence === UNREAD ? sequenceOfId(this.lastId) : this.lastSequence;
    return idOfSequence(this.prefix, base + this.sharedSinceLast);
  }

  private take(id: string, sequence: number): void {
    this.lastId = id;
    this.lastSequence = sequence;
    this.sharedSinceLast = 0;
  }
}
