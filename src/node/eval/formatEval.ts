// An eval's summary as a terminal reads it: one block per params combination, one line per agent
// (success with its interval, score, rating ± 2 deviations, ticks to success, calls and refusals, latency, tokens, cost,
// failures), then each pair of agents compared. Numbers rounded alike, so the same summary prints
// the same text.

import type { EvalComparison, EvalRow, EvalSummary } from '../../research/evalResult.js';
import { paramsKey } from '../../research/sweepPlan.js';

const COLUMNS = [
  'agent',
  'episodes',
  'success (95% CI)',
  'score',
  'rating',
  'ticks→goal',
  'calls/ep',
  'refused/100',
  'latency p50/p95',
  'tokens/ep',
  'USD/ep',
  'failed',
];

export function formatEvalSummary(summary: EvalSummary): string {
  const blocks = new Map<string, { label: string; rows: EvalRow[]; comparisons: EvalComparison[] }>();
  const blockOf = (params: EvalRow['params']) => {
    const key = paramsKey(params);
    let block = blocks.get(key);
    if (block === undefined) {
      const label = Object.entries(params)
        .map(([name, value]) => `${name}=${String(value)}`)
        .join(' ');
      blocks.set(key, (block = { label: label || '(defaults)', rows: [], comparisons: [] }));
    }
    return block;
  };
  for (const row of summary.rows) blockOf(row.params).rows.push(row);
  for (const comparison of summary.comparisons) blockOf(comparison.params).comparisons.push(comparison);
  const out: string[] = [];
  for (const block of blocks.values()) {
    const table = [COLUMNS, ...block.rows.map(cells)];
    const widths = COLUMNS.map((_, column) => Math.max(...table.map((line) => line[column]!.length)));
    out.push(block.label);
    for (const line of table)
      out.push(`  ${line.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ')}`.trimEnd());
    for (const c of block.comparisons)
      out.push(
        `  ${c.a} vs ${c.b}: success ${signed(c.successDiff * 100)} points (Cohen's h ${num(c.cohensH)}), score ${signed(c.scoreDiff)} (d ${num(c.cohensD)}); on ${c.pairedSeeds} shared seeds ${c.aOnly} won by ${c.a} only, ${c.bOnly} by ${c.b} only`,
      );
    out.push('');
  }
  return out.join('\n').trimEnd();
}

function cells(row: EvalRow): string[] {
  const failures = Object.entries(row.failures)
    .map(([kind, count]) => `${count} ${kind}`)
    .join(', ');
  return [
    row.agent,
    String(row.episodes),
    `${pct(row.success.mean)} (${pct(row.success.low)}–${pct(row.success.high)})`,
    num(row.score.mean),
    row.rating === null ? '–' : `${Math.round(row.rating.value)}±${Math.round(2 * row.rating.rd)}`,
    row.ticksToSuccess === null ? '–' : num(row.ticksToSuccess.p50),
    num(row.callsPerEpisode),
    num(row.refusalsPer100),
    row.latencyMs === null ? '–' : `${Math.round(row.latencyMs.p50)}/${Math.round(row.latencyMs.p95)} ms`,
    row.tokensPerEpisode.input + row.tokensPerEpisode.output === 0 ? '0' : num(row.tokensPerEpisode.input + row.tokensPerEpisode.output),
    num(row.costPerEpisode),
    failures || '0',
  ];
}

function pct(rate: number): string {
  return `${Math.round(rate * 100)}%`;
}

function signed(value: number): string {
  return `${value >= 0 ? '+' : ''}${num(value)}`;
}

/** Two decimals at most, trailing zeros dropped. */
function num(value: number): string {
  return String(Number(value.toFixed(2)));
}
