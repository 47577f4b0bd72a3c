// The package as a user gets it: `npm pack` of this checkout (its dist/ built by `npm test`), and
// consumer projects that install the tarball — its own dependencies from npm (the cache first) —
// and find their tools (typescript, vite, phaser, three…) linked from this project's node_modules,
// at the versions this project tests. Each project lives in node_modules/.cache/aicc-consumers/ and
// is installed again only when the tarball changes. Safe when several test files ask at once: a
// project is installed in a folder of its own and renamed into place.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CACHE = join(ROOT, 'node_modules', '.cache', 'aicc-consumers');

/** Why consumer projects cannot be made here (no dist/ to pack), or undefined when they can. */
export const packedSkip: string | undefined = existsSync(join(ROOT, 'dist', 'index.js'))
  ? undefined
  : 'the consumer tests pack dist/: run `npm run build` first (npm test does)';

let tarball: string | undefined;

/** Packs this checkout once per test process; the tarball's path (named by its content). */
export function packTarball(): string {
  if (tarball !== undefined && existsSync(tarball)) return tarball;
  mkdirSync(CACHE, { recursive: true });
  const staging = mkdtempSync(join(CACHE, 'pack-'));
  try {
    // --ignore-scripts: the tests pack the dist/ `npm test` built; prepack would build it again.
    const npm = run('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', staging], ROOT);
    const packed = join(staging, npm.trim().split('\n').at(-1)!);
    const sum = createHash('sha256').update(readFileSync(packed)).digest('hex').slice(0, 16);
    const named = join(CACHE, `aicc-capsule-${sum}.tgz`);
    if (!existsSync(named)) renameSync(packed, named);
    return (tarball = named);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

export interface ConsumerOptions {
  /** The project's name, unique among the tests: its folder under the cache. */
  name: string;
  /** Packages linked from this project's node_modules (they must be installed here), e.g. ['typescript', 'vite', 'phaser']. */
  link?: string[];
  /** Extra fields of the project's package.json (type, scripts…). Default: `{ type: 'module' }`. */
  manifest?: Record<string, unknown>;
}

/**
 * A consumer project with the packed aicc-capsule installed from its tarball; its folder. The
 * caller writes its sources into it (they are left alone when the project is reused).
 */
export function consumerProject(options: ConsumerOptions): string {
  const packed = packTarball();
  const link = options.link ?? [];
  const key = createHash('sha256')
    .update(JSON.stringify([packed, link, options.manifest ?? null]))
    .digest('hex')
    .slice(0, 12);
  const dir = join(CACHE, `${options.name}-${key}`);
  if (existsSync(join(dir, 'node_modules', 'aicc-capsule', 'package.json'))) return dir;
  mkdirSync(CACHE, { recursive: true });
  const staging = mkdtempSync(join(CACHE, `${options.name}.installing-`));
  try {
    const manifest = {
      name: `consumer-${options.name}`,
      private: true,
      type: 'module',
      ...options.manifest,
      dependencies: { 'aicc-capsule': `file:${packed}` },
    };
    writeFileSync(join(staging, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], staging);
    // After the install: npm would prune links it did not make.
    for (const name of link) {
      const from = join(ROOT, 'node_modules', name);
      if (!existsSync(from)) throw new Error(`consumerProject: ${name} is not installed in this project; add it to devDependencies`);
      const to = join(staging, 'node_modules', name);
      mkdirSync(dirname(to), { recursive: true });
      symlinkSync(from, to, 'dir');
    }
    linkBins(staging, link);
    try {
      renameSync(staging, dir);
    } catch (error) {
      // Another test file made it first: theirs is as good.
      if (!existsSync(join(dir, 'node_modules', 'aicc-capsule', 'package.json'))) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}

/** Runs a command (no shell) in `cwd` and returns its stdout; throws with its output when it fails. */
export function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 300_000, env: { ...process.env, ...env } });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed in ${cwd} (exit ${result.status ?? result.signal}):\n${`${result.stdout ?? ''}\n${result.stderr ?? ''}${result.error ? `\n${String(result.error)}` : ''}`.slice(-4000)}`,
    );
  }
  return result.stdout;
}

/** node_modules/.bin entries for the linked packages' own bins (tsc, vite), pointing into this project. */
function linkBins(project: string, linked: string[]): void {
  const bins = join(project, 'node_modules', '.bin');
  mkdirSync(bins, { recursive: true });
  const ours = join(ROOT, 'node_modules', '.bin');
  for (const entry of readdirSync(ours)) {
    const target = join(ours, entry);
    if (existsSync(join(bins, entry))) continue;
    // Only the bins of linked packages: resolved through their package.json's bin field.
    for (const name of linked) {
      const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> };
      const names = typeof pkg.bin === 'string' ? [name.split('/').at(-1)!] : Object.keys(pkg.bin ?? {});
      if (names.includes(entry)) symlinkSync(target, join(bins, entry));
    }
  }
}
