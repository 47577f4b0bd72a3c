// Headless runs: a seeded random source, a runner that steps a ManualClock capsule as fast as the
// machine allows while in-process agents react, and a summary of what happened. Browser-safe.

export { SeededRandom, cyrb128 } from './random.js';
export { runHeadless, yieldToAgents, createYield } from './runner.js';
export { RunSummary, WALL_TIME_HEADING } from './summary.js';

export type { Seed } from './random.js';
export type { HeadlessOptions, HeadlessResult, YieldGlobals } from './runner.js';
export type { RunSummaryJSON } from './summary.js';
