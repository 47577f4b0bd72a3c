// The app a user starts from: `npm create vite` → Vanilla → TypeScript, read from the create-vite
// dev dependency's own template-vanilla-ts at test time (never copied by hand), so a new template
// — new compiler options, a new TypeScript — reaches the tests when the dev dependency moves.
// Its TypeScript is the one the template asks for (the dev dependency `typescript7`, linked into the
// app as `typescript`: the template's `tsc && vite build` runs it), its Vite this project's.
// docs.test.ts compiles the docs' code blocks under the template's tsconfig.json, vitePhaser.test.ts
// the Phaser example, and test/e2e/browser/csp.test.ts builds the docs' first Phaser and Three
// examples as template apps and loads them under a strict CSP.

import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { consumerProject, ROOT, run } from './packed.js';

/** create-vite's vanilla-ts template, as `npm create vite` copies it. */
export const TEMPLATE = join(ROOT, 'node_modules', 'create-vite', 'template-vanilla-ts');
/** The dev dependency holding the TypeScript the template asks for (an alias: `typescript` is this project's own 5.9). */
export const TEMPLATE_TYPESCRIPT = join(ROOT, 'node_modules', 'typescript7');

interface Manifest {
  version: string;
  scripts?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;

/** create-vite's version, e.g. `9.3.0`. */
export function createViteVersion(): string {
  return readJson<Manifest>(join(ROOT, 'node_modules', 'create-vite', 'package.json')).version;
}

/** The template's package.json. */
export function templateManifest(): Manifest {
  return readJson<Manifest>(join(TEMPLATE, 'package.json'));
}

/** The template's tsconfig.json (JSON with comments), read as TypeScript reads it. */
export function templateTsconfig(): { compilerOptions: Record<string, unknown>; include?: string[] } {
  const path = join(TEMPLATE, 'tsconfig.json');
  const parsed = ts.parseConfigFileTextToJson(path, readFileSync(path, 'utf8'));
  if (parsed.error !== undefined) throw new Error(`${path}: ${ts.flattenDiagnosticMessageText(parsed.error.messageText, '\n')}`);
  return parsed.config as { compilerOptions: Record<string, unknown>; include?: string[] };
}

/** Whether `version` is in `range`: the forms package.json ranges in the template take (`x.y.z`, `~x.y.z`, `^x.y.z`). */
export function satisfies(version: string, range: string): boolean {
  const match = /^([~^]?)(\d+)\.(\d+)\.(\d+)$/.exec(range.trim());
  const have = /^(\d+)\.(\d+)\.(\d+)$/.exec(version)?.slice(1).map(Number);
  if (match === null || have === undefined) throw new Error(`satisfies: cannot read ${version} against ${range}`);
  const [, kind, ...parts] = match;
  const want = parts.map(Number) as [number, number, number];
  const atLeast = have[0]! !== want[0] ? have[0]! > want[0] : have[1]! !== want[1] ? have[1]! > want[1] : have[2]! >= want[2];
  if (kind === '') return have.join('.') === want.join('.');
  if (kind === '~') return have[0] === want[0] && have[1] === want[1] && atLeast;
  return (want[0] > 0 ? have[0] === want[0] : have[1] === want[1]) && atLeast;
}

/**
 * The template's `tsc`: the dev dependency `typescript7`, once it is checked to be the TypeScript
 * the template asks for (and this project's Vite the Vite it asks for); throws what to move otherwise.
 */
export function templateTsc(): string {
  const asks = templateManifest().devDependencies ?? {};
  const typescript = readJson<Manifest>(join(TEMPLATE_TYPESCRIPT, 'package.json')).version;
  const vite = readJson<Manifest>(join(ROOT, 'node_modules', 'vite', 'package.json')).version;
  const problems = [
    asks.typescript !== undefined && !satisfies(typescript, asks.typescript)
      ? `typescript ${asks.typescript}, but the dev dependency typescript7 is ${typescript} (npm install -D --save-exact typescript7@npm:typescript@<a version in range>)`
      : undefined,
    asks.vite !== undefined && !satisfies(vite, asks.vite) ? `vite ${asks.vite}, but this project's vite is ${vite}` : undefined,
  ].filter((problem) => problem !== undefined);
  if (problems.length > 0) throw new Error(`create-vite ${createViteVersion()}'s vanilla-ts template asks for ${problems.join('; and ')}`);
  return join(TEMPLATE_TYPESCRIPT, 'bin', 'tsc');
}

/** The engine a template app installs: Phaser 4, Phaser 3.90 or 3.60 (dev dependency aliases, installed as `phaser`), three. */
export type Engine = 'phaser' | 'phaser390' | 'phaser3' | 'three' | 'pixi';

/** Links `from` (in this project's node_modules) as `to` in the app's, unless something is there already. */
function linkAs(app: string, to: string, from: string): void {
  const path = join(app, 'node_modules', to);
  try {
    lstatSync(path);
    return;
  } catch {
    // not there yet
  }
  mkdirSync(join(path, '..'), { recursive: true });
  try {
    symlinkSync(from, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/**
 * A vanilla-ts template app as `npm create vite` makes it, with the packed aicc-capsule and one engine
 * installed: the template's files (index.html, tsconfig.json, src/, public/), its package.json scripts,
 * its TypeScript as `typescript`. Its folder; the caller pastes a program into src/main.ts.
 */
export function templateApp(name: string, engine: Engine): string {
  const tsc = templateTsc();
  const linked = engine === 'three' ? ['three', '@types/three'] : engine === 'phaser' ? ['phaser'] : engine === 'pixi' ? ['pixi.js'] : [];
  const { scripts } = templateManifest();
  const app = consumerProject({ name, link: ['vite', ...linked], manifest: { type: 'module', version: '0.0.0', scripts } });
  if (engine === 'phaser3' || engine === 'phaser390') linkAs(app, 'phaser', join(ROOT, 'node_modules', engine));
  linkAs(app, 'typescript', TEMPLATE_TYPESCRIPT);
  linkAs(app, join('.bin', 'tsc'), tsc);
  for (const entry of ['index.html', 'tsconfig.json', 'src', 'public']) {
    if (existsSync(join(TEMPLATE, entry))) cpSync(join(TEMPLATE, entry), join(app, entry), { recursive: true });
  }
  return app;
}

/** Pastes `main` as the app's src/main.ts and runs `npm run build` (the template's `tsc && vite build`); the built folder. */
export function buildTemplateApp(app: string, main: string): string {
  writeFileSync(join(app, 'src', 'main.ts'), main);
  run('npm', ['run', 'build', '--silent'], app);
  return join(app, 'dist');
}
