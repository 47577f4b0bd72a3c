// Runs an esbuild bundle (built with an external source map) under `node --cpu-prof` and reads back
// where the time went, mapped to source lines: what bench/profile.ts and bench/tick.profile.ts share.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { build } from 'esbuild';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { report, type Profile } from './profileTop.js';
import { SourceLookup, type SourceMapV3 } from './sourceMap.js';

export interface ProfiledRun {
  /** What the bundle printed. */
  stdout: string;
  /** The report's lines (bench/profileTop.ts). */
  report: string[];
  /** The main thread's .cpuprofile, for Chrome DevTools. */
  profile: string;
}

/** `place` names the caller in errors; `root` is the folder report paths are relative to. */
export function profileBundle(bundle: string, options: { top: number; root: string; place: string }): ProfiledRun {
  const profiles = join(dirname(bundle), 'profiles');
  rmSync(profiles, { recursive: true, force: true });
  mkdirSync(profiles, { recursive: true });
  const run = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profiles, bundle], {
    cwd: options.root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (run.status !== 0) throw new Error(`${options.place}: the profiled run failed (exit ${run.status})`);
  // The main thread's profile is the big one; workers (if any) write smaller ones.
  const files = readdirSync(profiles)
    .filter((file) => file.endsWith('.cpuprofile'))
    .map((file) => join(profiles, file));
  const main = files.sort((a, b) => statSync(b).size - statSync(a).size)[0];
  if (main === undefined) throw new Error(`${options.place}: node wrote no .cpuprofile`);
  const lookup = new SourceLookup(JSON.parse(readFileSync(`${bundle}.map`, 'utf8')) as SourceMapV3);
  const bundleUrl = pathToFileURL(bundle).href;
  const placeOf = (url: string, line: number, column: number): string => {
    if (url !== bundleUrl) return url.startsWith('file://') ? relative(options.root, fileURLToPath(url)) : url;
    const found = lookup.find(line, column);
    return found === undefined ? 'bundle' : `${relative(options.root, resolve(dirname(bundle), found.source))}:${found.line}`;
  };
  return { stdout: run.stdout.trim(), report: report(JSON.parse(readFileSync(main, 'utf8')) as Profile, options.top, placeOf), profile: main };
}

/**
 * Bundles `script` (TypeScript run from `root`) with esbuild into a temp folder inside the project —
 * so the bundle's bare imports resolve from node_modules — profiles it (profileBundle), removes it.
 */
export async function profileScript(script: string, options: { top: number; root: string; place: string }): Promise<ProfiledRun> {
  mkdirSync(join(options.root, 'node_modules', '.cache'), { recursive: true });
  const dir = mkdtempSync(join(options.root, 'node_modules', '.cache', 'aicc-profile-'));
  try {
    const bundle = join(dir, 'run.mjs');
    await build({
      stdin: { contents: script, resolveDir: options.root, loader: 'ts' },
      outfile: bundle,
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      sourcemap: 'external',
      logLevel: 'warning',
    });
    return profileBundle(bundle, options);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The value after `name` on a profile script's command line, or `fallback`. */
export function option(argv: string[], name: string, fallback: string): string {
  const at = argv.indexOf(name);
  return at >= 0 && argv[at + 1] !== undefined ? argv[at + 1]! : fallback;
}
