// Research runs, browser-safe: a world as a module (defineWorld), one seeded episode with its
// metrics and state hash (runEpisode), a step API for one's own agent loop (StepEnv), and what sweeps
// share — the plan of jobs and the aggregate. Sweeps on worker threads and on BullMQ are Node-only
// (aicc-capsule/node, aicc-capsule/queue).

export { defineWorld } from './world.js';
export { runEpisode } from './episode.js';
export { StepEnv, MAX_OBSERVED_EVENTS } from './stepEnv.js';
export { stateHash } from './stateHash.js';
export { planSweep, parseSeeds, jobKey, jobId, paramsKey, MAX_SEEDS } from './sweepPlan.js';
export { aggregate, formatAggregate } from './aggregate.js';

export type { World, WorldDefinition, EpisodeWorld, EpisodeSetup, AgentSession, PolicyContext, Params, ParamValue, JsonValue } from './world.js';
export type { EpisodeOptions, EpisodeSummary, EpisodeStop } from './episode.js';
export type { StepEnvOptions, StepResult } from './stepEnv.js';
export type { SweepJob } from './sweepPlan.js';
export type { AggregateRow, Stat } from './aggregate.js';
