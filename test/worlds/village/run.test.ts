// The village run with a chat agent driving Cleo through the pilot: what each decision cost shows in
// the summary (under the wall-time heading: a model's timings vary from run to run) and in the
// recording, as decision lines that `aicc validate` accepts and `aicc replay` passes over. The
// "model" is scripted and reports usage; the day runs in real time, so it is kept short.

import { describe, expect, it } from 'vitest';
import { WALL_TIME_HEADING } from '../../../src/adapters/headless/summary.js';
import { parseRecording } from '../../../src/recording/recording.js';
import { replay } from '../../../src/recording/replay.js';
import { runVillage } from '../../../src/worlds/village/run.js';
import { worldBuilders } from '../../../src/node/cli/replayWorlds.js';
import { aicc, SignallingBackend } from '../../agent/pilot/fakeBackend.js';

describe('a village day with a piloted villager', () => {
  it('tells what the decisions cost: a summary line under the wall-time heading, a recording line per decision', async () => {
    const backend: SignallingBackend = new SignallingBackend([], () => {
      backend.signal({ type: 'token' });
      backend.signal({ type: 'usage', inputTokens: 1000, outputTokens: 20, costUsd: 0.001 });
      return aicc({ tool: 'look' });
    });
    let text = '';
    const run = await runVillage({ ticks: 12, pilot: { character: 'cleo', backend }, record: (line) => (text += line) });
    expect(run.recordingProblems).toEqual([]);
    const costs = run.pilot!.costs;
    expect(costs.decisions).toBeGreaterThanOrEqual(2);
    // The "model" streams and reports usage as its reply is read: every decision that got as far has them.
    const answered = costs.recent.filter((c) => c.replyMs !== undefined);
    expect(answered.filter((c) => c.ended === 'replied').length).toBeGreaterThanOrEqual(1);
    for (const c of answered) expect(c).toMatchObject({ firstTokenMs: c.replyMs, inputTokens: 1000, outputTokens: 20, costUsd: 0.001, calls: 1 });
    const n = answered.length;
    expect(costs).toMatchObject({ inputTokens: 1000 * n, outputTokens: 20 * n, withUsage: n });

    const heading = run.summaryLines.indexOf(WALL_TIME_HEADING);
    expect(heading).toBeGreaterThan(0);
    expect(run.summaryLines.slice(heading + 1).at(-1)).toMatch(
      new RegExp(
        `^decisions \\(pilot\\): ${costs.decisions}, TTFT mean [\\d.]+ ms, p50 [\\d.]+ ms.*, first call mean [\\d.]+ ms.*, total mean [\\d.]+ ms.*, tokens in/out ${1000 * n}/${20 * n}, cost \\$${(0.001 * n).toPrecision(3)}$`,
      ),
    );
    expect(run.summaryLines.slice(0, heading).join('\n')).not.toContain('decisions (pilot)');

    const recording = parseRecording(text);
    expect(recording.decisions.map((d) => d.decision)).toEqual(costs.recent);
    expect(recording.decisions.every((d) => d.character === 'cleo')).toBe(true);
    const report = await replay(recording, worldBuilders['village']!);
    expect(report.mismatches).toEqual([]);
  }, 20_000);
});
