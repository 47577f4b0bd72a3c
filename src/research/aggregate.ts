// The aggregate of a sweep: per combination of params, each metric's mean, standard deviation, min
// and max over its seeds, the ticks, and how the episodes stopped. It is computed from episodes
// sorted by (params, seed), so it comes out byte-identical whatever order they finished in — one
// worker or eight, one machine or many.

import type { EpisodeSummary } from './episode.js';
import { paramsKey } from './sweepPlan.js';
import type { Params } from './world.js';

export interface Stat {
  mean: number;
  /** Sample standard deviation (n − 1); 0 for a single episode. */
  sd: number;
  min: number;
  max: number;
}

export interface AggregateRow {
  params: Params;
  episodes: number;
  ticks: Stat;
  /** By metric name, in code-point order. */
  metrics: Record<string, Stat>;
  /** How many episodes stopped for each reason. */
  stops: Record<string, number>;
}

/** Rows in the order of their params' canonical text. */
export function aggregate(episodes: ReadonlyArray<Pick<EpisodeSummary, 'params' | 'seed' | 'ticks' | 'metrics' | 'stop'>>): AggregateRow[] {
  const groups = new Map<string, Array<(typeof episodes)[number]>>();
  for (const episode of episodes) {
    const key = paramsKey(episode.params);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [episode]);
    else group.push(episode);
  }
  return [...groups.keys()].sort().map((key) => {
    const group = groups
      .get(key)!
      .slice()
      .sort((a, b) => a.seed - b.seed);
    const names = [...new Set(group.flatMap((episode) => Object.keys(episode.metrics)))].sort();
    const stops: Record<string, number> = {};
    for (const reason of group.map((episode) => episode.stop).sort()) stops[reason] = (stops[reason] ?? 0) + 1;
    return {
      params: group[0]!.params,
      episodes: group.length,
      ticks: stat(group.map((episode) => episode.ticks)),
      metrics: Object.fromEntries(names.map((name) => [name, stat(group.flatMap((episode) => (name in episode.metrics ? [episode.metrics[name]!] : [])))])),
      stops,
    };
  });
}

function stat(values: number[]): Stat {
  const n = values.length;
  let sum = 0;
  for (const value of values) sum += value;
  const mean = sum / n;
  let squares = 0;
  for (const value of values) squares += (value - mean) ** 2;
  let min = Infinity;
  let max = -Infinity;
  for (const value of values) {
    if (value < min) min = value;
    if (value > max) max = value;
  }
  return { mean, sd: n > 1 ? Math.sqrt(squares / (n - 1)) : 0, min, max };
}

/** A plain-text table: one block per params combination, one line per metric. */
export function formatAggregate(rows: readonly AggregateRow[]): string {
  const lines: string[] = [];
  for (const row of rows) {
    const params = Object.entries(row.params)
      .map(([name, value]) => `${name}=${value}`)
      .join(' ');
    const stops = Object.entries(row.stops)
      .map(([reason, count]) => `${reason} ${count}`)
      .join(', ');
    lines.push(`${params || '(defaults)'}: ${row.episodes} episode${row.episodes === 1 ? '' : 's'} (${stops})`);
    const named: Array<[string, Stat]> = [['ticks', row.ticks], ...Object.entries(row.metrics)];
    const width = Math.max(...named.map(([name]) => name.length));
    lines.push(`  ${'metric'.padEnd(width)}  ${['mean', 'sd', 'min', 'max'].map((head) => head.padStart(10)).join('')}`);
    for (const [name, value] of named)
      lines.push(`  ${name.padEnd(width)}  ${[value.mean, value.sd, value.min, value.max].map((number) => num(number).padStart(10)).join('')}`);
  }
  return lines.join('\n');
}

/** Four decimals at most, trailing zeros dropped: readable, and the same text for the same number. */
function num(value: number): string {
  return String(Number(value.toFixed(4)));
}
