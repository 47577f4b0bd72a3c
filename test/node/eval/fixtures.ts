// Made-up but consistent evaluation results for the report's tests and bench: EvalEpisode objects
// built by hand from a seeded random source (agents × params × seeds, with successes, failures,
// refusals by code and model decisions), and an EvalSummary computed from exactly those episodes
// by the eval's own summarizeEval (tested on its own in evalSummary.test.ts), so every figure the report shows can be checked
// against the summary it was given.

import { summarizeEval } from '../../../src/node/eval/evalSummary.js';
import type { EvalEpisode, EvalSummary } from '../../../src/research/evalResult.js';
import type { Params } from '../../../src/research/world.js';

export interface FixtureAgent {
  name: string;
  spec: string;
  /** Chance of success per episode. */
  skill: number;
  /** Model agents decide (with wall ms, tokens and cost); policies do not. */
  model: boolean;
  /** Chance that a call is refused. */
  sloppiness: number;
  /** Chance that the agent fails (crashes or hangs) in an episode. */
  flakiness: number;
  /** Mean wall ms of a decision. */
  decisionMs: number;
  /** USD per 1,000 tokens in and out. */
  pricePer1k: number;
}

export const FIXTURE_AGENTS: FixtureAgent[] = [
  { name: 'scripted', spec: 'policy:village', skill: 0.55, model: false, sloppiness: 0.04, flakiness: 0, decisionMs: 0, pricePer1k: 0 },
  { name: 'smol', spec: 'model:local/smol', skill: 0.3, model: true, sloppiness: 0.22, flakiness: 0.1, decisionMs: 180, pricePer1k: 0.0004 },
  { name: 'frontier', spec: 'model:openai/gpt-4o-mini', skill: 0.85, model: true, sloppiness: 0.06, flakiness: 0.03, decisionMs: 900, pricePer1k: 0.003 },
];

export const FIXTURE_PARAMS: Params[] = [{ dayTicks: 190 }, { dayTicks: 600 }];

const CHARACTERS = ['cleo', 'wren', 'miller'];
const TOOLS = ['look', 'go', 'take', 'say', 'give'];
/** Refusal codes as the capsule gives them: the first two any agent hits, the rest mostly a model's. */
const CODES = ['invalid_input', 'rate_limited', 'tool_unknown', 'capability_missing', 'quota_exhausted'];

