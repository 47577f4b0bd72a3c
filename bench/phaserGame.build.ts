// What aicc-capsule/phaser adds to a real app: a minimal Phaser game built for production by Vite,
// once with the plugin (docs/PHASER.md's "An NPC in a few lines" as written, no inspector) and once
// without it, in a consumer project that installed the packed package (test/consumer/packed.ts).
// The bench (bench/bundleSize.bench.ts) reports the sizes; test/consumer/vitePhaser.test.ts holds
// them to their budgets and checks what the build is made of. Gzip level 9 over the built
// JavaScript, as the other bundle rows.

import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

// An empty icon: else the browser asks for /favicon.ico, and a page test sees a 404.
const HTML = '<!doctype html>\n<html><head><link rel="icon" href="data:,"></head><body><script type="module" src="./main.ts"></script></body></html>\n';

/** The game without the plugin: a scene with one sprite. */
export const BARE_GAME = `import Phaser from 'phaser';

new Phaser.Game({
  type: Phaser.AUTO,
  width: 800,
  height: 600,
  physics: { default: 'arcade' },
  scene: { create },
});

function create(this: Phaser.Scene) {
  this.physics.add.sprite(200, 200, 'npc');
}
`;

/** The same game with the plugin and an in-page agent: docs/PHASER.md's example, read from the doc. */
export function docGame(repoRoot: string): string {
  const doc = readFileSync(join(repoRoot, 'docs', 'PHASER.md'), 'utf8');
  const block = /## An NPC in a few lines\n\n```ts[^\n]*\n([\s\S]*?)```/.exec(doc)?.[1];
  if (block === undefined) throw new Error('docs/PHASER.md has no "## An NPC in a few lines" section with a ts block');
  return block;
}

export interface GameBuild {
  /** The built JavaScript, minified (Vite's default minifier), bytes. */
  minBytes: number;
  /** The same, gzipped at level 9. */
  gzipBytes: number;
  /** Every source file the built JavaScript holds code of (from its source maps), as absolute paths. */
  sources: string[];
  /** The folder Vite wrote to. */
  outDir: string;
}

/** Writes `main` as games/<name>/main.ts of `project` (with its index.html); its folder. */
export function writeGame(project: string, name: string, main: string): string {
  const dir = join(project, 'games', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'index.html'), HTML);
  writeFileSync(join(dir, 'main.ts'), main);
  return dir;
}

/** `vite build` of games/<name> in `project` (which must have vite and phaser installed or linked). */
export function buildGame(projectDir: string, name: string, main: string): GameBuild {
  const project = resolve(projectDir);
  const dir = writeGame(project, name, main);
  const outDir = join(dir, 'dist');
  // Hidden source maps: the maps are written, the JavaScript carries no comment pointing at them.
  const result = spawnSync(
    join(project, 'node_modules', '.bin', 'vite'),
    ['build', dir, '--outDir', outDir, '--emptyOutDir', '--sourcemap', 'hidden', '--logLevel', 'error'],
    {
      cwd: project,
      encoding: 'utf8',
      timeout: 300_000,
    },
  );
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}\n${result.stderr ?? ''}${result.error ? `\n${String(result.error)}` : ''}`;
    throw new Error(`vite build of ${dir} failed (exit ${result.status ?? result.signal}):\n${output.slice(-3000)}`);
  }
  const assets = join(outDir, 'assets');
  const scripts = readdirSync(assets).filter((file) => file.endsWith('.js'));
  if (scripts.length === 0) throw new Error(`vite build of ${dir} wrote no JavaScript to ${assets}`);
  let minBytes = 0;
  let gzipBytes = 0;
  const sources = new Set<string>();
  for (const file of scripts) {
    const code = readFileSync(join(assets, file));
    minBytes += code.byteLength;
    gzipBytes += gzipSync(code, { level: 9 }).byteLength;
    const map = JSON.parse(readFileSync(join(assets, `${file}.map`), 'utf8')) as { sources: string[] };
    for (const source of map.sources) sources.add(resolve(assets, source));
  }
  return { minBytes, gzipBytes, sources: [...sources].sort(), outDir };
}
