import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { episodeKey } from '../../../src/research/sweepPlan.js';
import type { EvalEpisode, EvalSummary } from '../../../src/research/evalResult.js';
import { runEval, type EvalResult } from '../../../src/node/eval/runEval.js';
import { type StubModel, startStubModel, walkingReply } from '../../e2e/stubModel.js';
import { rawEpisodes, requireBuiltWorker, tempFolder } from '../sweep/helpers.js';

beforeAll(requireBuiltWorker);

let stub: StubModel;
beforeAll(async () => {
  // Answers by the request alone (a walk in a direction picked by the conversation's length, and a
  // word after each result), with usage: whichever thread asks, the same request gets the same answer.
  stub = await startStubModel({ respond: walkingReply });
});
afterAll(() => stub?.close());

const agents = () => ['world=policy:world', 'wanderer=policy:wanderer', `stub=model:stub/stub-model@${stub.baseUrl}`];
/** Three agents, cleo their role, on a short day: some seeds the world's own villagers finish and some not. */
const base = () => ({ world: 'village', agents: agents(), roles: ['cleo'], grid: { dayTicks: [160] } });

/** An episode without what wall time decides: how long it and its model's decisions took. */
function timeless(episode: EvalEpisode): object {
  // The recording's path names the results file it sits beside.
  const { wallMs: _, decisionMs: __, recording: ___, timeline, ...rest } = episode;
  return { ...rest, timeline: { ...timeline, decisions: timeline.decisions.map(([tick, character, _ms, input, output]) => [tick, character, input, output]) } };
}

function timelessSummary(summary: EvalSummary): object {
  return { ...summary, rows: summary.rows.map(({ latencyMs, ...row }) => ({ ...row, decisions: latencyMs?.decisions ?? 0 })) };
}

/** A recording with its first recorded move turned around: the model's answer, not the request that asked for it. */
function editFirstMove(recording: string): string {
  let edited = false;
  const turned: Record<string, string> = { north: 'south', south: 'north', east: 'west', west: 'east' };
  const lines = recording.split('\n').map((line) => {
    if (edited || line === '') return line;
    const entry = JSON.parse(line) as { type?: string; reply?: { content: Array<{ type: string; arguments?: { direction?: string } }> } };
    const move =
      entry.type === 'exchange' ? entry.reply?.content.find((block) => block.type === 'toolCall' && block.arguments?.direction !== undefined) : undefined;
    if (move === undefined) return line;
    move.arguments!.direction = turned[move.arguments!.direction!]!;
    edited = true;
    return JSON.stringify(entry);
  });
  expect(edited).toBe(true);
  return lines.join('\n');
}

const byKey = (result: EvalResult) => Object.fromEntries(result.episodes.map((episode) => [episodeKey(episode), timeless(episode)]));