/** mulberry32: a small seeded source, so the fixture is the same on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** One episode of `agent` on `params` and `seed`. */
export function makeEpisode(agent: FixtureAgent, params: Params, seed: number, options: { recording?: boolean } = {}): EvalEpisode {
  const next = random(hash(`${agent.name}|${JSON.stringify(params)}|${seed}`));
  const maxTicks = Number(params.dayTicks ?? 190);
  const harder = maxTicks > 300 ? 0.1 : 0;
  const failed = next() < agent.flakiness;
  const success = !failed && next() < Math.max(0, agent.skill - harder) ? 1 : 0;
  const ticks = success ? Math.round(maxTicks * (0.35 + 0.5 * next())) : failed ? Math.round(maxTicks * next()) : maxTicks;
  const calls: EvalEpisode['timeline']['calls'] = [];
  const decisions: EvalEpisode['timeline']['decisions'] = [];
  const decisionMs: number[] = [];
  const byTool: Record<string, number> = {};
  const byCode: Record<string, number> = {};
  let tokensIn = 0;
  let tokensOut = 0;
  for (let tick = 1; tick <= ticks; tick++) {
    for (let character = 0; character < CHARACTERS.length; character++) {
      // The agent under test plays cleo (0); the world's own policies play the others, less often.
      if (next() > (character === 0 ? 0.18 : 0.07)) continue;
      if (character === 0 && agent.model) {
        const ms = Math.round(agent.decisionMs * (0.5 + next() + (next() < 0.05 ? 3 : 0)));
        const input = 600 + Math.round(next() * 900);
        const output = 20 + Math.round(next() * 80);
        decisions.push([tick, character, ms, input, output]);
        decisionMs.push(ms);
        tokensIn += input;
        tokensOut += output;
      }
      const tool = Math.floor(next() * TOOLS.length);
      const refused = next() < (character === 0 ? agent.sloppiness : 0.02);
      const code = refused ? CODES[Math.floor(next() * (character === 0 && agent.model ? CODES.length : 2))]! : '';
      calls.push([tick, character, tool, code]);
      if (character === 0) {
        byTool[TOOLS[tool]!] = (byTool[TOOLS[tool]!] ?? 0) + 1;
        if (refused) byCode[code] = (byCode[code] ?? 0) + 1;
      }
    }
  }
  const roleCalls = Object.values(byTool).reduce((a, b) => a + b, 0);
  const roleRefusals = Object.values(byCode).reduce((a, b) => a + b, 0);
  const score = success + Math.round(next() * 4) / 2;
  const costUsd = ((tokensIn + tokensOut) / 1000) * agent.pricePer1k;
  return {
    world: 'village',
    seed,
    params,
    stop: success ? 'goal' : failed ? 'agent_failed' : 'tick_limit',
    ticks,
    metrics: { delivered: success },
    scores: { cleo: score },
    calls: { total: calls.length, byTool: countBy(calls.map((c) => TOOLS[c[2]]!)) },
    refusals: { total: calls.filter((c) => c[3] !== '').length, byCode: countBy(calls.flatMap((c) => (c[3] === '' ? [] : [c[3]]))) },
    decisionLatencyMs: { cleo: null, miller: null, wren: null },
    stateHash: (hash(`${agent.name}${seed}${ticks}`) >>> 0).toString(16).padStart(8, '0'),
    wallMs: 10 + ticks / 10,
    agent: agent.name,
    agentSpec: agent.spec,
    roles: ['cleo'],
    success,
    goals: { cleo: success },
    ticksToSuccess: success ? ticks : null,
    score,
    roleCalls: { total: roleCalls, byTool },
    roleRefusals: { total: roleRefusals, byCode },
    ruleHits: { invalidInput: byCode.invalid_input ?? 0, quota: (byCode.rate_limited ?? 0) + (byCode.quota_exhausted ?? 0), budget: 0 },
    decisions: decisions.length,
    decisionMs,
    tokens: { input: tokensIn, output: tokensOut },
    costUsd,
    ...(failed && { failure: { kind: next() < 0.5 ? 'crashed' : 'hung', tick: ticks, reason: 'no reply within the deadline' } }),
    ...(options.recording && { recording: `recordings/${agent.name}/seed ${seed}.ndjson`, verified: true }),
    timeline: { characters: CHARACTERS, tools: TOOLS, calls, decisions, dropped: 0 },
  };
}

function countBy(items: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[item] = (counts[item] ?? 0) + 1;
  return counts;
}

export interface FixtureOptions {
  agents?: FixtureAgent[];
  params?: Params[];
  seeds?: number;
  recordings?: boolean;
}

/** Every agent on every params and seed 1..seeds (default 10), and its summary. */
export function evalFixture(options: FixtureOptions = {}): { summary: EvalSummary; episodes: EvalEpisode[] } {
  const agents = options.agents ?? FIXTURE_AGENTS;
  const paramsList = options.params ?? FIXTURE_PARAMS;
  const seeds = options.seeds ?? 10;
  const episodes: EvalEpisode[] = [];
  for (const agent of agents)
    for (const params of paramsList)
      for (let seed = 1; seed <= seeds; seed++) episodes.push(makeEpisode(agent, params, seed, { recording: options.recordings ?? false }));
  return { summary: summarize('village', agents, paramsList, episodes), episodes };
}

/** The summary of `episodes`, the way an evaluation makes it. */
export function summarize(world: string, agents: Array<{ name: string; spec: string }>, paramsList: Params[], episodes: EvalEpisode[]): EvalSummary {
  return summarizeEval({ world, agents, params: paramsList, episodes });
}
