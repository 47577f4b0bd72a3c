// Profiles the capsule side of bench/tick.bench.ts: bundles a run of it with esbuild (plainly, with
// a source map, into a temp directory), runs that under `node --cpu-prof`, and prints where the time
// went, mapped back to source lines (bench/profileTop.ts, bench/sourceMap.ts).
//
//   npx tsx bench/tick.profile.ts [--ticks 300] [--codec object|json] [--top 25]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { option, profileBundle } from './profileRun.js';

const root = fileURLToPath(new URL('..', import.meta.url));

async function main(argv: string[]): Promise<void> {
  const ticks = Number(option(argv, '--ticks', '300'));
  const top = Number(option(argv, '--top', '25'));
  const codec = option(argv, '--codec', 'object');
  if (!Number.isInteger(ticks) || ticks < 1 || !Number.isInteger(top) || top < 1)
    throw new Error('bench/tick.profile: --ticks and --top must be whole numbers >= 1');
  if (codec !== 'object' && codec !== 'json') throw new Error('bench/tick.profile: --codec must be object or json');
  const dir = mkdtempSync(join(tmpdir(), 'aicc-tick-profile-'));
  try {
    const bundle = join(dir, 'tick.mjs');
    await build({
      stdin: {
        contents: `import { capsuleSide, TICK_SETTINGS } from './bench/tick.world.ts';
import { ${codec}Codec as codec } from './src/protocol/${codec === 'object' ? 'objectCodec' : 'codec'}.ts';
const side = await capsuleSide(TICK_SETTINGS, codec);
for (let i = 0; i < 40; i++) await side.tick();
const started = performance.now();
for (let i = 0; i < ${ticks}; i++) await side.tick();
console.log(((performance.now() - started) * 1000 / ${ticks}).toFixed(0) + ' µs/tick');
side.dispose();`,
        resolveDir: root,
        loader: 'ts',
        sourcefile: 'tick-profile-entry.ts',
      },
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: `node${process.versions.node}`,
      sourcemap: 'external',
      outfile: bundle,
      logLevel: 'warning',
    });
    const run = profileBundle(bundle, { top, root, place: 'bench/tick.profile' });
    process.stdout.write(`tick fan-out, ${codec}Codec, 40 + ${ticks} ticks (profiled, so slower than unprofiled): ${run.stdout}\n${run.report.join('\n')}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
