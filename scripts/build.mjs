// `npm run build`: cleans dist/, runs the builds of rollup.config.mjs, marks the CLI executable.
// Each build runs in its own worker thread: they are independent and mostly CPU-bound
// (type-checking, .d.ts generation, terser), so on 2 cores this about halves the wall time.
import { chmodSync, existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, workerData } from 'node:worker_threads';
import { rollup } from 'rollup';
import { loadConfigFile } from 'rollup/loadConfigFile';

const root = fileURLToPath(new URL('..', import.meta.url));
if (isMainThread) process.chdir(root); // workers share the process's cwd
const { options, warnings } = await loadConfigFile(`${root}rollup.config.mjs`);

if (isMainThread) {
  const started = performance.now();
  // A stale dist/ could hide a failed build from the bundle tests.
  rmSync('dist', { recursive: true, force: true });
  const exits = await Promise.all(
    options.map(
      (_, index) =>
        new Promise((resolve) => {
          const worker = new Worker(new URL(import.meta.url), { workerData: index });
          worker.on('error', (error) => (console.error(error), resolve(1)));
          worker.on('exit', resolve);
        }),
    ),
  );
  if (existsSync('dist/cli.js')) chmodSync('dist/cli.js', 0o755);
  if (exits.some((code) => code !== 0)) {
    console.error('build failed (see above)');
    process.exit(1);
  }
  console.log(`built dist/ in ${((performance.now() - started) / 1000).toFixed(1)} s`);
} else {
  const config = options[workerData];
  try {
    const bundle = await rollup(config);
    await Promise.all(config.output.map((output) => bundle.write(output)));
    await bundle.close();
  } catch (error) {
    process.exitCode = 1;
    console.error(`${config.output[0].file ?? config.output[0].dir}: ${error.message}`);
    if (error.frame) console.error(error.frame);
  } finally {
    warnings.flush(); // loadConfigFile collects warnings (type errors among them) instead of printing them
  }
}
