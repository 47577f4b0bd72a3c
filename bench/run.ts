// `npm run bench [-- --quick] [-- name…]`: runs every bench/*.bench.ts module, prints one table and
// writes bench/results.json. Figures vary with the machine and its load: compare runs on one machine.
// No figure here is asserted anywhere; the smoke test only checks that every bench still runs.

import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { rowProblems, type BenchModule, type BenchOptions, type BenchRow } from './row.js';

const benchDir = fileURLToPath(new URL('.', import.meta.url));

/** The bench modules, by file name, in name order. */
export function benchFiles(): string[] {
  return readdirSync(benchDir)
    .filter((file) => file.endsWith('.bench.ts'))
    .sort();
}

export async function loadBench(file: string): Promise<BenchModule> {
  const module = (await import(pathToFileURL(join(benchDir, file)).href)) as Partial<BenchModule>;
  if (typeof module.run !== 'function') throw new Error(`bench/${file}: export \`async function run(options: { quick: boolean }): Promise<BenchRow[]>\``);
  return module as BenchModule;
}

/** Runs one module and checks its rows; a malformed row is an error naming the module and field. */
export async function runBench(file: string, options: BenchOptions): Promise<BenchRow[]> {
  const rows = await (await loadBench(file)).run(options);
  if (!Array.isArray(rows) || rows.length === 0) throw new Error(`bench/${file}: run() must resolve to at least one row`);
  for (const row of rows) {
    const problems = rowProblems(row);
    if (problems.length > 0) throw new Error(`bench/${file}: row ${JSON.stringify((row as Partial<BenchRow>).name)}: ${problems.join('; ')}`);
  }
  return rows;
}

export function formatTable(rows: readonly BenchRow[]): string[] {
  const figure = (value: number): string => (value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toPrecision(3));
  const cells = [['bench', 'capsule', 'baseline', 'unit', 'ratio', 'note'], ...rows.map((row) => [row.name, figure(row.capsule), figure(row.baseline), row.unit, `${row.ratio.toFixed(2)}×`, row.note])];
  const widths = cells[0]!.map((_, column) => Math.max(...cells.map((line) => line[column]!.length)));
  const numeric = new Set([1, 2, 4]);
  const line = (values: string[]): string => values.map((value, column) => (numeric.has(column) ? value.padStart(widths[column]!) : value.padEnd(widths[column]!))).join('  ').trimEnd();
  return [line(cells[0]!), widths.map((width) => '-'.repeat(width)).join('  '), ...cells.slice(1).map(line)];
}

async function main(argv: string[]): Promise<void> {
  const quick = argv.includes('--quick');
  const wanted = argv.filter((arg) => !arg.startsWith('--'));
  const files = benchFiles().filter((file) => wanted.length === 0 || wanted.some((name) => file.includes(name)));
  if (files.length === 0) throw new Error(`bench: no bench/*.bench.ts matches ${wanted.join(', ')}`);
  const rows: BenchRow[] = [];
  for (const file of files) {
    process.stderr.write(`bench: ${file}${quick ? ' (quick)' : ''}…\n`);
    rows.push(...(await runBench(file, { quick })));
  }
  process.stdout.write(`${formatTable(rows).join('\n')}\n`);
  const results = { date: new Date().toISOString(), node: process.version, platform: `${process.platform}-${process.arch}`, quick, rows };
  writeFileSync(join(benchDir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  process.stderr.write('bench: wrote bench/results.json\n');
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
