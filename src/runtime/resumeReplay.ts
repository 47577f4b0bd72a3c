// What a session has sent, kept so that an agent resuming after a dropped link gets every message
// it missed exactly once (docs/PROTOCOL.md, "Resume").
//
// An event reaching many sessions is kept once, capsule-wide, as the event the capsule emitted: a
// session's ring holds only a reference to it and the sequence number it went out under, and its
// envelope is built again on a resume — message ids are the session's prefix and that number, so
// the rebuilt message is the one that was sent. The session's own messages (results, errors,
// manifests) are kept whole.

import type { AiccMessage, EventMessage } from '../protocol/messages.js';

/** An event as a session delivered it: shared with every session it reached. */
export type SentEvent = Pick<EventMessage, 'topic' | 'payload' | 'meta'>;

/** Builds the envelope an event went out in, from its sequence number (the session's sendEvent shape). */
export type EventEnvelope = (sequence: number, event: SentEvent) => EventMessage;

/**
 * Where a session keeps what it sent for a resume (the MCP SDK's EventStore has this shape: store,
 * replay after). `ReplayBuffer` is the default; a host may keep resume state elsewhere
 * (CapsuleOptions.replayStore) as long as it keeps the promise: `after` gives every message kept
 * after a sequence, in order, or undefined when some are gone.
 */
export interface ReplayStore {
  /** Keeps a message of the session's own. */
  push(sequence: number, message: AiccMessage): void;
  /** Keeps an event shared with other sessions; `envelope` rebuilds its message in `after`. */
  pushEvent(sequence: number, event: SentEvent): void;
  after(sequence: number, envelope: EventEnvelope): AiccMessage[] | undefined;
}

/** The replay store of a session that keeps no resume state (one in this process: its link cannot drop). */
export const NO_REPLAY: ReplayStore = {
  push: () => {},
  pushEvent: () => {},
  after: () => undefined,
};

export class ReplayBuffer implements ReplayStore {
  // A ring, filled by push until it holds `capacity`, then overwritten oldest first: no copying, and
  // an idle session pays only for what it sent. One array, each slot two cells: the sequence number,
  // then what was sent (one array costs an idle session half what two would).
  private cells: Array<number | AiccMessage | SentEvent> | undefined;
  /** The cell of the oldest retained entry, once the ring is full. */
  private oldest = 0;
  private readonly slots: number;
  /** The highest sequence number no longer retained; 0 while nothing was evicted. */
  evictedUpTo = 0;

  constructor(readonly capacity: number) {
    this.slots = Math.max(1, Math.floor(capacity));
  }

  /** Keeps a message of the session's own, whole. */
  push(sequence: number, message: AiccMessage): void {
    this.keep(sequence, message);
  }

  /** Keeps an event by reference: `event` is the one the capsule emitted, shared with other sessions. */
  pushEvent(sequence: number, event: SentEvent): void {
    this.keep(sequence, event);
  }

  /**
   * Every retained message after `sequence`, in order, events in envelopes `envelope` builds;
   * undefined if some of them were evicted.
   */
  after(sequence: number, envelope: EventEnvelope): AiccMessage[] | undefined {
    if (sequence < this.evictedUpTo) return undefined;
    const out: AiccMessage[] = [];
    const cells = this.cells ?? [];
    for (let i = 0; i < cells.length; i += 2) {
      const at = (this.oldest + i) % cells.length;
      const kept = cells[at] as number;
      if (kept <= sequence) continue;
      const entry = cells[at + 1] as AiccMessage | SentEvent;
      out.push('protocol' in entry ? entry : envelope(kept, entry));
    }
    return out;
  }

  get size(): number {
    return (this.cells?.length ?? 0) / 2;
  }

  private keep(sequence: number, entry: AiccMessage | SentEvent): void {
    const cells = this.cells;
    // The first entry makes an array of exactly two cells: most sessions of a large population
    // hold only their session_init, and an array grown by push reserves room for seventeen.
    if (cells === undefined) {
      this.cells = [sequence, entry];
      return;
    }
    if (cells.length < 2 * this.slots) {
      cells.push(sequence, entry);
      return;
    }
    const at = this.oldest;
    this.evictedUpTo = cells[at] as number;
    cells[at] = sequence;
    cells[at + 1] = entry;
    this.oldest = at + 2 === cells.length ? 0 : at + 2;
  }
}
