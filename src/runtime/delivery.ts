// When a session's events go out: batched at the cadence its agent model calls for, held while the
// link is backed up or down, and timed against the agent's next call to measure its latency.

import { deliveryIntervalMs, LatencyTracker } from './cadence.js';
import type { Clock, TimerId } from './clock.js';
import { EventQueue, type QueuedEvent } from './events.js';
import type { AgentModel } from '../protocol/messages.js';

/** What a delivery needs from the capsule: one for all its sessions (the SessionHost). */
export interface DeliveryHost {
  readonly clock: Clock;
  readonly settings: { readonly tickIntervalMs: number; readonly maxBufferedBytes: number; readonly eventQueueSize: number };
  /** Runs a task after the current work. */
  soon(task: () => void): void;
}

/** What a delivery needs from its session. */
export interface DeliverySession {
  readonly agentModel: AgentModel;
  /** The link's backlog, or undefined while the session has no link. */
  readonly backlog: number | undefined;
  /**
   * Sends one delivery: `batch` in order, the first carrying `dropped` (when above 0) as
   * `meta.dropped_events`. Its events are shared with the other sessions they reach.
   */
  deliver(batch: readonly QueuedEvent[], dropped: number): void;
}

export class EventDelivery {
  // Made on first use: most of a large population of sessions sits idle.
  private queue: EventQueue | undefined;
  private latency: LatencyTracker | undefined;
  /** Undefined before the first delivery (a field holding -Infinity would cost a boxed number). */
  private lastDeliveryAt: number | undefined;
  /** When the agent was last given news it has not acted on yet. */
  private newsSince: number | undefined;
  private timer: TimerId | undefined;
  private queued = false;
  droppedTotal = 0;

  constructor(
    private readonly host: DeliveryHost,
    private readonly session: DeliverySession,
  ) {}

  get waiting(): number {
    return this.queue?.size ?? 0;
  }

  get decisionLatencyMs(): number | undefined {
    return this.latency?.value;
  }

  push(event: QueuedEvent): void {
    const queue = (this.queue ??= new EventQueue(this.host.settings.eventQueueSize));
    const before = queue.dropped;
    queue.push(event);
    this.droppedTotal += queue.dropped - before;
    this.schedule();
  }

  /** The agent acted: the time since its news is one sample of its decision latency. */
  noteDecision(): void {
    if (this.newsSince === undefined) return;
    (this.latency ??= new LatencyTracker()).add(this.host.clock.now() - this.newsSince);
    this.newsSince = undefined;
  }

  /** Plans the next delivery if events wait and a link is there to take them. */
  schedule(): void {
    if (this.waiting === 0 || this.queued || this.timer !== undefined || this.session.backlog === undefined) return;
    const wait = this.lastDeliveryAt === undefined ? 0 : this.lastDeliveryAt + this.interval() - this.host.clock.now();
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

  /** The link went away: deliveries wait for the next one. */
  stop(): void {
    if (this.timer !== undefined) this.host.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private deliverQueued(): void {
    this.queued = false;
    this.deliver();
  }

  private deliver(): void {
    const backlog = this.session.backlog;
    const queue = this.queue;
    if (backlog === undefined || queue === undefined || queue.size === 0) return;
    if (backlog > this.host.settings.maxBufferedBytes) {
      // The agent is not keeping up: let events coalesce and look again an interval later.
      this.retryIn(Math.max(this.host.settings.tickIntervalMs, this.interval()));
      return;
    }
    const dropped = queue.dropped;
    const batch = queue.take();
    queue.dropped = 0;
    const now = this.host.clock.now();
    this.lastDeliveryAt = now;
    this.newsSince ??= now;
    this.session.deliver(batch, dropped);
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
