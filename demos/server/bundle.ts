// The browser demos for `npm run demo:web`: finds every demos/<name>/ that has an index.html and
// bundles its main.ts with esbuild (Phaser, three and the capsule's own sources included), in memory.
// esbuild is a development dependency: this module is loaded only by the demo server, never by the
// package's entries.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** One bundled demo: its folder and the files esbuild made for it, by name (main.js, main.js.map). */
export interface DemoBundle {
  name: string;
  /** The demo's folder, served as /<name>/ (index.html, script.html, assets). */
  dir: string;
  /** The HTML pages in the folder, index.html first. */
  pages: string[];
  files: Map<string, Uint8Array>;
}

/** The demos of `demosDir`: its subfolders holding an index.html and a main.ts, in name order. */
export function findDemos(demosDir: string): string[] {
  if (!existsSync(demosDir)) return [];
  return readdirSync(demosDir)
    .filter((name) => /^[a-z0-9][a-z0-9_-]*$/i.test(name))
    .filter(
      (name) => statSync(join(demosDir, name)).isDirectory() && existsSync(join(demosDir, name, 'index.html')) && existsSync(join(demosDir, name, 'main.ts')),
    )
    .sort();
}

/**
 * Bundles demos/<name>/main.ts into main.js (an ES module, with a linked source map). Rejects with
 * esbuild's messages, naming the demo, when it does not build.
 */
export async function bundleDemo(demosDir: string, name: string): Promise<DemoBundle> {
  const { build } = await import('esbuild');
  const dir = join(demosDir, name);
  let result: Awaited<ReturnType<typeof build>>;
  try {
    result = await build({
      entryPoints: [join(dir, 'main.ts')],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      // The output stays in memory; outfile only names the files and the map's paths.
      outfile: join(dir, 'main.js'),
      write: false,
      sourcemap: 'linked',
      logLevel: 'silent',
    });
  } catch (error) {
    const errors = (error as { errors?: Array<{ text: string; location?: { file: string; line: number } | null }> }).errors;
    const detail = errors?.map((e) => (e.location ? `${e.location.file}:${e.location.line}: ${e.text}` : e.text)).join('; ');
    throw new Error(`demo:web: demos/${name}/main.ts does not build: ${detail ?? (error instanceof Error ? error.message : String(error))}`);
  }
  const files = new Map<string, Uint8Array>();
  for (const file of result.outputFiles ?? []) files.set(file.path.slice(dir.length + 1), file.contents);
  const pages = readdirSync(dir)
    .filter((file) => file.endsWith('.html'))
    .sort((a, b) => (a === 'index.html' ? -1 : b === 'index.html' ? 1 : a.localeCompare(b)));
  return { name, dir, pages, files };
}

/** Bundles every demo of `demosDir` (or the named ones), one after another. */
export async function bundleDemos(demosDir: string, names: readonly string[] = findDemos(demosDir)): Promise<DemoBundle[]> {
  const bundles: DemoBundle[] = [];
  for (const name of names) bundles.push(await bundleDemo(demosDir, name));
  return bundles;
}
