// When and what a session's events go out: at the cadence its agent model calls for, held while the
// link is backed up or down, and timed against the agent's next call to measure its latency.
//
// What a delivery holds comes from two places: the capsule's event log (broadcast events, read from
// the session's cursor: eventLog.ts) and the session's own queue (events for it alone — targeted
// emits and direct responses — and log entries it had to take early). The common case, nothing of
// its own waiting, walks the log range and sends straight from it; otherwise the range joins the
// queue (EventQueue: coalescing and bounds) and the queue is sent. Either way the agent gets what a
// queue of its own would have held: the same events, coalesced the same way, in emit order.

import { deliveryIntervalMs, LatencyTracker } from './deliveryInterval.js';
import type { Clock, TimerId } from '../base/clock.js';
import type { EventLog, LogReader } from './eventLog.js';
import { EventQueue, type QueuedEvent } from './events.js';
import type { AgentModel, JsonObject } from '../protocol/messages.js';
import type { SentEvent } from './resumeReplay.js';
import type { SharedEncodings } from '../protocol/codec.js';
import type { DecisionObserver } from './sessionTypes.js';

/** What a delivery needs from the capsule: one for all its sessions. */
export interface DeliveryHost {
  readonly clock: Clock;
  readonly log: EventLog;
  readonly settings: { readonly tickIntervalMs: number; readonly maxBufferedBytes: number; readonly eventQueueSize: number };
  /** Runs a task after the current work. */
  soon(task: () => void): void;
}

/** What a delivery reads of its session. */
export interface DeliverySession {
  readonly agentModel: AgentModel;
  /** The topics the session hears from the log, as a mask (eventLog.ts, topicMask). */
  readonly topicMask: number;
  /** The link's backlog, or undefined while the session has no link. */
  readonly backlog: number | undefined;
}

/** Where a delivery's events go: the session's outbox. */
export interface DeliveryOutlet {
  /** A delivery begins: what follows goes out together (one frame where the link's framing allows). */
  cork(): void;
  /** One event of the delivery, in order. */
  sendEvent(event: SentEvent & SharedEncodings): void;
  uncork(): void;
}

export class EventDelivery implements LogReader {
  /** Where this session has read the capsule's log up to. */
  cursor: number;
  // Made on first use: most of a large population of sessions sits idle.
  private queue: EventQueue | undefined;
  private latency: LatencyTracker | undefined;
  /** Undefined before the first delivery (a field holding -Infinity would cost a boxed number). */
  private lastDeliveryAt: number | undefined;
  /** When the agent was last given news it has not acted on yet. */
  private newsSince: number | undefined;
  private timer: TimerId | undefined;
  private queued = false;
  /** Events dropped at the queue's bound, over the session's life (read `waiting` first for the latest count). */
  droppedTotal = 0;
  /** The event log's list of its readers (EventLog.addReader): not this delivery's to touch. */
  previousReader: LogReader | undefined = undefined;
  nextReader: LogReader | undefined = undefined;
  /** Told when a decision starts and ends: a session's decision budget (decisionBudget.ts), if it has one. */
  decisions: DecisionObserver | undefined;

  constructor(
    private readonly host: DeliveryHost,
    private readonly session: DeliverySession,
    private readonly outlet: DeliveryOutlet,
  ) {
    // A session hears what is emitted from its start on, until close().
    this.cursor = host.log.end;
    host.log.addReader(this);
  }

  /** The session closed: it reads the log no more. */
  close(): void {
    this.stop();
    this.host.log.removeReader(this);
  }

  /**
   * Events waiting: the session's own, and those of its topics in the log it has not taken — as its
   * queue would hold them. Where that takes the queue's rules (bounds, coalescing across both), the
   * log's range joins the queue first, so the counts (this and droppedTotal) are the queue's own.
   */
  get waiting(): number {
    const own = this.queue?.size ?? 0;
    const log = this.host.log;
    const live = this.liveIn(this.cursor, log.end, this.session.topicMask);
    if (live === 0) return own;
    if (own === 0 && live <= this.host.settings.eventQueueSize) return live;
    this.catchUp();
    return this.queue!.size;
  }

  get decisionLatencyMs(): number | undefined {
    return this.latency?.value;
  }

  /** An event for this session alone: it goes behind what the session has not taken from the log yet. */
  push(event: QueuedEvent): void {
    this.catchUp();
    const queue = (this.queue ??= new EventQueue(this.host.settings.eventQueueSize));
    const before = queue.dropped;
    queue.push(event);
    this.droppedTotal += queue.dropped - before;
    this.schedule();
  }

  /**
   * Takes the log from the cursor to its end into the session's own queue: before the log forgets
   * entries, before an event of the session's own goes behind them, and before its subscriptions
   * change (what was emitted under the old ones is kept as it was heard).
   */
  catchUp(): void {
    const log = this.host.log;
    const mask = this.session.topicMask;
    if (this.cursor === log.end) return;
    if (!log.holdsAfter(this.cursor, mask)) {
      this.cursor = log.end;
      return;
    }
    const queue = (this.queue ??= new EventQueue(this.host.settings.eventQueueSize));
    const before = queue.dropped;
    for (let position = this.cursor; position < log.end; position++) {
      const entry = log.at(position);
      if ((entry.bit & mask) !== 0) queue.push(entry);
    }
    this.cursor = log.end;
    this.droppedTotal += queue.dropped - before;
  }

  /** The agent acted: the time since its news is one sample of its decision latency. */
  noteDecision(): void {
    if (this.newsSince === undefined) return;
    const now = this.host.clock.now();
    (this.latency ??= new LatencyTracker()).add(now - this.newsSince);
    this.newsSince = undefined;
    this.decisions?.ended(now);
  }

