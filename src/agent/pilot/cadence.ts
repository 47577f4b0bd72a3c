// When the pilot speaks to its model. News is gathered for a moment so a burst of events leaves as
// one digest; how long follows the session's declared model class (or budget) and the latency the
// pilot measures itself, with the same rule the capsule uses for event deliveries: a quarter of the
// decision budget, at most two seconds. A character left waiting is woken after a quiet spell. All
// of it runs on timers of the injected clock: the tick loop never waits on any of it.

import { CLASS_BUDGET_MS, deliveryIntervalMs, LatencyTracker } from '../../runtime/deliveryInterval.js';
import type { Clock, TimerId } from '../../base/clock.js';
import type { AgentModel } from '../../protocol/messages.js';

export interface CadenceOptions {
  /** With nothing new, the model is still asked after this long idle. Default 30,000 ms; Infinity: never. */
  quietWakeMs?: number;
}

type Slot = 'gather' | 'wake' | 'later';

export class Cadence {
  private readonly latency = new LatencyTracker();
  private readonly timers = new Map<Slot, TimerId>();
  readonly quietWakeMs: number;

  constructor(
    private readonly clock: Clock,
    private model: AgentModel,
    options: CadenceOptions = {},
  ) {
    this.quietWakeMs = options.quietWakeMs ?? 30_000;
  }

  /** The session's model declaration changed (a manifest update). */
  setModel(model: AgentModel): void {
    this.model = model;
  }

  /** One decision's latency: from sending the digest to having the reply. */
  record(latencyMs: number): void {
    this.latency.add(latencyMs);
  }

  /** The moving average of measured decision latencies; undefined before the first. */
  get measuredMs(): number | undefined {
    return this.latency.value;
  }

  /** What one decision may take: declared (or the class default), raised to what was measured. */
  budgetMs(): number {
    return Math.max(this.model.expected_full_response_ms ?? CLASS_BUDGET_MS[this.model.class], this.latency.value ?? 0);
  }

  /** How long news gathers before a digest goes out. */
  gatherMs(): number {
    return deliveryIntervalMs(this.model, this.latency.value);
  }

  /** Runs `then` when the gathering window closes; a window already open keeps its time. */
  gather(then: () => void): void {
    if (!this.timers.has('gather')) this.set('gather', this.gatherMs(), then);
  }

  /** Runs `then` after a quiet spell, unless something else is scheduled first (see cancel). */
  wakeAfterQuiet(then: () => void): void {
    if (Number.isFinite(this.quietWakeMs)) this.set('wake', this.quietWakeMs, then);
  }

  /** Runs `then` after `ms` (a pause that lifts itself). */
  later(ms: number, then: () => void): void {
    this.set('later', ms, then);
  }

  /** Forgets everything scheduled. */
  cancel(): void {
    for (const timer of this.timers.values()) this.clock.clearTimeout(timer);
    this.timers.clear();
  }

  private set(slot: Slot, ms: number, then: () => void): void {
    const previous = this.timers.get(slot);
    if (previous !== undefined) this.clock.clearTimeout(previous);
    this.timers.set(
      slot,
      this.clock.setTimeout(() => {
        this.timers.delete(slot);
        then();
      }, ms),
    );
  }
}
