// `npm run bench [-- --quick] [-- --source] [-- name…]`: runs every bench/*.bench.ts module (bundled,
// unless --source), prints one table and
// writes bench/results.json. Figures vary with the machine and its load: compare runs on one machine.
// No figure here is asserted anywhere; the smoke test only checks that every bench still runs.

import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
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

/**
 * Loads a bench module. `npm run bench` passes `{ bundled: true }`: the module and the capsule's
 * sources are bundled with esbuild first, as a user's build would ship them. Run straight from
 * TypeScript (tsx), every named closure is wrapped to keep its name, which slows the capsule's hot
 * path by a third while the peers it is compared with run as published JavaScript.
 */
export async function loadBench(file: string, options: { bundled?: boolean } = {}): Promise<BenchModule> {
  const url = options.bundled ? await bundled(file) : pathToFileURL(join(benchDir, file)).href;
  const module = (await import(url)) as Partial<BenchModule>;
  if (typeof module.run !== 'function') throw new Error(`bench/${file}: export \`async function run(options: { quick: boolean }): Promise<BenchRow[]>\``);
  return module as BenchModule;
}

/** Bundles one bench module into bench/.build/ (git-ignored; packages stay external and resolve from there). */
async function bundled(file: string): Promise<string> {
  const { build } = await import('esbuild');
  mkdirSync(join(benchDir, '.build'), { recursive: true });
  const outdir = mkdtempSync(join(benchDir, '.build', 'run-'));
  const outfile = join(outdir, file.replace(/\.ts$/, '.mjs'));
  await build({
    entryPoints: [join(benchDir, file)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile,
    logLevel: 'warning',
    target: 'node20',
  });
  return pathToFileURL(outfile).href;
}

/** Runs one module and checks its rows; a malformed row is an error naming the module and field. */
export async function runBench(file: string, options: BenchOptions & { bundled?: boolean }): Promise<BenchRow[]> {
  const rows = await (await loadBench(file, { bundled: options.bundled ?? false })).run({ quick: options.quick });
  if (!Array.isArray(rows) || rows.length === 0) throw new Error(`bench/${file}: run() must resolve to at least one row`);
  for (const row of rows) {
    const problems = rowProblems(row);
    if (problems.length > 0) throw new Error(`bench/${file}: row ${JSON.stringify((row as Partial<BenchRow>).name)}: ${problems.join('; ')}`);
  }
  return rows;
}

export function formatTable(rows: readonly BenchRow[]): string[] {
  const figure = (value: number): string => (value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toPrecision(3));
  const cells = [
    ['bench', 'capsule', 'baseline', 'unit', 'ratio', 'note'],
    ...rows.map((row) => [row.name, figure(row.capsule), figure(row.baseline), row.unit, `${row.ratio.toFixed(2)}×`, row.note]),
  ];
  const widths = cells[0]!.map((_, column) => Math.max(...cells.map((line) => line[column]!.length)));
  const numeric = new Set([1, 2, 4]);
  const line = (values: string[]): string =>
    values
      .map((value, column) => (numeric.has(column) ? value.padStart(widths[column]!) : value.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
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
    rows.push(...(await runBench(file, { quick, bundled: !argv.includes('--source') })));
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
