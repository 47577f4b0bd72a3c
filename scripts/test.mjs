// `npm test [-- vitest args]`: builds (the bundle tests read dist/; AICC_SKIP_BUILD=1 skips it), runs
// vitest, and ends with one line `vitest: N passed, M failed`, the line CI counts tests from.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const report = `${root}.vitest-report.json`;
const run = (command, args) => spawnSync(command, args, { cwd: root, stdio: 'inherit' }).status ?? 1;

// A failed build still runs the tests (the unit tests count), but the run fails.
const buildStatus = process.env.AICC_SKIP_BUILD === '1' ? 0 : run('npm', ['run', 'build']);

rmSync(report, { force: true }); // a stale report must not be read as this run's
const vitestStatus = run('npx', ['--no', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile=${report}`, ...process.argv.slice(2)]);

let passed = 0;
let failed = 1;
try {
  const json = JSON.parse(readFileSync(report, 'utf8'));
  passed = json.numPassedTests;
  failed = json.numFailedTests;
} catch {
  // no report: vitest crashed before writing one; counted as one failure
}
console.log(`vitest: ${passed} passed, ${failed} failed`);
process.exit(vitestStatus !== 0 ? vitestStatus : buildStatus);
