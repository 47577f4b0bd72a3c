// What an eval's episodes come to, per agent and params, and each pair of agents compared: success
// with its Wilson interval, score with Student's t interval, percentiles, and effect sizes (Cohen's h
// for success rates, d for scores), and Glicko-2 ratings over the seeds (ratings.ts). The
// distributions are jStat's; the rest is counting. The same
// episodes in the same order give the same summary, byte for byte, on any machine.

import { createRequire } from 'node:module';
import { paramsKey } from '../../research/sweepPlan.js';
import type { EvalComparison, EvalEpisode, EvalRow, EvalSummary, Interval } from '../../research/evalResult.js';
import type { Params } from '../../research/world.js';
import { rateAgents } from './ratings.js';

/** The part of jStat used here (its documented API; the package ships no types). */
interface JStat {
  normal: { inv(p: number, mean: number, sd: number): number };
  studentt: { inv(p: number, dof: number): number };
}

let jStat: JStat | undefined;

function stats(): JStat {
  // Loaded on first use: nothing runs on import. jStat is CommonJS; require is its documented seam.
  return (jStat ??= (createRequire(import.meta.url)('jstat') as { jStat: JStat }).jStat);
}

export interface SummaryInput {
  world: string;
  /** Every agent, in the order rows and comparisons list them. */
  agents: ReadonlyArray<{ name: string; spec: string }>;
  /** The params combinations in the order rows list them; default: as the episodes first show them. */
  params?: readonly Params[];
  episodes: readonly EvalEpisode[];
}

/** The summary of an eval's episodes. */
export function summarizeEval(input: SummaryInput): EvalSummary {
  const paramsList = input.params ?? firstSeen(input.episodes);
  const groups = new Map<string, EvalEpisode[]>();
  for (const episode of input.episodes) {
    const key = `${episode.agent}\n${paramsKey(episode.params)}`;
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = []));
    group.push(episode);
  }
  const groupOf = (agent: string, params: Params): EvalEpisode[] | undefined => groups.get(`${agent}\n${paramsKey(params)}`);
  const names = input.agents.map((agent) => agent.name);
  const ratings = new Map(
    paramsList.map(
      (params) =>
        [
          paramsKey(params),
          rateAgents(
            names,
            names.flatMap((name) => groupOf(name, params) ?? []),
          ),
        ] as const,
    ),
  );
  const rows: EvalRow[] = [];
  for (const agent of input.agents)
    for (const params of paramsList) {
      const episodes = groupOf(agent.name, params);
      if (episodes !== undefined) rows.push({ ...row(agent, params, episodes), rating: ratings.get(paramsKey(params))!.get(agent.name) ?? null });
    }
  const comparisons: EvalComparison[] = [];
  for (const params of paramsList)
    for (let i = 0; i < input.agents.length; i++)
      for (let j = i + 1; j < input.agents.length; j++) {
        const a = input.agents[i]!.name;
        const b = input.agents[j]!.name;
        const as = groupOf(a, params);
        const bs = groupOf(b, params);
        if (as !== undefined && bs !== undefined) comparisons.push(compare(params, a, b, as, bs));
      }
  return { world: input.world, agents: input.agents.map(({ name, spec }) => ({ name, spec })), rows, comparisons, episodes: input.episodes.length };
}

function firstSeen(episodes: readonly EvalEpisode[]): Params[] {
  const seen = new Map<string, Params>();
  for (const episode of episodes) {
    const key = paramsKey(episode.params);
    if (!seen.has(key)) seen.set(key, episode.params);
  }
  return [...seen.values()];
}

