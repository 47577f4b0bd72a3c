// The evaluation report (src/node/eval/report.ts): how long renderReport takes for 10,000 episodes,
// against the target of 5 s.
//
// What it measures: the wall time of one renderReport call (the Node side only: choosing the
// timelines, sampling the decision times, the JSON and the HTML string; not the browser drawing it)
// on 10,000 made-up but consistent episodes (test/node/eval/fixtures.ts: 3 agents × 2 params, about
// 100 calls and up to 120 model decisions an episode). One render first reads the charting libraries'
// browser builds from node_modules (cached for the process) and warms the JIT; then the median of 3.
// The baseline is no peer but the target itself, 5,000 ms: the ratio is time ÷ target (≤ 1 meets it).

import { renderReport } from '../src/node/eval/report.js';
import { FIXTURE_AGENTS, FIXTURE_PARAMS, evalFixture, summarize } from '../test/node/eval/fixtures.js';
import type { BenchOptions, BenchRow } from './row.js';

const TARGET_MS = 5000;

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const count = options.quick ? 300 : 10_000;
  const perCell = Math.ceil(count / (FIXTURE_AGENTS.length * FIXTURE_PARAMS.length));
  const episodes = evalFixture({ seeds: perCell, recordings: true }).episodes.slice(0, count);
  const summary = summarize('village', FIXTURE_AGENTS, FIXTURE_PARAMS, episodes);
  const input = { summary, episodes };
  const bytes = renderReport(input).length; // reads the libraries once, warms up
  const times: number[] = [];
  for (let i = 0; i < (options.quick ? 1 : 3); i++) {
    const started = performance.now();
    renderReport(input);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const ms = times[Math.floor(times.length / 2)]!;
  const decisions = episodes.reduce((sum, e) => sum + e.decisionMs.length, 0);
  return [
    {
      name: `eval report: renderReport, ${count.toLocaleString('en-US')} episodes (vs 5 s target)`,
      capsule: ms,
      baseline: TARGET_MS,
      unit: 'ms',
      ratio: ms / TARGET_MS,
      note: `median of ${times.length}; ${decisions.toLocaleString('en-US')} decisions (latency samples capped at 5,000 a row), 40 timelines embedded; HTML ${(bytes / 1e6).toFixed(2)} MB; target ≤ ${TARGET_MS.toLocaleString('en-US')} ms (ratio ≤ 1)`,
    },
  ];
}