describe('runEval on worker threads', () => {
  it('compares three agents over 30 seeds: the same episodes and summary on 1 and on 2 threads, resumed after a stop without running a finished episode again', async () => {
    const folder = tempFolder();
    const one = await runEval({ ...base(), seeds: '1..30', out: join(folder, 'one.jsonl'), workers: 1 });
    expect([one.jobs, one.ran, one.missing.length]).toEqual([90, 90, 0]);

    // Stopped after 40 episodes, then resumed: the second run runs only the 50 the file lacks.
    const stop = new AbortController();
    const out = join(folder, 'two.jsonl');
    const first = await runEval({ ...base(), seeds: '1..30', out, workers: 2, signal: stop.signal, progress: (done) => done >= 40 && stop.abort() });
    expect(first.missing.length).toBeGreaterThan(0);
    const keptKeys = new Set(rawEpisodes(out).map(episodeKey));
    const requestsBefore = stub.requests.length;
    const two = await runEval({ ...base(), seeds: '1..30', out, workers: 2, resume: true });
    expect(two.ran).toBe(90 - keptKeys.size);
    expect(two.missing).toEqual([]);
    // Every episode is in the file exactly once.
    const lines = rawEpisodes(out).map(episodeKey);
    expect(new Set(lines).size).toBe(90);
    expect(lines).toHaveLength(90);
    expect(stub.requests.length).toBeGreaterThan(requestsBefore);

    expect(byKey(two)).toEqual(byKey(one));
    expect(JSON.stringify(timelessSummary(two.summary))).toBe(JSON.stringify(timelessSummary(one.summary)));

    // What was measured: the world's villagers finish some short days, the wanderer none; the model decided and was charged tokens.
    const [world, wanderer, model] = one.summary.rows;
    expect(one.summary.rows.map((row) => [row.agent, row.episodes])).toEqual([
      ['world', 30],
      ['wanderer', 30],
      ['stub', 30],
    ]);
    expect(world!.success.mean).toBeGreaterThan(wanderer!.success.mean);
    expect(wanderer!.refusalsPer100).toBeGreaterThan(0);
    expect(model!.latencyMs!.decisions).toBeGreaterThan(30);
    expect(model!.tokensPerEpisode.input).toBeGreaterThan(0);
    expect(model!.callsByTool['go']).toBeGreaterThan(0);
    expect(one.summary.comparisons.map((c) => `${c.a}-${c.b}`)).toEqual(['world-wanderer', 'world-stub', 'wanderer-stub']);
    expect(one.summary.comparisons.every((c) => c.pairedSeeds === 30)).toBe(true);
    expect(one.spent.tokens).toBe(one.episodes.reduce((sum, e) => sum + e.tokens.input + e.tokens.output, 0));
  }, 240_000);

  it('stops handing out episodes when the token budget is reached, keeping what ran, and says so', async () => {
    const out = join(tempFolder(), 'budget.jsonl');
    const result = await runEval({
      ...base(),
      agents: [`stub=model:stub/stub-model@${stub.baseUrl}`],
      seeds: '1..20',
      out,
      workers: 1,
      budget: { tokens: 3_000 },
    });
    expect(result.budgetReached).toEqual({ what: 'tokens', limit: 3_000 });
    expect(result.spent.tokens).toBeGreaterThanOrEqual(3_000);
    expect(result.ran).toBeGreaterThan(0);
    expect(result.missing.length).toBe(20 - result.ran);
    expect(rawEpisodes(out)).toHaveLength(result.ran);
    // Resumed under the same budget: the file's spending counts, so nothing more runs.
    const again = await runEval({
      ...base(),
      agents: [`stub=model:stub/stub-model@${stub.baseUrl}`],
      seeds: '1..20',
      out,
      workers: 1,
      resume: true,
      budget: { tokens: 3_000 },
    });
    expect(again.ran).toBe(0);
    expect(again.budgetReached?.what).toBe('tokens');
  }, 120_000);

  it("writes each model episode its recording; --verify replays episodes with no model (a policy's from its results line), marks them verified, and catches an edited one", async () => {
    const folder = tempFolder();
    const out = join(folder, 'results.jsonl');
    const options = { ...base(), agents: ['world=policy:world', `stub=model:stub/stub-model@${stub.baseUrl}`], seeds: '1..3', out, workers: 1 };
    const ran = await runEval(options);
    for (const episode of ran.episodes)
      if (episode.agent === 'stub') expect(existsSync(join(folder, episode.recording!))).toBe(true);
      else expect(episode.recording).toBeUndefined();
    const requests = stub.requests.length;
    const verified = await runEval({ ...options, resume: true, verify: 6 });
    expect(verified.ran).toBe(0);
    expect(verified.verified).toEqual({ checked: 6, matched: 6, mismatches: [] });
    expect(stub.requests.length).toBe(requests); // not one model request: the cassettes answered
    expect(verified.episodes.every((episode) => episode.verified === true)).toBe(true);
    expect(verified.summary.rows.map((row) => row.verified)).toEqual([
      { checked: 3, matched: 3 },
      { checked: 3, matched: 3 },
    ]);

    // One model answer edited (another direction), and one policy episode's hash in the results file: both caught.
    const model = verified.episodes.find((episode) => episode.agent === 'stub' && episode.seed === 2)!;
    const modelPath = join(folder, model.recording!);
    writeFileSync(modelPath, editFirstMove(readFileSync(modelPath, 'utf8')));
    const policy = verified.episodes.find((episode) => episode.agent === 'world' && episode.seed === 1)!;
    const lines = readFileSync(out, 'utf8').split('\n');
    const at = lines.findIndex((line) => line !== '' && episodeKey(JSON.parse(line) as EvalEpisode) === episodeKey(policy));
    lines[at] = lines[at]!.replace(/"stateHash":"[0-9a-f]+"/, `"stateHash":"${'0'.repeat(32)}"`);
    writeFileSync(out, lines.join('\n'));
    const again = await runEval({ ...options, resume: true, verify: 6 });
    expect(again.verified!.matched).toBe(4);
    expect(again.verified!.mismatches.map((each) => each.key).sort()).toEqual([episodeKey(model), episodeKey(policy)].sort());
    expect(again.verified!.mismatches.find((each) => each.key === episodeKey(policy))!.why).toMatch(
      /the replay ended with state [0-9a-f]{32}, the recording with 0{32}/,
    );
    expect(again.verified!.mismatches.find((each) => each.key === episodeKey(model))!.why).toMatch(
      /the replay (asked the model something else|ended with state)/,
    );
    expect(again.episodes.filter((episode) => episode.verified === false)).toHaveLength(2);
  }, 120_000);

  it('keeps the model requests in flight to one provider within providerConcurrency, across threads', async () => {
    // Slow answers (two chunks 15 ms apart), three characters a model each, on two threads: up to six at once without a bound.
    const slow = await startStubModel({ respond: (body) => ({ ...walkingReply(body), text: 'Onwards, then.', chunkChars: 7, chunkDelayMs: 15 }) });
    try {
      const result = await runEval({
        world: 'village',
        agents: [`slow=model:stub/stub-model@${slow.baseUrl}`],
        roles: ['ada', 'bram', 'cleo'],
        seeds: '1..2',
        maxTicks: 30,
        out: join(tempFolder(), 'bounded.jsonl'),
        workers: 2,
        providerConcurrency: 1,
      });
      expect(result.missing).toEqual([]);
      expect(slow.requests.length).toBeGreaterThan(6);
      // The most requests whose times overlap: each from its arrival to its last byte.
      const overlap = Math.max(
        ...slow.requests.map((a) => slow.requests.filter((b) => b.startedAt < (a.endedAt ?? Infinity) && a.startedAt < (b.endedAt ?? Infinity)).length),
      );
      expect(overlap).toBe(1);
    } finally {
      await slow.close();
    }
  }, 120_000);

  it('refuses, before any episode, an unknown policy, role or agent kind, a model it cannot start, and two agents of one name', async () => {
    const out = join(tempFolder(), 'never.jsonl');
    const eval_ = (options: Partial<Parameters<typeof runEval>[0]>) => runEval({ ...base(), seeds: '1..2', out, workers: 1, ...options });
    await expect(eval_({ agents: ['x=policy:dancer'] })).rejects.toThrow(/has no policy "dancer" for the agent x; it has policy:world, policy:wanderer/);
    await expect(eval_({ roles: ['zed'] })).rejects.toThrow(/has no character "zed" to play/);
    await expect(eval_({ agents: ['p=pi:claude'] })).rejects.toThrow(/an agent spec is policy:NAME/);
    await expect(eval_({ agents: ['d=pi-daemon:/nowhere/pi.sock'] })).rejects.toThrow(
      /the agent d \(pi-daemon:\/nowhere\/pi.sock\) cannot start: no socket at \/nowhere\/pi.sock; start the daemon with `pi-daemon serve --socket/,
    );
    await expect(eval_({ agents: ['p=pi:a/b'], pi: { bin: '/nowhere/pi' } })).rejects.toThrow(
      /the agent p \(pi:a\/b\) cannot start: no pi at \/nowhere\/pi \(--pi-bin\)/,
    );
    await expect(eval_({ agents: ['m=model:openai/gpt-4o-mini'] })).rejects.toThrow(
      /the agent m \(model:openai\/gpt-4o-mini\) cannot start: .*no key for openai/,
    );
    await expect(eval_({ agents: ['a=policy:world', 'a=policy:wanderer'] })).rejects.toThrow(/two agents are named "a"/);
    await expect(eval_({ agents: [] })).rejects.toThrow(/name at least one agent/);
    await expect(eval_({ budget: { usd: -1 } })).rejects.toThrow(/the usd budget must be a number > 0/);
    expect(() => readFileSync(out)).toThrow();
  });
});