function row(agent: { name: string; spec: string }, params: Params, episodes: readonly EvalEpisode[]): Omit<EvalRow, 'rating'> {
  const n = episodes.length;
  const successes = sum(episodes, (e) => e.success);
  const won = episodes.flatMap((e) => (e.ticksToSuccess === null ? [] : [e.ticksToSuccess])).sort(ascending);
  const calls = sum(episodes, (e) => e.roleCalls.total);
  const refusals = sum(episodes, (e) => e.roleRefusals.total);
  const ms = episodes.flatMap((e) => e.decisionMs).sort(ascending);
  const cost = sum(episodes, (e) => e.costUsd);
  const failures: EvalRow['failures'] = {};
  for (const e of episodes) if (e.failure !== undefined) failures[e.failure.kind] = (failures[e.failure.kind] ?? 0) + 1;
  const checked = episodes.filter((e) => e.verified !== undefined);
  return {
    agent: agent.name,
    agentSpec: agent.spec,
    params,
    episodes: n,
    success: wilson(successes, n),
    score: tInterval(episodes.map((e) => e.score)),
    ticksToSuccess: won.length === 0 ? null : { mean: mean(won), p50: quantile(won, 0.5) },
    callsPerEpisode: calls / n,
    callsByTool: merged(episodes.map((e) => e.roleCalls.byTool)),
    refusalsPer100: calls === 0 ? 0 : (refusals / calls) * 100,
    refusalsByCode: merged(episodes.map((e) => e.roleRefusals.byCode)),
    invalidInputs: sum(episodes, (e) => e.ruleHits.invalidInput),
    quotaHits: sum(episodes, (e) => e.ruleHits.quota),
    budgetOverruns: sum(episodes, (e) => e.ruleHits.budget),
    latencyMs: ms.length === 0 ? null : { p50: quantile(ms, 0.5), p95: quantile(ms, 0.95), decisions: ms.length },
    tokensPerEpisode: { input: mean(episodes.map((e) => e.tokens.input)), output: mean(episodes.map((e) => e.tokens.output)) },
    costPerEpisode: cost / n,
    costPerSuccess: successes === 0 ? null : cost / successes,
    failures,
    verified: { checked: checked.length, matched: checked.filter((e) => e.verified === true).length },
  };
}

function compare(params: Params, a: string, b: string, as: readonly EvalEpisode[], bs: readonly EvalEpisode[]): EvalComparison {
  const pa = mean(as.map((e) => e.success));
  const pb = mean(bs.map((e) => e.success));
  const sa = as.map((e) => e.score);
  const sb = bs.map((e) => e.score);
  const pooled = Math.sqrt(((sa.length - 1) * variance(sa) + (sb.length - 1) * variance(sb)) / Math.max(1, sa.length + sb.length - 2));
  const bySeed = new Map(bs.map((e) => [e.seed, e]));
  let pairedSeeds = 0;
  let aOnly = 0;
  let bOnly = 0;
  for (const ea of as) {
    const eb = bySeed.get(ea.seed);
    if (eb === undefined) continue;
    pairedSeeds++;
    if (ea.success > eb.success) aOnly++;
    if (eb.success > ea.success) bOnly++;
  }
  return {
    params,
    a,
    b,
    successDiff: pa - pb,
    cohensH: 2 * Math.asin(Math.sqrt(pa)) - 2 * Math.asin(Math.sqrt(pb)),
    scoreDiff: mean(sa) - mean(sb),
    cohensD: pooled === 0 ? 0 : (mean(sa) - mean(sb)) / pooled,
    pairedSeeds,
    aOnly,
    bOnly,
  };
}

/** Wilson's 95% score interval for a rate: sound at 0 and 1 and for few episodes, where p ± z·se is not. */
export function wilson(successes: number, n: number): Interval {
  if (n === 0) return { mean: 0, low: 0, high: 1, n };
  const z = stats().normal.inv(0.975, 0, 1);
  const p = successes / n;
  const denominator = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denominator;
  return { mean: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half), n };
}

/** The mean with Student's t 95% interval; one value has no spread to speak of, so its interval is itself. */
export function tInterval(values: readonly number[]): Interval {
  const m = mean(values);
  const n = values.length;
  if (n < 2) return { mean: m, low: m, high: m, n };
  const half = stats().studentt.inv(0.975, n - 1) * Math.sqrt(variance(values) / n);
  return { mean: m, low: m - half, high: m + half, n };
}

/** Linear interpolation between the closest ranks (R's type 7, what spreadsheets do). */
export function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low]! + (sorted[Math.min(low + 1, sorted.length - 1)]! - sorted[low]!) * (at - low);
}

function mean(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return values.length === 0 ? 0 : total / values.length;
}

function variance(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const m = mean(values);
  let total = 0;
  for (const value of values) total += (value - m) ** 2;
  return total / (values.length - 1);
}

function sum<T>(items: readonly T[], of: (item: T) => number): number {
  let total = 0;
  for (const item of items) total += of(item);
  return total;
}

function merged(records: ReadonlyArray<Readonly<Record<string, number>>>): Record<string, number> {
  const out = new Map<string, number>();
  for (const record of records) for (const [key, value] of Object.entries(record)) out.set(key, (out.get(key) ?? 0) + value);
  return Object.fromEntries([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const ascending = (a: number, b: number): number => a - b;
