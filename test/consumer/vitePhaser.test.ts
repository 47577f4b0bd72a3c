// A Vite + TypeScript app with Phaser, as a user makes one: the packed package installed from its
// tarball, docs/PHASER.md's example as its game. On Phaser 4 and on Phaser 3.60 (the `phaser3` dev
// dependency installed as `phaser`), the tsconfig.json of Vite's vanilla-ts template (read from the
// create-vite dev dependency: strict, noUnusedLocals, verbatimModuleSyntax…) accepts it — under the
// template's own TypeScript and under this project's 5.9 (TypeScript 6's defaults the template
// relies on made explicit) — `this.aicc` is typed in every Scene — and `vite build` builds it, without the ajv compiler, fast-uri or typed-binary (the game
// compiles no schema and never uses the binary codec); nor does the adapter entry bundled whole.
// How much the plugin adds is measured by the bench (bench/bundleSize.bench.ts, the README's table).

import { copyFileSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { buildGame, docGame, writeGame } from '../../bench/phaserGame.build.js';
import { consumerProject, packedSkip, ROOT, run } from './packed.js';
import { TEMPLATE, templateTsc } from './viteTemplate.js';

/** Packages a Phaser game that never compiles a schema nor uses the binary codec must not carry. */
const UNUSED = /node_modules\/(ajv|ajv-formats|fast-uri|json-schema-traverse|typed-binary)\//;

/** The template's tsconfig.json (copied beside it as tsconfig.template.json), over the games. */
const TSCONFIG = { extends: './tsconfig.template.json', include: ['games/**/*.ts'] };
/**
 * The same for TypeScript 5.9, which a project may pin: the template leaves out what TypeScript 6
 * turned on by default (strict, noUncheckedSideEffectImports), so it is said here.
 */
const TSCONFIG_5 = { extends: './tsconfig.template.json', compilerOptions: { strict: true, noUncheckedSideEffectImports: true }, include: ['games/**/*.ts'] };

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
  copyFileSync(join(TEMPLATE, 'tsconfig.json'), join(dir, 'tsconfig.template.json'));
  writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
  writeFileSync(join(dir, 'tsconfig.5.json'), `${JSON.stringify(TSCONFIG_5, null, 2)}\n`);
  return dir;
}

describe.each([
  ['Phaser 4', 'phaser'],
  ['Phaser 3.60', 'phaser3'],
] as const)('a Vite + TypeScript app on %s', (_name, phaser) => {
  it('compiles docs/PHASER.md’s example and a scene class under the Vite template’s tsconfig, and builds it with Vite without ajv or typed-binary', {
    timeout: 240_000,
  }, () => {
    if (packedSkip !== undefined) throw new Error(packedSkip);
    const dir = project(phaser);
    writeGame(dir, 'doc', docGame(ROOT));
    mkdirSync(join(dir, 'games', 'scene'), { recursive: true });
    writeFileSync(join(dir, 'games', 'scene', 'village.ts'), CLASS_SCENE);
    run(process.execPath, [templateTsc(), '-p', 'tsconfig.json'], dir);
    run(join(dir, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.5.json'], dir);

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
