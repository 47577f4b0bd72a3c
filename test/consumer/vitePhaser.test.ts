// A strict Vite + TypeScript app with Phaser, as a user makes one: the packed package installed from
// its tarball, docs/PHASER.md's example as its game. On Phaser 4 and on Phaser 3.60 (the `phaser3`
// dev dependency installed as `phaser`), `tsc --strict` accepts it — `this.aicc` is typed in every
// Scene — and `vite build` builds it, without the ajv compiler, fast-uri or typed-binary (the game
// compiles no schema and never uses the binary codec); nor does the adapter entry bundled whole.
// How much the plugin adds is measured by the bench (bench/bundleSize.bench.ts, the README's table).

import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { buildGame, docGame, writeGame } from '../../bench/phaserGame.build.js';
import { consumerProject, packedSkip, ROOT, run } from './packed.js';

/** Packages a Phaser game that never compiles a schema nor uses the binary codec must not carry. */
const UNUSED = /node_modules\/(ajv|ajv-formats|fast-uri|json-schema-traverse|typed-binary)\//;

/** tsconfig.json as Vite's `vanilla-ts` template writes it (strict, bundler resolution, no emit). */
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'ESNext',
    moduleResolution: 'bundler',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    isolatedModules: true,
    verbatimModuleSyntax: true,
    noFallthroughCasesInSwitch: true,
  },
  include: ['games/**/*.ts'],
};

/** A scene class, the other way games write scenes: `this.aicc` is typed there too. */
const CLASS_SCENE = `import Phaser from 'phaser';
import { aiccScenePlugin, type AiccScenePlugin } from 'aicc-capsule/phaser';

export class Village extends Phaser.Scene {
  create(): void {
    const plugin: AiccScenePlugin = this.aicc;
    plugin.addCharacter('ada', this.add.rectangle(10, 10, 8, 8));
    // @ts-expect-error: a typo is still caught, the plugin is not \`any\`
    this.aicc.addCharactr('bo', this.add.rectangle(20, 20, 8, 8));
  }
}

export const plugins = { scene: [{ key: 'AiccScenePlugin', plugin: aiccScenePlugin({}), mapping: 'aicc' }] };
`;

/** The consumer project for one Phaser: Phaser 4 linked as itself, or Phaser 3.60 linked as `phaser`. */
function project(phaser: 'phaser' | 'phaser3'): string {
  const dir = consumerProject({ name: `vite-${phaser}`, link: phaser === 'phaser' ? ['typescript', 'vite', 'phaser'] : ['typescript', 'vite'] });
  const linked = join(dir, 'node_modules', 'phaser');
  if (phaser === 'phaser3' && !existsSync(linked)) symlinkSync(join(ROOT, 'node_modules', 'phaser3'), linked, 'dir');
  writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
  return dir;
}

describe.each([
  ['Phaser 4', 'phaser'],
  ['Phaser 3.60', 'phaser3'],
] as const)('a Vite + TypeScript app on %s', (_name, phaser) => {
  it('compiles docs/PHASER.md’s example and a scene class under tsc --strict, and builds it with Vite without ajv or typed-binary', {
    timeout: 240_000,
  }, () => {
    if (packedSkip !== undefined) throw new Error(packedSkip);
    const dir = project(phaser);
    writeGame(dir, 'doc', docGame(ROOT));
    mkdirSync(join(dir, 'games', 'scene'), { recursive: true });
    writeFileSync(join(dir, 'games', 'scene', 'village.ts'), CLASS_SCENE);
    run(join(dir, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], dir);

    const game = buildGame(dir, 'doc', docGame(ROOT));
    // The build holds the plugin, from the installed package, and the engine.
    expect(
      game.sources.some((source) => source.includes('node_modules/aicc-capsule/dist/phaser.js')),
      game.sources.join('\n'),
    ).toBe(true);
    expect(game.sources.some((source) => /node_modules\/phaser3?\//.test(source))).toBe(true);
    expect(game.sources.filter((source) => UNUSED.test(source))).toEqual([]);
  });
});

describe('the aicc-capsule/phaser entry, bundled whole (Phaser left out)', () => {
  it('holds neither the ajv compiler nor typed-binary', { timeout: 240_000 }, async () => {
    if (packedSkip !== undefined) throw new Error(packedSkip);
    const dir = project('phaser');
    const result = await build({
      stdin: { contents: "export * from 'aicc-capsule/phaser';", resolveDir: dir, loader: 'js' },
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      legalComments: 'none',
      external: ['phaser'],
      metafile: true,
      write: false,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(
      inputs.some((input) => input.includes('node_modules/aicc-capsule/dist/phaser.js')),
      inputs.join('\n'),
    ).toBe(true);
    expect(inputs.filter((input) => UNUSED.test(input))).toEqual([]);
    // Nothing in it compiles code at run time: what a CSP without 'unsafe-eval' forbids.
    expect(result.outputFiles[0]!.text).not.toMatch(/\bnew Function\(|\beval\(/);
  });
});
