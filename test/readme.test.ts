import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as aicc from '../src/index.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('starts with the two set-up commands', () => {
    const firstBlock = readme.split('```')[1]!;
    expect(firstBlock).toContain('npm ci && npm run demo');
    expect(firstBlock).toContain('npm test');
  });

  it('its example wires a character to an agent and makes a call', async () => {
    const example = readme.match(/## Wire one character to an agent\n\n```ts\n([\s\S]*?)```/)![1]!;
    // The names it imports, given it from the library as its import would.
    const imported = example.match(/^import \{ ([^}]+) \} from 'aicc-capsule';$/m)![1]!;
    const body = example.replace(/^import .*$/m, '');
    // Run the example with the library in scope and hand back what it computed.
    const run = new Function('aicc', `return (async () => { const { ${imported} } = aicc; ${body}; return { result, wren, capsule }; })();`);
    const { result, wren, capsule } = await run(aicc);
    expect(result).toMatchObject({ ok: true, output: { x: 1 }, meta: { source: 'handler' } });
    expect(wren).toEqual({ x: 1, y: 0 });
    capsule.dispose();
  });
});

describe('README, run as a user runs it', () => {
  // The built package (npm test builds dist/ first), imported by its name as a user's script
  // would, in a Node process of its own: the script must print its result and end by itself.
  it('its quick start prints the result and exits on its own, with no timer left holding the process', async () => {
    const { mkdirSync, writeFileSync, existsSync } = await import('node:fs');
    const { spawnSync } = await import('node:child_process');
    const root = new URL('..', import.meta.url);
    expect(existsSync(new URL('dist/index.js', root)), 'dist/ is missing: run `npm run build` (npm test does)').toBe(true);
    const example = readme.match(/## Wire one character to an agent\n\n```ts\n([\s\S]*?)```/)![1]!;
    const dir = new URL('test/.tmp/', root);
    mkdirSync(dir, { recursive: true });
    const script = new URL('quickstart.mjs', dir);
    writeFileSync(script, example); // the snippet is plain JavaScript as written
    const run = spawnSync(process.execPath, [script.pathname], { cwd: root.pathname, encoding: 'utf8', timeout: 20_000 });
    expect(run.error, 'the quick start did not end within 20 s').toBeUndefined();
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('wren is at x = 1\n');
    expect(run.status).toBe(0);
  }, 30_000);
});
