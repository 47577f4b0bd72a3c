// A capsule's broadcast events, each kept once for every session that hears it: a bounded ring in
// emit order. A session does not copy an event into a queue of its own when it is emitted; it reads
// the log from where it last stopped (its cursor) when its delivery is due. So an emit costs the
// same for one session or a thousand, and a session's delivery walks only what it has not taken.
//
// Coalescing is worked out once here too: an event whose coalescing key (a tick; a state_change's
// entity and field) comes again later is marked superseded, and every session that has not taken
// it yet — whose cursor is before it, so the later one is in its range as well — skips it, exactly
// as its own queue would have replaced it (events.ts). What the log is about to forget, sessions
// still behind take into their own queues first (EventLog.append → LogReader.catchUp).

import type { QueuedEvent } from './events.js';
import { TOPICS, type Topic } from '../protocol/messages.js';

/** One emitted event in the log. */
export interface LogEntry extends QueuedEvent {
  /** The topic's bit (topicBit), for a reader's subscription mask. */
  readonly bit: number;
  /** A later event in the log has the same coalescing key: a reader whose range holds this one skips it. */
  superseded: boolean;
}

/** A session reading the log: its cursor (EventDelivery). */
export interface LogReader {
  /** The position up to which this reader has taken the log. */
  readonly cursor: number;
  /** Takes everything from its cursor to the log's end into its own queue (the log is about to forget some of it). */
  catchUp(): void;
  /** The log grew and the capsule's deferred work runs now: delivers what is due. */
  poll(): void;
  /** The log's list of its readers, kept in the readers themselves (a Set would cost each idle session more). */
  previousReader: LogReader | undefined;
  nextReader: LogReader | undefined;
}

/** Each reserved topic's bit in a subscription mask. */
export function topicBit(topic: Topic): number {
  return 1 << TOPICS.indexOf(topic);
}

/** The mask of a set of subscribed topics (names that are not reserved topics hear nothing). */
export function topicMask(topics: Iterable<string>): number {
  let mask = 0;
  for (const topic of topics) {
    const at = (TOPICS as readonly string[]).indexOf(topic);
    if (at >= 0) mask |= 1 << at;
  }
  return mask;
}

export class EventLog {
  /** Position of the next entry; positions only grow. */
  end = 0;
  /** Position of the oldest entry kept. */
  start = 0;
  private readonly ring: Array<LogEntry | undefined>;
  private readonly mask: number;
  /** The latest entry of each coalescing key still kept. */
  private readonly latest = new Map<string, LogEntry>();
  /** Per topic (by index), the position just after its latest entry: a reader of other topics skips the range unread. */
  private readonly topicEnds: number[] = TOPICS.map(() => 0);
  /** Every session's cursor, from its start to its close, in the order they came: a list through the readers themselves. */
  private firstReader: LogReader | undefined;
  private lastReader: LogReader | undefined;

  /** `capacity`: entries kept, rounded up to a power of two (at least 16). */
  constructor(capacity: number) {
    let size = 16;
    while (size < capacity) size *= 2;
    this.ring = new Array<LogEntry | undefined>(size);
    this.mask = size - 1;
  }

  get capacity(): number {
    return this.mask + 1;
  }

  /** A session starts reading (at the end: it hears what is emitted from now on). */
  addReader(reader: LogReader): void {
    reader.previousReader = this.lastReader;
    reader.nextReader = undefined;
    if (this.lastReader === undefined) this.firstReader = reader;
    else this.lastReader.nextReader = reader;
    this.lastReader = reader;
  }

  /**
   * A session stops reading. Its own `nextReader` is left as it was, so a walk that stands on it
   * (a reader removed while the log polls them) goes on to the ones after it.
   */
  removeReader(reader: LogReader): void {
    const { previousReader, nextReader } = reader;
    if (previousReader === undefined) {
      if (this.firstReader !== reader) return; // not reading
      this.firstReader = nextReader;
    } else previousReader.nextReader = nextReader;
    if (nextReader === undefined) this.lastReader = previousReader;
    else nextReader.previousReader = previousReader;
    reader.previousReader = undefined;
  }

  /** Every reader's delivery, in the order they came: readers added meanwhile too, none removed meanwhile. */
  pollReaders(): void {
    for (let reader = this.firstReader; reader !== undefined; reader = reader.nextReader) if (this.reads(reader)) reader.poll();
  }

  /** Whether `reader` is in the list (one removed keeps its way forward, not its place). */
  private reads(reader: LogReader): boolean {
    return reader.previousReader !== undefined || this.firstReader === reader;
  }

  /**
   * Adds an event. When the log is full, the older half is forgotten: first every reader still
   * behind it takes its range into its own queue.
   */
  append(entry: LogEntry): void {
    if (this.end - this.start === this.capacity) this.forgetOlderHalf();
    const key = entry.key;
    if (key !== undefined && key !== null) {
      const previous = this.latest.get(key);
      if (previous !== undefined) previous.superseded = true;
      this.latest.set(key, entry);
    }
    this.ring[this.end & this.mask] = entry;
    this.end++;
    this.topicEnds[31 - Math.clz32(entry.bit)] = this.end;
  }

  /** The entry at `position` (start ≤ position < end). */
  at(position: number): LogEntry {
    return this.ring[position & this.mask]!;
  }

  /** Whether an entry of any topic in `mask` lies at or after `position`. */
  holdsAfter(position: number, mask: number): boolean {
    const ends = this.topicEnds;
    for (let topic = 0; topic < ends.length; topic++) if ((mask & (1 << topic)) !== 0 && ends[topic]! > position) return true;
    return false;
  }

  private forgetOlderHalf(): void {
    const until = this.start + this.capacity / 2;
    for (let reader = this.firstReader; reader !== undefined; reader = reader.nextReader) if (this.reads(reader) && reader.cursor < until) reader.catchUp();
    for (let position = this.start; position < until; position++) {
      const entry = this.ring[position & this.mask]!;
      this.ring[position & this.mask] = undefined;
      const key = entry.key;
      if (key !== undefined && key !== null && this.latest.get(key) === entry) this.latest.delete(key);
    }
    this.start = until;
  }
}
