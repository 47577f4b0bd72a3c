// The report of an evaluation: one self-contained HTML file a reader opens from disk, with no network
// and no build step. Its charts are Chart.js 4 with chartjs-chart-error-bars (success with its
// interval) and @sgratzl/chartjs-chart-boxplot (decision latency); their browser (UMD) builds are read
// from node_modules at render time — each package's documented `unpkg` file — and inlined. The data
// goes in as one JSON script block (`<` escaped, so no episode text can end it), and a page script
// written by hand in plain DOM code draws the charts, the sortable tables and the per-character
// decision timelines; every string from the data reaches the DOM through textContent or setAttribute.
//
// The page says `document.body.dataset.ready = 'true'` when everything is drawn, or sets
// `document.body.dataset.error` to the message, so a test (or a screenshot tool) can wait for it.
// Rendering is linear in the episodes and embeds only what the page draws: the summary, up to
// `timelines` chosen timelines, and per row at most LATENCY_SAMPLES_PER_ROW decision times.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { EvalEpisode, EvalSummary, EvalTimeline } from '../../research/evalResult.js';
import { paramsKey } from '../../research/sweepPlan.js';
import type { Params } from '../../research/world.js';
import { REPORT_SCRIPT, REPORT_STYLE } from './reportPage.js';

export interface ReportInput {
  summary: EvalSummary;
  episodes: readonly EvalEpisode[];
  /** The page's title; default `Evaluation: <world>`. */
  title?: string;
  /** How many episodes get a decision timeline, chosen evenly across agents; default DEFAULT_REPORT_TIMELINES. */
  timelines?: number;
}

export const DEFAULT_REPORT_TIMELINES = 40;
/** Decision times embedded per row for the latency chart, taken evenly when there are more. */
export const LATENCY_SAMPLES_PER_ROW = 5000;

/** The charting libraries, in load order, and the global each browser build defines. */
const LIBRARIES = [
  { name: 'chart.js', global: 'Chart' },
  { name: 'chartjs-chart-error-bars', global: 'ChartErrorBars' },
  { name: '@sgratzl/chartjs-chart-boxplot', global: 'ChartBoxPlot' },
] as const;

/** One chosen episode's timeline and what its heading says. */
interface TimelineData {
  agent: string;
  agentSpec: string;
  seed: number;
  params: Params;
  success: number;
  ticks: number;
  stop: string;
  recording?: string;
  failure?: string;
  timeline: EvalTimeline;
}

interface ReportData {
  title: string;
  world: string;
  agents: Array<{ name: string; spec: string }>;
  episodes: number;
  rows: EvalSummary['rows'];
  comparisons: EvalSummary['comparisons'];
  /** Per row (same index): decision ms, rounded to 0.1 ms, at most `cap` of `totals[i]`. */
  latency: { cap: number; samples: number[][]; totals: number[] };
  timelines: TimelineData[];
}

/** The report as one HTML string. */
export function renderReport(input: ReportInput): string {
  const { summary, episodes } = input;
  const wanted = input.timelines ?? DEFAULT_REPORT_TIMELINES;
  const count = Number.isFinite(wanted) ? Math.max(0, Math.floor(wanted)) : DEFAULT_REPORT_TIMELINES;
  const title = input.title ?? `Evaluation: ${summary.world}`;
  const data: ReportData = {
    title,
    world: summary.world,
    agents: summary.agents.map(({ name, spec }) => ({ name, spec })),
    episodes: summary.episodes,
    rows: summary.rows,
    comparisons: summary.comparisons,
    latency: latencySamples(summary, episodes, LATENCY_SAMPLES_PER_ROW),
    timelines: chooseTimelines(summary, episodes, count).map(timelineData),
  };
  const json = JSON.stringify(data).replace(/</g, '\\u003c');
  const scripts = libraries()
    .map((library) => `<script data-library="${library.name}">\n${library.source}\n</script>`)
    .join('\n');
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${REPORT_STYLE}</style>`,
    '</head>',
    '<body>',
    '<main id="report"><p id="error" class="error" hidden></p></main>',
    `<script type="application/json" id="data">${json}</script>`,
    scripts,
    `<script>${REPORT_SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** Writes the report to `path`, making its folder. */
export function writeReport(path: string, input: ReportInput): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, renderReport(input));
}

/**
 * Up to `count` episodes for timelines, spread evenly: each agent (in the summary's order, then any
 * other in order of first appearance) gets an equal share — what one cannot use goes to the others —
 * taken evenly over its episodes sorted by params and seed. The result is in that same order.
 */
