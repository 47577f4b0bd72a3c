import { describe, expect, it } from 'vitest';
import { CLASS_BUDGET_MS, LatencyTracker, deliveryIntervalMs } from '../../src/runtime/deliveryInterval.js';

describe('deliveryIntervalMs', () => {
  it('assumes a full-response budget for each model class', () => {
    expect(CLASS_BUDGET_MS).toEqual({ edge_small: 50, edge_medium: 250, cloud_medium: 1500, cloud_large: 4000 });
  });

  it.each([
    ['edge_small', 12.5],
    ['edge_medium', 62.5],
    ['cloud_medium', 375],
    ['cloud_large', 1000],
  ] as const)('delivers to a %s agent every %s ms (a quarter of its class budget)', (modelClass, expected) => {
    expect(deliveryIntervalMs({ class: modelClass }, undefined)).toBe(expected);
  });

  it('uses the declared expected_full_response_ms instead of the class default', () => {
    expect(deliveryIntervalMs({ class: 'cloud_large', expected_full_response_ms: 800 }, undefined)).toBe(200);
    expect(deliveryIntervalMs({ class: 'edge_small', expected_full_response_ms: 1200 }, undefined)).toBe(300);
  });

  it('takes a declared budget of 0 at its word', () => {
    expect(deliveryIntervalMs({ class: 'cloud_large', expected_full_response_ms: 0 }, undefined)).toBe(0);
  });

  it('ignores expected_first_token_ms', () => {
    expect(deliveryIntervalMs({ class: 'cloud_medium', expected_first_token_ms: 100 }, undefined)).toBe(375);
  });

  it('raises the budget to the measured latency when the agent is slower than declared', () => {
    expect(deliveryIntervalMs({ class: 'cloud_medium' }, 2000)).toBe(500);
    expect(deliveryIntervalMs({ class: 'edge_small', expected_full_response_ms: 100 }, 600)).toBe(150);
  });

  it('keeps the declared budget when the agent is faster than declared', () => {
    expect(deliveryIntervalMs({ class: 'cloud_medium' }, 200)).toBe(375);
    expect(deliveryIntervalMs({ class: 'cloud_medium' }, 0)).toBe(375);
  });

  it('delivers at least every 2000 ms however slow the agent declares or turns out to be', () => {
    expect(deliveryIntervalMs({ class: 'cloud_large', expected_full_response_ms: 9000 }, undefined)).toBe(2000);
    expect(deliveryIntervalMs({ class: 'cloud_large' }, 60_000)).toBe(2000);
    expect(deliveryIntervalMs({ class: 'edge_small' }, 8000)).toBe(2000);
    expect(deliveryIntervalMs({ class: 'edge_small' }, 7996)).toBe(1999);
  });
});

describe('LatencyTracker', () => {
  it('has no value and no samples before the first sample', () => {
    const tracker = new LatencyTracker();
    expect(tracker.value).toBeUndefined();
    expect(tracker.samples).toBe(0);
  });

  it('takes the first sample as its value', () => {
    const tracker = new LatencyTracker();
    tracker.add(300);
    expect(tracker.value).toBe(300);
    expect(tracker.samples).toBe(1);
  });

  it('moves 20% of the way towards each new sample by default', () => {
    const tracker = new LatencyTracker();
    const values: number[] = [];
    for (const sample of [100, 200, 0, 100]) {
      tracker.add(sample);
      values.push(tracker.value!);
    }
    expect(values[0]).toBe(100);
    expect(values[1]).toBe(120);
    expect(values[2]).toBe(96);
    expect(values[3]).toBeCloseTo(96.8, 10);
    expect(tracker.samples).toBe(4);
  });

  it('uses the weight it is given', () => {
    const tracker = new LatencyTracker(0.5);
    tracker.add(100);
    tracker.add(200);
    expect(tracker.value).toBe(150);
    tracker.add(50);
    expect(tracker.value).toBe(100);
  });

  it('with weight 1 follows the latest sample', () => {
    const tracker = new LatencyTracker(1);
    tracker.add(100);
    tracker.add(700);
    expect(tracker.value).toBe(700);
  });

  it('converges to a constant sample', () => {
    const tracker = new LatencyTracker();
    tracker.add(0);
    for (let i = 0; i < 200; i++) tracker.add(1000);
    expect(tracker.value).toBeCloseTo(1000, 6);
  });
});
