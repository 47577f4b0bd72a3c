// Research runs, browser-safe: a world as a module (defineWorld), one seeded episode with its
// metrics and state hash (runEpisode), a step API for one's own agent loop (StepEnv), what sweeps
// share — the plan of jobs and the aggregate — and one episode of an eval with the agent under test
// seated in its roles (runEvalEpisode). Sweeps and evals on worker threads and on BullMQ are
// Node-only (aicc-capsule/node, aicc-capsule/queue).

export { defineWorld } from './world.js';
export { runEpisode } from './episode.js';
export { StepEnv, MAX_OBSERVED_EVENTS } from './stepEnv.js';
export { stateHash } from './stateHash.js';
export { planSweep, parseSeeds, jobKey, episodeKey, jobId, paramsKey, MAX_SEEDS } from './sweepPlan.js';
export { aggregate, formatAggregate } from './aggregate.js';
export { runEvalEpisode, EVAL_EPISODE_DEFAULTS } from './evalEpisode.js';
export { policyAgent, modelAgent, chatAgent, WORLD_POLICY } from './evalAgents.js';
export { ServedEnv, ServeError } from './servedEnv.js';

export type {
  World,
  WorldDefinition,
  EpisodeWorld,
  EpisodeSetup,
  AgentSession,
  PolicyContext,
  CharacterBrief,
  Params,
  ParamValue,
  JsonValue,
  VectorFace,
} from './world.js';
export type { Face, ServedReset, ServedStep, ToolAction, ToolsObservation, Observation, CallReport, ServeErrorCode } from './servedEnv.js';
export type { EpisodeOptions, EpisodeSummary, EpisodeStop } from './episode.js';
export type { StepEnvOptions, StepResult } from './stepEnv.js';
export type { SweepJob } from './sweepPlan.js';
export type { AggregateRow, Stat } from './aggregate.js';
export type { EvalAgent, EvalSeat, SeatedAgent, EvalDecision, EvalEpisodeOptions, WallClock } from './evalEpisode.js';
export type { ModelAgentOptions, ChatAgentOptions, OpenedChat } from './evalAgents.js';
export type { EvalEpisode, EvalSummary, EvalRow, EvalComparison, EvalTimeline, AgentFailure, AgentFailureKind, Interval } from './evalResult.js';
