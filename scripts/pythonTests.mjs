// The Python suite (python/), as `npm test` runs it after vitest: its own virtual environment under
// the tests' cache (node_modules/.cache/aicc-python-<hash of python/requirements-test.txt,
// pyproject.toml and the Python version>/), made once with exactly the pinned versions and the
// package installed from python/ as docs/PYTHON.md says; then ruff (lint and format), mypy
// --strict and pytest against the built `aicc serve` (dist/cli.js). Counts: each check one test,
// pytest's from its JUnit report. A machine without Python says the suite was skipped, with how many
// tests it holds; under CI=true (.ci/run provides Python) that is a failure instead.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** How many tests the suite holds, read from its files: what a skipped run says it skipped. */
function testCount(python) {
  const tests = join(python, 'tests');
  const files = readdirSync(tests).filter((name) => /^test_.*\.py$/.test(name));
  const defined = files.reduce((sum, name) => sum + (readFileSync(join(tests, name), 'utf8').match(/^(async )?def test_/gm) ?? []).length, 0);
  return defined + CHECKS.length;
}

const CHECKS = [
  { name: 'ruff check', args: ['-m', 'ruff', 'check', '.'] },
  { name: 'ruff format --check', args: ['-m', 'ruff', 'format', '--check', '.'] },
  { name: 'mypy --strict', args: ['-m', 'mypy'] },
];

/**
 * Runs the suite; resolves with `{ passed, failed, skipped, lines }` (lines: what to print beside the
 * counts). `node` is the Node `aicc serve` runs on.
 */
export function runPythonTests({ root, node, ci }) {
  const python = join(root, 'python');
  const interpreter = process.env.AICC_PYTHON || 'python3';
  const version = spawnSync(interpreter, ['-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3])'], { encoding: 'utf8' });
  if (version.status !== 0) {
    const count = testCount(python);
    const why = `no Python (${interpreter} not found; AICC_PYTHON names another)`;
    return ci
      ? { passed: 0, failed: 1, skipped: 0, lines: [`failed: the Python suite: ${why}; .ci/run provides Python`] }
      : { passed: 0, failed: 0, skipped: count, lines: [`skipped ${count}: the Python suite (python/): ${why}`] };
  }
  const requirements = readFileSync(join(python, 'requirements-test.txt'));
  const project = readFileSync(join(python, 'pyproject.toml'));
  const hash = createHash('sha256').update(requirements).update(project).update(version.stdout.trim()).digest('hex').slice(0, 12);
  const venv = join(root, 'node_modules', '.cache', `aicc-python-${hash}`);
  const bin = join(venv, 'bin', 'python');
  const ready = join(venv, '.installed');
  if (!existsSync(ready)) {
    rmSync(venv, { recursive: true, force: true });
    mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
    console.log(`scripts/pythonTests.mjs: a virtual environment for the Python suite (Python ${version.stdout.trim()}), once: ${venv}`);
    const made = spawnSync(interpreter, ['-m', 'venv', venv], { stdio: 'inherit' });
    const installed =
      made.status === 0
        ? spawnSync(bin, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', join(python, 'requirements-test.txt')], { stdio: 'inherit' })
        : made;
    if (installed.status !== 0)
      return {
        passed: 0,
        failed: 1,
        skipped: 0,
        lines: ['failed: the Python suite: its virtual environment could not be made (pip or venv failed; see above)'],
      };
    writeFileSync(ready, `${new Date().toISOString()}\n`);
  }
  const env = { ...process.env, AICC_NODE: node, PYTHONDONTWRITEBYTECODE: '1' };
  let passed = 0;
  let failed = 0;
  const lines = [];
  for (const check of CHECKS) {
    const result = spawnSync(bin, check.args, { cwd: python, stdio: 'inherit', env });
    if (result.status === 0) passed++;
    else {
      failed++;
      lines.push(`failed: python/: ${check.name}`);
    }
  }
  const junit = join(venv, 'pytest-report.xml');
  rmSync(junit, { force: true });
  const pytest = spawnSync(bin, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', `--junitxml=${junit}`], { cwd: python, stdio: 'inherit', env });
  const suite = existsSync(junit) ? /<testsuite\b[^>]*>/.exec(readFileSync(junit, 'utf8'))?.[0] : undefined;
  if (suite === undefined)
    return { passed, failed: failed + 1, skipped: 0, lines: [...lines, `failed: python/: pytest wrote no report (exit ${pytest.status})`] };
  const count = (name) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(suite)?.[1] ?? 0);
  const [tests, failures, errors, skips] = [count('tests'), count('failures'), count('errors'), count('skipped')];
  if (failures + errors > 0) lines.push(`failed: python/: ${failures + errors} pytest test(s) (see above)`);
  // A pytest that failed with every test passing (a crash after them) still fails the run.
  const crashed = pytest.status !== 0 && failures + errors === 0 ? 1 : 0;
  return { passed: passed + tests - failures - errors - skips, failed: failed + failures + errors + crashed, skipped: skips, lines };
}
