// The package as the registry gets it: the packed tarball is clean by publint and by
// @arethetypeswrong/cli in its default (strict) profile — node10, node16 from CommonJS and from ES
// modules, bundlers — its CommonJS entries really work in a CommonJS TypeScript project, it ships
// its licence and docs, and the README's links to those docs name files of this very version.

import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { beforeAll, describe, expect, it } from 'vitest';
import { consumerProject, packedSkip, packTarball, ROOT, run } from './packed.js';

interface Manifest {
  name: string;
  version: string;
  license: string;
  exports: Record<string, string | { types?: string; default?: string; require?: { types: string; default: string } }>;
  typesVersions?: Record<string, Record<string, string[]>>;
  scripts: Record<string, string>;
}
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;
/** Every export with code: `.`, `./core`, …, `./node` (not `./schemas/*` nor `./package.json`). */
const entries = Object.entries(manifest.exports).filter(
  (entry): entry is [string, Exclude<Manifest['exports'][string], string>] => typeof entry[1] === 'object',
);
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

describe('package.json', () => {
  it('builds dist/ before it is packed: `npm pack` or `npm publish` in a fresh clone (no dist/) ships the build', () => {
    expect(manifest.scripts['prepack'], 'package.json scripts.prepack').toBe('npm run build');
  });

  it('maps every subpath entry for moduleResolution node10 (typesVersions) to the declarations its exports name', () => {
    const mapped = manifest.typesVersions?.['*'] ?? {};
    const expected = Object.fromEntries(entries.filter(([subpath]) => subpath !== '.').map(([subpath, target]) => [subpath.slice(2), [target.types]]));
    expect(mapped, 'each subpath export needs its line in package.json typesVersions["*"]').toEqual(expected);
  });

  it('gives every entry a CommonJS face: a require condition with its forwarder and declarations in dist/cjs/', () => {
    for (const [subpath, target] of entries) {
      const name = target.default!.replace(/^\.\/dist\/(.*)\.js$/, '$1');
      expect(target.require, `package.json exports["${subpath}"] needs a require condition (scripts/commonjsEntries.mjs writes its files)`).toEqual({
        types: `./dist/cjs/${name}.d.cts`,
        default: `./dist/cjs/${name}.cjs`,
      });
    }
  });
});

