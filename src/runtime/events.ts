// World events and the per-session queue that holds them until the session's next delivery.
// What piles up while an agent is slow is coalesced, and the queue never grows past its bound.

import type { SharedEncodings } from '../protocol/codec.js';
import type { JsonObject, Meta, Topic } from '../protocol/messages.js';

/** Payloads of the reserved topics (docs/PROTOCOL.md, "Events"). Extra fields are allowed. */
export interface EventPayloads {
  /** `ticks` > 1 when several ticks were collapsed into this one; `dt_ms` then covers them all. */
  tick: { tick: number; dt_ms: number; time_ms: number; ticks?: number } & JsonObject;
  collision: { a: string; b: string; phase?: 'begin' | 'end' } & JsonObject;
  audio: { source: string; sound: string; volume?: number } & JsonObject;
  state_change: { entity: string; field: string; value: unknown; previous?: unknown } & JsonObject;
  agent_message: { from: string; text: string; to?: string } & JsonObject;
}

export interface QueuedEvent extends SharedEncodings {
  topic: Topic;
  payload: JsonObject;
  meta?: Meta;
  /**
   * What the event coalesces on (see coalescingKey), null for nothing; worked out once by whoever
   * makes the event, since one event object reaches every subscribed session's queue.
   */
  key?: string | null;
}

/** Topics whose events may be dropped, oldest first, when the queue is full. */
const DROPPABLE: ReadonlySet<Topic> = new Set(['tick', 'collision', 'audio']);

/**
 * A bounded queue of events for one session. A tick replaces the waiting tick (counting the ticks
 * it stands for); a state_change replaces the waiting one for the same entity and field, and moves
 * to the back. When full, the oldest droppable event goes; the count of dropped events rides on the
 * `meta.dropped_events` of the next batch.
 */
export class EventQueue {
  private slots: Array<QueuedEvent | undefined> = [];
  private live = 0;
  /** Made at the first coalescing key: an idle session's queue holds no Map. */
  private keyed: Map<string, number> | undefined;
  dropped = 0;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.live;
  }

  push(event: QueuedEvent): void {
    const key = event.key === undefined ? coalescingKey(event) : event.key;
    if (key !== null) {
      this.keyed ??= new Map();
      const index = this.keyed.get(key);
      if (index !== undefined) {
        const previous = this.slots[index]!;
        this.slots[index] = undefined;
        this.live--;
        if (event.topic === 'tick') event = mergeTicks(previous, event);
      }
      this.keyed.set(key, this.slots.length);
    }
    this.slots.push(event);
    this.live++;
    if (this.live > this.capacity) this.dropOne();
    // Holes left by coalescing are squeezed out once they outnumber the live events.
    if (this.slots.length > 2 * this.live + 16) this.compact();
  }

  /** Everything waiting, oldest first; the queue is empty afterwards. */
  take(): QueuedEvent[] {
    const out: QueuedEvent[] = [];
    for (const slot of this.slots) if (slot !== undefined) out.push(slot);
    this.slots = [];
    this.keyed?.clear();
    this.live = 0;
    return out;
  }

  private dropOne(): void {
    let victim = this.slots.findIndex((slot) => slot !== undefined && DROPPABLE.has(slot.topic));
    if (victim < 0) victim = this.slots.findIndex((slot) => slot !== undefined);
    const event = this.slots[victim]!;
    const key = event.key === undefined ? coalescingKey(event) : event.key;
    if (key !== null) this.keyed?.delete(key);
    this.slots[victim] = undefined;
    this.live--;
    this.dropped++;
  }

  private compact(): void {
    const kept = this.slots.filter((slot): slot is QueuedEvent => slot !== undefined);
    this.slots = kept;
    this.keyed?.clear();
    kept.forEach((event, index) => {
      const key = event.key === undefined ? coalescingKey(event) : event.key;
      if (key !== null) (this.keyed ??= new Map()).set(key, index);
    });
  }
}

/** A tick replaces the waiting tick; a state_change the waiting one for its entity and field. */
export function coalescingKey(event: Pick<QueuedEvent, 'topic' | 'payload'>): string | null {
  if (event.topic === 'tick') return 'tick';
  if (event.topic === 'state_change') {
    const { entity, field } = event.payload;
    if (typeof entity === 'string' && typeof field === 'string') return `state\u0000${entity}\u0000${field}`;
  }
  return null;
}

function mergeTicks(previous: QueuedEvent, next: QueuedEvent): QueuedEvent {
  const before = previous.payload;
  const after = next.payload;
  const ticks = (typeof before['ticks'] === 'number' ? before['ticks'] : 1) + (typeof after['ticks'] === 'number' ? after['ticks'] : 1);
  const dt = (typeof before['dt_ms'] === 'number' ? before['dt_ms'] : 0) + (typeof after['dt_ms'] === 'number' ? after['dt_ms'] : 0);
  // A new event, not a copy of `next`: what a codec cached for the unmerged payload must not come along.
  const merged: QueuedEvent = { topic: next.topic, payload: { ...after, dt_ms: dt, ticks } };
  if (next.meta !== undefined) merged.meta = next.meta;
  if (next.key !== undefined) merged.key = next.key;
  return merged;
}