  /** Whether anything waits for this session (its own events, or its topics in the log). */
  private hasNews(): boolean {
    if (this.queue !== undefined && this.queue.size > 0) return true;
    const log = this.host.log;
    if (this.cursor === log.end) return false;
    if (log.holdsAfter(this.cursor, this.session.topicMask)) return true;
    this.cursor = log.end; // nothing of its topics: skip the range for good
    return false;
  }

  /** Plans the next delivery if events wait and a link is there to take them. */
  schedule(): void {
    if (this.queued || this.timer !== undefined || this.session.backlog === undefined || !this.hasNews()) return;
    const wait = this.waitMs();
    if (wait <= 0) {
      // After the current tick's work, so one tick's events go out together.
      this.queued = true;
      // A closure per delivery rather than one kept per session: most sessions of a large
      // population sit idle, and a delivery costs far more than its closure.
      this.host.soon(() => this.deliverQueued());
    } else {
      this.retryIn(wait);
    }
  }

  /**
   * The log grew and the capsule's deferred work runs now (after the step, emit or call that made
   * it): delivers at once if due, or plans the delivery for when it is.
   */
  poll(): void {
    if (this.queued || this.timer !== undefined || this.session.backlog === undefined || !this.hasNews()) return;
    const wait = this.waitMs();
    if (wait <= 0) this.deliver();
    else this.retryIn(wait);
  }

  /** The link went away: deliveries wait for the next one. */
  stop(): void {
    if (this.timer !== undefined) this.host.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private waitMs(): number {
    return this.lastDeliveryAt === undefined ? 0 : this.lastDeliveryAt + this.interval() - this.host.clock.now();
  }

  private deliverQueued(): void {
    this.queued = false;
    this.deliver();
  }

  private deliver(): void {
    const backlog = this.session.backlog;
    if (backlog === undefined || !this.hasNews()) return;
    if (backlog > this.host.settings.maxBufferedBytes) {
      // The agent is not keeping up: let events coalesce and look again an interval later.
      this.retryIn(Math.max(this.host.settings.tickIntervalMs, this.interval()));
      return;
    }
    const now = this.host.clock.now();
    this.lastDeliveryAt = now;
    if (this.newsSince === undefined) {
      // News the agent has not acted on yet: a decision starts.
      this.newsSince = now;
      this.decisions?.started(now);
    }
    if (this.queue !== undefined && this.queue.size > 0) this.deliverQueue(this.queue);
    else if (!this.deliverFromLog()) this.deliverQueue(this.queue!);
  }

  /** Sends the session's own queue, with the log's range taken in behind it. */
  private deliverQueue(queue: EventQueue): void {
    this.catchUp();
    const dropped = queue.dropped;
    const batch = queue.take();
    queue.dropped = 0;
    const outlet = this.outlet;
    outlet.cork();
    for (let index = 0; index < batch.length; index++) {
      const event = batch[index]!;
      // Only the batch's first event ever changes (to carry the count of dropped events).
      outlet.sendEvent(index === 0 && dropped > 0 ? { topic: event.topic, payload: event.payload, meta: { ...event.meta, dropped_events: dropped } } : event);
    }
    outlet.uncork();
  }

  /**
   * Sends the log's range straight from the log: its entries of the session's topics that nothing
   * later in the range supersedes, the last tick standing for every tick in the range. False, having
   * sent nothing, when the range holds more than the queue bound: then it goes through the queue,
   * whose bounds decide what is dropped.
   */
  private deliverFromLog(): boolean {
    const log = this.host.log;
    const mask = this.session.topicMask;
    const from = this.cursor;
    const end = log.end;
    if (end - from > this.host.settings.eventQueueSize && this.liveIn(from, end, mask) > this.host.settings.eventQueueSize) {
      this.catchUp();
      return false;
    }
    const outlet = this.outlet;
    let ticks = 0;
    let tickMs = 0;
    outlet.cork();
    for (let position = from; position < end; position++) {
      const entry = log.at(position);
      if ((entry.bit & mask) === 0) continue;
      if (entry.topic === 'tick') {
        const payload = entry.payload;
        ticks += typeof payload['ticks'] === 'number' ? payload['ticks'] : 1;
        tickMs += typeof payload['dt_ms'] === 'number' ? payload['dt_ms'] : 0;
        if (!entry.superseded) outlet.sendEvent(ticks === 1 ? entry : mergedTick(entry, ticks, tickMs));
        continue;
      }
      if (!entry.superseded) outlet.sendEvent(entry);
    }
    this.cursor = end;
    outlet.uncork();
    return true;
  }

  /** Entries of `mask` in [from, end) that nothing later supersedes. */
  private liveIn(from: number, end: number, mask: number): number {
    const log = this.host.log;
    let live = 0;
    for (let position = from; position < end; position++) {
      const entry = log.at(position);
      if ((entry.bit & mask) !== 0 && !entry.superseded) live++;
    }
    return live;
  }

  private retryIn(ms: number): void {
    this.timer = this.host.clock.setTimeout(() => {
      this.timer = undefined;
      this.deliver();
    }, ms);
  }

  private interval(): number {
    return deliveryIntervalMs(this.session.agentModel, this.latency?.value);
  }
}

/** The last tick of a range standing for all `ticks` of them (as a queue's coalescing would make it). */
function mergedTick(last: QueuedEvent, ticks: number, dtMs: number): SentEvent {
  const payload: JsonObject = { ...last.payload, dt_ms: dtMs, ticks };
  return last.meta === undefined ? { topic: 'tick', payload } : { topic: 'tick', payload, meta: last.meta };
}