describe.skipIf(packedSkip)('the packed tarball', () => {
  let tarball = '';
  let files: string[] = [];
  beforeAll(() => {
    tarball = packTarball();
    files = run('tar', ['-tzf', tarball], ROOT)
      .split('\n')
      .filter(Boolean)
      .map((path) => path.replace(/^package\//, ''));
  }, 120_000);

  it('is clean by publint: no error, warning or suggestion', async () => {
    const data = readFileSync(tarball);
    const { messages, pkg } = await publint({ pack: { tarball: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) }, level: 'suggestion' });
    expect(messages.map((message) => `${message.type}: ${formatMessage(message, pkg) ?? message.code}`)).toEqual([]);
  });

  it('is clean by @arethetypeswrong/cli in its default profile, every entry resolving in node10, node16 (CommonJS and ESM) and bundler', () => {
    const attw = spawnSync(process.execPath, [join(ROOT, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js'), tarball, '--format', 'json'], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    type Entrypoint = { isWildcard: boolean; resolutions: Record<string, { resolution?: { fileName: string } }> };
    const report = JSON.parse(attw.stdout || '{}') as {
      problems?: unknown[] | Record<string, unknown[]>;
      analysis?: { types: unknown; entrypoints: Record<string, Entrypoint> };
    };
    expect(report.analysis?.types, `attw found no types in the tarball:\n${attw.stdout}${attw.stderr}`).toBeTruthy();
    // A list of problems, or (when there are none) an empty object of them by kind.
    const problems = Array.isArray(report.problems) ? report.problems : Object.values(report.problems ?? {}).flat();
    expect(problems, attw.stderr).toEqual([]);
    expect(attw.status).toBe(0);
    // attw found every entry (it reads them from exports) and each resolved to a file in every mode.
    const unresolved = Object.entries(report.analysis!.entrypoints).flatMap(([entry, { isWildcard, resolutions }]) =>
      Object.entries(isWildcard ? {} : resolutions)
        .filter(([, { resolution }]) => resolution === undefined)
        .map(([mode]) => `${entry} in ${mode}`),
    );
    expect(Object.keys(report.analysis!.entrypoints)).toEqual(expect.arrayContaining(entries.map(([subpath]) => subpath)));
    expect(unresolved).toEqual([]);
  }, 120_000);

  it("prints its own version from a project that installed it, not the project's (aicc -v)", () => {
    const project = consumerProject({ name: 'version', manifest: { version: '9.9.9' } });
    const printed = spawnSync(process.execPath, [join(project, 'node_modules', 'aicc-capsule', 'dist', 'cli.js'), '-v'], { cwd: project, encoding: 'utf8' });
    const ours = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(printed.stdout).toBe(`${ours}\n`);
  });

  it('ships its licence, README, docs and the CommonJS forwarders; no sources or tests', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'docs/PHASER.md',
        'docs/PROTOCOL.md',
        'schemas/aicc.schema.json',
        'dist/cjs/index.cjs',
        'dist/cjs/index.d.cts',
      ]),
    );
    expect(manifest.license).toBe('MIT');
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) 2026 the aicc-capsule developers\n/);
    expect(files.filter((path) => /^(src|test|bench|demos|scripts)\//.test(path))).toEqual([]);
  });

  it("the README's links to its docs work on the registry page: versioned CDN addresses of files in this tarball", () => {
    // The registry shows README.md with no repository to resolve relative links against: each
    // link to a file of the package names the published version on jsDelivr instead.
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
    expect(
      targets.filter((target) => !/^(https:\/\/|#)/.test(target)),
      'relative links are dead on the registry page',
    ).toEqual([]);
    const cdn = `https://cdn.jsdelivr.net/npm/${manifest.name}@`;
    const ours = targets.filter((target) => target.startsWith(cdn));
    expect(ours.length).toBeGreaterThan(0);
    for (const target of ours) {
      const [version, ...path] = target.slice(cdn.length).split('/');
      expect(version, `${target}: the version must be package.json's`).toBe(manifest.version);
      expect(files, `${target}: not in the tarball`).toContain(path.join('/'));
    }
    // Every docs/*.md the README names is such a link (a bare `docs/X.md` is no way to get there).
    const named = [...readme.matchAll(/(?<!\/)docs\/[A-Z]+\.md/g)];
    expect(named.length).toBeGreaterThan(0);
    const bare = named
      .filter((match) => !(readme.slice(match.index - 2, match.index) === '[`' && readme.startsWith('`](https://', match.index + match[0].length)))
      .map((match) => `README.md:${readme.slice(0, match.index).split('\n').length}: ${match[0]}`);
    expect(bare, `name a doc as [\`docs/X.md\`](${cdn}${manifest.version}/docs/X.md)`).toEqual([]);
  });

  it('works from CommonJS: a .cts file requiring every entry compiles under module node16 (strict, skipLibCheck off) and runs', () => {
    const project = consumerProject({ name: 'commonjs', link: ['typescript', 'phaser', 'three', '@types/three', '@types/node'] });
    const names = entries.map(([subpath]) => (subpath === '.' ? manifest.name : `${manifest.name}${subpath.slice(1)}`));
    const source = [
      ...names.map((name, index) => `import * as entry${index} from '${name}';`),
      `const entries = [${names.map((_, index) => `entry${index}`).join(', ')}];`,
      `console.log(entries.map((entry) => Object.keys(entry).length > 0).join(' '));`,
      // One value through its type: the CommonJS declarations are the package's own.
      `const capsule: import('${manifest.name}').Capsule = entry0.createCapsule({ world: { name: 'cjs', kind: '2d' } });`,
      `capsule.dispose();`,
      '',
    ].join('\n');
    writeFileSync(join(project, 'main.cts'), source);
    const compilerOptions = {
      strict: true,
      module: 'node16',
      moduleResolution: 'node16',
      target: 'es2022',
      lib: ['es2022', 'dom'],
      types: ['node'],
      skipLibCheck: false,
    };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['main.cts'] }, null, 2));
    rmSync(join(project, 'main.cjs'), { force: true });
    const tsc = spawnSync(process.execPath, [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.', '--pretty', 'false'], {
      cwd: project,
      encoding: 'utf8',
    });
    // Only ours count: under skipLibCheck off, Phaser 4's phaser.d.ts and @types/three's three.d.cts
    // have errors of their own.
    const errors = tsc.stdout.split('\n').filter((line) => /error TS/.test(line) && /^(main\.cts|node_modules\/aicc-capsule\/)/.test(line));
    expect(errors).toEqual([]);
    const node = spawnSync(process.execPath, ['main.cjs'], { cwd: project, encoding: 'utf8', timeout: 20_000 });
    expect(node.stderr).toBe('');
    expect(node.stdout).toBe(`${names.map(() => 'true').join(' ')}\n`);
  }, 300_000);
});