export function chooseTimelines(summary: EvalSummary, episodes: readonly EvalEpisode[], count: number): EvalEpisode[] {
  if (count <= 0 || episodes.length === 0) return [];
  const byAgent = new Map<string, EvalEpisode[]>();
  for (const agent of summary.agents) byAgent.set(agent.name, []);
  for (const episode of episodes) {
    let list = byAgent.get(episode.agent);
    if (list === undefined) byAgent.set(episode.agent, (list = []));
    list.push(episode);
  }
  const groups = [...byAgent.values()].filter((list) => list.length > 0);
  const quota = groups.map(() => 0);
  let left = Math.min(count, episodes.length);
  while (left > 0) {
    const open = groups.flatMap((list, i) => (quota[i]! < list.length ? [i] : []));
    const share = Math.max(1, Math.floor(left / open.length));
    for (const i of open) {
      if (left === 0) break;
      const add = Math.min(share, groups[i]!.length - quota[i]!, left);
      quota[i]! += add;
      left -= add;
    }
  }
  const chosen: EvalEpisode[] = [];
  groups.forEach((list, i) => {
    const sorted = list
      .map((episode) => ({ episode, key: paramsKey(episode.params) }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.episode.seed - b.episode.seed))
      .map(({ episode }) => episode);
    const take = quota[i]!;
    for (let k = 0; k < take; k++) chosen.push(sorted[Math.floor((k * sorted.length) / take)]!);
  });
  return chosen;
}

function timelineData(episode: EvalEpisode): TimelineData {
  return {
    agent: episode.agent,
    agentSpec: episode.agentSpec,
    seed: episode.seed,
    params: episode.params,
    success: episode.success,
    ticks: episode.ticks,
    stop: episode.stop,
    ...(episode.recording !== undefined && { recording: episode.recording }),
    ...(episode.failure !== undefined && { failure: `${episode.failure.kind} at tick ${episode.failure.tick}: ${episode.failure.reason}` }),
    timeline: episode.timeline,
  };
}

/** Per row, its episodes' decision times: every one up to `cap`, else `cap` of them taken evenly. */
function latencySamples(summary: EvalSummary, episodes: readonly EvalEpisode[], cap: number): ReportData['latency'] {
  const rowOf = new Map<string, number>();
  summary.rows.forEach((row, i) => rowOf.set(`${row.agent}\u0000${paramsKey(row.params)}`, i));
  const keys = new Map<Params, string>();
  const rowIndex = (episode: EvalEpisode): number | undefined => {
    let key = keys.get(episode.params);
    if (key === undefined) keys.set(episode.params, (key = paramsKey(episode.params)));
    return rowOf.get(`${episode.agent}\u0000${key}`);
  };
  const totals = summary.rows.map(() => 0);
  const indexes: Array<number | undefined> = episodes.map((episode) => {
    const i = rowIndex(episode);
    if (i !== undefined) totals[i]! += episode.decisionMs.length;
    return i;
  });
  const samples: number[][] = summary.rows.map(() => []);
  const seen = summary.rows.map(() => 0);
  episodes.forEach((episode, e) => {
    const i = indexes[e];
    if (i === undefined || episode.decisionMs.length === 0) return;
    const total = totals[i]!;
    const list = samples[i]!;
    for (const ms of episode.decisionMs) {
      const k = seen[i]!++;
      // The k-th of `total` is taken when it is the next of `cap` evenly spaced picks.
      if (total <= cap || Math.floor((list.length * total) / cap) === k) list.push(Math.round(ms * 10) / 10);
    }
  });
  return { cap, samples, totals };
}

let loaded: Array<{ name: string; source: string }> | undefined;

/** The libraries' browser builds, read once a process. */
function libraries(): Array<{ name: string; source: string }> {
  if (loaded !== undefined) return loaded;
  const require = createRequire(import.meta.url);
  loaded = LIBRARIES.map(({ name }) => {
    let entry: string;
    try {
      entry = require.resolve(name);
    } catch (error) {
      throw new Error(
        `renderReport: the charting library ${name} is not installed (${(error as Error).message}); it is a dependency of aicc-capsule: reinstall it`,
      );
    }
    const root = packageRoot(entry, name);
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { unpkg?: string; jsdelivr?: string };
    const file = manifest.unpkg ?? manifest.jsdelivr;
    if (file === undefined) throw new Error(`renderReport: ${name} at ${root} names no browser build (unpkg or jsdelivr in its package.json)`);
    // Inside a script element only `</script` could end it early; `<\/` means the same in JavaScript text.
    const source = readFileSync(join(root, file), 'utf8').replace(/<\/(script)/gi, '<\\/$1');
    return { name, source };
  });
  return loaded;
}

/** The folder of the package `name` that `entry` lies in (its package.json is not among its exports). */
function packageRoot(entry: string, name: string): string {
  for (let dir = dirname(entry); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === name) return dir;
    if (dirname(dir) === dir) throw new Error(`renderReport: no package.json of ${name} above ${entry}`);
  }
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
