// When a session's events go out: batched at the cadence its agent model calls for, held while the
// link is backed up or down, and timed against the agent's next call to measure its latency.

import { deliveryIntervalMs, LatencyTracker } from './cadence.js';
import type { Clock, TimerId } from './clock.js';
import { EventQueue, type QueuedEvent } from './events.js';
import type { AgentModel } from './protocol.js';

/** What a delivery needs from its session. */
export interface DeliveryTarget {
  readonly clock: Clock;
  readonly tickIntervalMs: number;
  readonly maxBufferedBytes: number;
  /** The link's backlog, or undefined while the session has no link. */
  backlog(): number | undefined;
  model(): AgentModel;
  /**
   * Sends one delivery: `batch` in order, the first carrying `dropped` (when above 0) as
   * `meta.dropped_events`. Its events are shared with the other sessions they reach.
   */
  sendEvents(batch: readonly QueuedEvent[], dropped: number): void;
  /** Runs a task after the current work (SessionHost.soon). */
  soon(task: () => void): void;
}

export class EventDelivery {
  private readonly queue: EventQueue;
  private readonly latency = new LatencyTracker();
  private lastDeliveryAt = -Infinity;
  /** When the agent was last given news it has not acted on yet. */
  private newsSince: number | undefined;
  private timer: TimerId | undefined;
  private queued = false;
  droppedTotal = 0;

  constructor(
    private readonly target: DeliveryTarget,
    capacity: number,
  ) {
    this.queue = new EventQueue(capacity);
  }

  get waiting(): number {
    return this.queue.size;
  }

  get decisionLatencyMs(): number | undefined {
    return this.latency.value;
  }

  push(event: QueuedEvent): void {
    const before = this.queue.dropped;
    this.queue.push(event);
    this.droppedTotal += this.queue.dropped - before;
    this.schedule();
  }

  /** The agent acted: the time since its news is one sample of its decision latency. */
  noteDecision(): void {
    if (this.newsSince === undefined) return;
    this.latency.add(this.target.clock.now() - this.newsSince);
    this.newsSince = undefined;
  }

  /** Plans the next delivery if events wait and a link is there to take them. */
  schedule(): void {
    if (this.queue.size === 0 || this.queued || this.timer !== undefined || this.target.backlog() === undefined) return;
    const wait = this.lastDeliveryAt + this.interval() - this.target.clock.now();
    if (wait <= 0) {
      // After the current tick's work, so one tick's events go out together.
      this.queued = true;
      this.target.soon(this.deliverQueued);
    } else {
      this.retryIn(wait);
    }
  }

  /** The link went away: deliveries wait for the next one. */
  stop(): void {
    if (this.timer !== undefined) this.target.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private readonly deliverQueued = (): void => {
    this.queued = false;
    this.deliver();
  };

  private deliver(): void {
    const backlog = this.target.backlog();
    if (backlog === undefined || this.queue.size === 0) return;
    if (backlog > this.target.maxBufferedBytes) {
      // The agent is not keeping up: let events coalesce and look again an interval later.
      this.retryIn(Math.max(this.target.tickIntervalMs, this.interval()));
      return;
    }
    const dropped = this.queue.dropped;
    const batch = this.queue.take();
    this.queue.dropped = 0;
    const now = this.target.clock.now();
    this.lastDeliveryAt = now;
    this.newsSince ??= now;
    this.target.sendEvents(batch, dropped);
  }

  private retryIn(ms: number): void {
    this.timer = this.target.clock.setTimeout(() => {
      this.timer = undefined;
      this.deliver();
    }, ms);
  }

  private interval(): number {
    return deliveryIntervalMs(this.target.model(), this.latency.value);
  }
}
