// What an evaluation measures: one line per episode (an agent under test playing a world's roles,
// the rest played by the world's own policies), and the summary made from those lines — per agent
// and params, the world's success with its interval, cost, latency and rule-breaking, and the agents
// compared pair by pair. Plain JSON, so a results file, a report and a script all read the same.

import type { EpisodeSummary } from './episode.js';
import type { Params } from './world.js';

/** How an agent under test failed an episode: it never stops the others' episodes. */
export type AgentFailureKind = 'crashed' | 'hung' | 'disconnected' | 'garbage';

export interface AgentFailure {
  kind: AgentFailureKind;
  /** The tick it was found at. */
  tick: number;
  /** What happened, in a line (never a key or token). */
  reason: string;
}

/**
 * What happened when, for the decision timeline: `characters` and `tools` are the lanes and names the
 * rows point into. A call row is `[tick, character, tool, refusal code or '']`; a decision row (a model
 * agent's) is `[tick, character, wall ms, input tokens, output tokens]`.
 */
export interface EvalTimeline {
  characters: string[];
  tools: string[];
  calls: Array<[number, number, number, string]>;
  decisions: Array<[number, number, number, number, number]>;
  /** Rows dropped past the bound (maxTimelineRows). */
  dropped: number;
}

/** One episode of an evaluation: the sweep's episode summary and what the eval adds. */
export interface EvalEpisode extends EpisodeSummary {
  /** The agent under test, by the name it was given (`--agent NAME=SPEC`). */
  agent: string;
  /** Its spec as given (`policy:world`, `model:local/smol`, `cmd:…`). */
  agentSpec: string;
  /** The characters it played. */
  roles: string[];
  /** 1 when every role met the world's goal for it, else 0. */
  success: number;
  /** Per role: 1 when its goal was met. */
  goals: Record<string, number>;
  /** The tick the last role met its goal; null without success. */
  ticksToSuccess: number | null;
  /** The sum of the roles' scores (the world's score, else the goals met). */
  score: number;
  /** The roles' calls and refusals only (the episode's `calls`/`refusals` count every character). */
  roleCalls: { total: number; byTool: Record<string, number> };
  roleRefusals: { total: number; byCode: Record<string, number> };
  /** Of the roles' refusals: inputs their schema refused, calls over a rate limit or quota, calls over the session's budget. */
  ruleHits: { invalidInput: number; quota: number; budget: number };
  /** Decisions the agent under test made (model turns; 0 for a policy, which decides on news without a measure). */
  decisions: number;
  /** Wall time of each decision, ms (bounded: the first maxTimelineRows). */
  decisionMs: number[];
  tokens: { input: number; output: number };
  costUsd: number;
  /** Set when the agent under test failed in this episode. */
  failure?: AgentFailure;
  /** The recording of the episode, when the eval wrote recordings (a path relative to the results file). */
  recording?: string;
  /** Set by `--verify`: the recording replayed without the agent gave the same state hash. */
  verified?: boolean;
  timeline: EvalTimeline;
}

/** A mean with its 95% interval. */
export interface Interval {
  mean: number;
  low: number;
  high: number;
  n: number;
}

/** Per agent and params: what the eval measured over the seeds. */
export interface EvalRow {
  agent: string;
  agentSpec: string;
  params: Params;
  episodes: number;
  /** Success rate with its Wilson 95% interval. */
  success: Interval;
  /** Score per episode, with a t 95% interval. */
  score: Interval;
  /** Over the successful episodes; null when none succeeded. */
  ticksToSuccess: { mean: number; p50: number } | null;
  /** The roles' calls per episode, and by tool. */
  callsPerEpisode: number;
  callsByTool: Record<string, number>;
  /** Rule-breaking: refusals per 100 calls, all and by code; the invalid inputs, quota and budget hits among them. */
  refusalsPer100: number;
  refusalsByCode: Record<string, number>;
  invalidInputs: number;
  quotaHits: number;
  budgetOverruns: number;
  /** Decision wall time over every decision of the agent, ms; null with none. */
  latencyMs: { p50: number; p95: number; decisions: number } | null;
  tokensPerEpisode: { input: number; output: number };
  costPerEpisode: number;
  /** null when no episode succeeded. */
  costPerSuccess: number | null;
  /** Episodes the agent failed, by kind. */
  failures: Partial<Record<AgentFailureKind, number>>;
  /** Of the episodes with a recording checked by --verify: how many replayed to the same hash. */
  verified: { checked: number; matched: number };
  /**
   * Glicko-2 rating over the seeds the agent shared with other agents, each a race ranked by score
   * (src/node/eval/ratings.ts); value ± 2·rd is about a 95% interval. null with no seed shared.
   */
  rating: { value: number; rd: number; seeds: number } | null;
}

/** Two agents on the same params: the first minus the second. */
export interface EvalComparison {
  params: Params;
  a: string;
  b: string;
  /** Difference in success rate, and Cohen's h for it. */
  successDiff: number;
  cohensH: number;
  /** Difference in mean score, and Cohen's d for it (0 when both spreads are 0). */
  scoreDiff: number;
  cohensD: number;
  /** Seeds both ran: where a paired comparison stands. */
  pairedSeeds: number;
  /** Of those, the seeds where a succeeded and b did not, and the other way round. */
  aOnly: number;
  bOnly: number;
}

export interface EvalSummary {
  world: string;
  /** Every agent, in the order given. */
  agents: Array<{ name: string; spec: string }>;
  rows: EvalRow[];
  comparisons: EvalComparison[];
  /** Episodes in the summary. */
  episodes: number;
}
