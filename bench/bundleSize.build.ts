// Builds one browser bundle the way bench/bundleSize.bench.ts compares them: esbuild, bundled,
// minified, ESM, platform browser, every dependency inside; gzip level 9. Output goes to a fresh
// directory under os.tmpdir(), removed afterwards, never into the repository.

import { build } from 'esbuild';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { repoRoot as findRepoRoot } from './row.js';

export const repoRoot = findRepoRoot(import.meta.url);

export interface BundleSize {
  name: string;
  /** Minified bytes. */
  minBytes: number;
  /** Minified, then gzipped at level 9. */
  gzipBytes: number;
  /** What the minified bundle is made of, largest first (bytes in the output, per input file or package). */
  inputs: Array<{ path: string; bytes: number }>;
}

/** An entry file of the repo (relative path), or the text of an entry resolved from the repo root. */
export type BundleEntry = { entry: string } | { contents: string };

/** `external`: packages the game brings itself (an engine), left out of the bundle. */
export async function buildBundle(name: string, source: BundleEntry, external: string[] = []): Promise<BundleSize> {
  const dir = mkdtempSync(join(tmpdir(), 'aicc-bundle-'));
  try {
    const outfile = join(dir, 'bundle.js');
    const result = await build({
      ...('entry' in source
        ? { entryPoints: [join(repoRoot, source.entry)] }
        : { stdin: { contents: source.contents, resolveDir: repoRoot, loader: 'ts' as const, sourcefile: `${name}.ts` } }),
      outfile,
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      legalComments: 'none',
      external,
      metafile: true,
      write: true,
      logLevel: 'silent',
    });
    const code = readFileSync(outfile);
    const output = Object.values(result.metafile.outputs).find((out) => out.entryPoint !== undefined || Object.keys(out.inputs).length > 0);
    const byGroup = new Map<string, number>();
    for (const [path, input] of Object.entries(output?.inputs ?? {})) {
      const group = groupOf(path);
      byGroup.set(group, (byGroup.get(group) ?? 0) + input.bytesInOutput);
    }
    return {
      name,
      minBytes: code.byteLength,
      gzipBytes: gzipSync(code, { level: 9 }).byteLength,
      inputs: [...byGroup].map(([path, bytes]) => ({ path, bytes })).sort((a, b) => b.bytes - a.bytes),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A package's files count as the package; the repo's own files each count alone. */
function groupOf(path: string): string {
  const modules = path.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = path.slice(modules + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  return relative(repoRoot, join(repoRoot, path)) || path;
}
