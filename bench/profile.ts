// Profiles the capsule in the swarm: bundles a swarm run with esbuild (plainly — tsx's keepNames
// would wrap every closure in a `__name` call and put all code on line 1, which skews a profile of
// closure-heavy code), runs it under `node --cpu-prof`, and prints where the time went, mapped back
// to source lines.
//
//   npx tsx bench/profile.ts [--ticks 2000] [--foragers 128] [--top 25]

import { mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { profileBundle } from './profileRun.js';

const root = fileURLToPath(new URL('..', import.meta.url));
// Inside the project, so the bundle's bare imports (ajv, mitt) resolve from node_modules.
const workDir = join(root, 'node_modules', '.cache', 'aicc-bench');

function option(argv: string[], name: string, fallback: number): number {
  const at = argv.indexOf(name);
  const value = at >= 0 ? Number(argv[at + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`bench/profile: ${name} must be a whole number >= 1`);
  return value;
}

async function main(argv: string[]): Promise<void> {
  const ticks = option(argv, '--ticks', 2000);
  const foragers = option(argv, '--foragers', 128);
  const top = option(argv, '--top', 25);
  const codec = argv.includes('--codec') ? argv[argv.indexOf('--codec') + 1] : 'json';
  if (codec !== 'object' && codec !== 'json') throw new Error('bench/profile: --codec must be object or json');
  const bundle = join(workDir, 'profile-swarm.mjs');
  mkdirSync(workDir, { recursive: true });
  await build({
    stdin: {
      contents: `import { runSwarm } from './src/worlds/swarm/swarm.ts';
import { ${codec}Codec as codec } from './src/protocol/${codec === 'object' ? 'objectCodec' : 'codec'}.ts';
const run = await runSwarm({ seed: 1, ticks: ${ticks}, foragers: ${foragers}, codec });
console.log(JSON.stringify(run.result));`,
      resolveDir: root,
      loader: 'ts',
      sourcefile: 'profile-entry.ts',
    },
    bundle: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node}`,
    sourcemap: 'external',
    outfile: bundle,
    logLevel: 'warning',
  });
  const run = profileBundle(bundle, { top, root, place: 'bench/profile' });
  process.stdout.write(`swarm, ${foragers} foragers, ${ticks} ticks (profiled, so slower than unprofiled): ${run.stdout}\n${run.report.join('\n')}\n`);
  process.stdout.write(`\nprofile: ${relative(root, run.profile)} (open in Chrome DevTools › Performance)\n`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
