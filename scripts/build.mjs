// `npm run build`: cleans dist/, runs the builds of rollup.config.mjs, marks the CLI executable,
// writes the CommonJS forwarders and declarations of dist/cjs/ (scripts/commonjsEntries.mjs).
// The builds run one after another in this process: worker threads were measured slower here
// (2 cores; each worker loads TypeScript and warms its JIT again).
import { chmodSync, existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { rollup } from 'rollup';
import { loadConfigFile } from 'rollup/loadConfigFile';
import { writeCommonJsEntries } from './commonjsEntries.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
process.chdir(root);
const started = performance.now();
// A stale dist/ could hide a failed build from the bundle tests.
rmSync('dist', { recursive: true, force: true });

const { options, warnings } = await loadConfigFile(`${root}rollup.config.mjs`);
let failed = false;
for (const config of options) {
  try {
    const bundle = await rollup(config);
    await Promise.all(config.output.map((output) => bundle.write(output)));
    await bundle.close();
  } catch (error) {
    // Go on with the other builds: their output still lets the tests that need it run.
    failed = true;
    console.error(`${config.output[0].file ?? config.output[0].dir}: ${error.message}`);
    if (error.frame) console.error(error.frame);
  }
  warnings.flush(); // loadConfigFile collects warnings (type errors among them) instead of printing them
}
if (existsSync('dist/cli.js')) chmodSync('dist/cli.js', 0o755);
writeCommonJsEntries(root);
if (failed) {
  console.error('build failed (see above)');
  process.exit(1);
}
console.log(`built dist/ in ${((performance.now() - started) / 1000).toFixed(1)} s`);
