// How often a session's events are delivered, from the agent's declared model class and budgets
// and its measured decision latency: a cloud_large agent is not sent sixty tick events a second.

import type { AgentModel, ModelClass } from '../protocol/messages.js';

/** Full-response budget assumed for each model class when the agent declares none, in ms. */
export const CLASS_BUDGET_MS: Record<ModelClass, number> = {
  edge_small: 50,
  edge_medium: 250,
  cloud_medium: 1500,
  cloud_large: 4000,
};

/** Deliveries happen about four times per decision, and at least every two seconds. */
const DELIVERIES_PER_DECISION = 4;
const MAX_INTERVAL_MS = 2000;

/**
 * Milliseconds between two deliveries of events. The budget is the declared
 * expected_full_response_ms (or the class default), raised to the measured latency when the agent
 * turns out slower than it said.
 */
export function deliveryIntervalMs(model: AgentModel, measuredLatencyMs: number | undefined): number {
  const declared = model.expected_full_response_ms ?? CLASS_BUDGET_MS[model.class];
  const budget = Math.max(declared, measuredLatencyMs ?? 0);
  return Math.min(MAX_INTERVAL_MS, budget / DELIVERIES_PER_DECISION);
}

/** An exponentially weighted mean: recent decisions count most. */
export class LatencyTracker {
  private mean: number | undefined;
  samples = 0;

  constructor(private readonly weight = 0.2) {}

  get value(): number | undefined {
    return this.mean;
  }

  add(sampleMs: number): void {
    this.samples++;
    this.mean = this.mean === undefined ? sampleMs : this.mean + this.weight * (sampleMs - this.mean);
  }
}
