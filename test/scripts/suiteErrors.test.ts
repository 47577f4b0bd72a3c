// scripts/suiteErrors.mjs, the reporter scripts/test.mjs adds to vitest: what failed outside the
// tests — a suite's beforeAll, a file's top-level afterAll — is written with its error and the tests
// that did not run for it (vitest's JSON report says only "skipped"). Run here on a fixture folder
// of its own, through vitest itself.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Inside the project (test/.tmp is ignored) so that the fixtures' `import 'vitest'` resolves.
mkdirSync(join(ROOT, 'test', '.tmp'), { recursive: true });
const dir = mkdtempSync(join(ROOT, 'test', '.tmp', 'suite-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FIXTURES: Record<string, string> = {
  'hooks.fixture.ts': `import { beforeAll, describe, expect, it } from 'vitest';
describe('fine', () => { it('passes', () => expect(1).toBe(1)); it.skip('is skipped', () => {}); });
describe('daemon', () => {
  beforeAll(() => { throw new Error('realDaemon: not ready within 90 s\\nsecond line'); });
  it('opens', () => expect(1).toBe(1));
  describe('inner', () => { it('closes', () => expect(1).toBe(1)); });
});
`,
  'top.fixture.ts': `import { afterAll, expect, it } from 'vitest';
afterAll(() => { throw new Error('could not stop the server'); });
it('runs', () => expect(1).toBe(1));
`,
  'vitest.config.mjs': `export default { test: { include: ['*.fixture.ts'] } };\n`,
};

it('writes each suite or file that failed outside its tests, its error, and the tests that did not run', () => {
  for (const [name, text] of Object.entries(FIXTURES)) writeFileSync(join(dir, name), text);
  const out = join(dir, 'suites.jsonl');
  const run = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--root',
      dir,
      '--config',
      join(dir, 'vitest.config.mjs'),
      `--reporter=${join(ROOT, 'scripts/suiteErrors.mjs')}`,
    ],
    { cwd: dir, encoding: 'utf8', env: { ...process.env, AICC_SUITE_ERRORS: out }, timeout: 60_000 },
  );
  expect(run.status, run.stderr).toBe(1);
  const lines = readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { file: string; suite: string; errors: string[]; notRun: string[] });
  expect(lines.sort((a, b) => a.file.localeCompare(b.file))).toEqual([
    {
      file: join(dir, 'hooks.fixture.ts'),
      suite: 'daemon',
      errors: ['realDaemon: not ready within 90 s'],
      notRun: ['daemon > opens', 'daemon > inner > closes'],
    },
    { file: join(dir, 'top.fixture.ts'), suite: '(the file: its top-level hooks or loading)', errors: ['could not stop the server'], notRun: [] },
  ]);
});
