// Three builds: ESM (one file per entry, dependencies external), rolled-up .d.ts per entry, and a
// self-contained minified IIFE for a plain <script> tag. Run through scripts/build.mjs.
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import commonjs from '@rollup/plugin-commonjs';
import json from '@rollup/plugin-json';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import terser from '@rollup/plugin-terser';
import typescript from '@rollup/plugin-typescript';
import { dts } from 'rollup-plugin-dts';
import { ENTRIES, PROGRAMS } from './scripts/entries.mjs';

/** Output name (dist/<name>.js, dist/<name>.d.ts) → source: the table of entries (scripts/entries.mjs). */
const entries = Object.fromEntries(ENTRIES.map(({ out, source }) => [out, source]));
/** The `aicc` bin and the sweep's worker, built beside the entries. */
const programs = Object.fromEntries(PROGRAMS.map(({ out, source }) => [out, source]));
const cli = programs.cli;
/** The global of an entry's <script>-tag bundle (its row's iife). */
const globalOf = (out) => ENTRIES.find((entry) => entry.out === out).iife;
const here = dirname(fileURLToPath(import.meta.url));
/**
 * What the Phaser IIFE takes from the page's AICC global instead of bundling: the modules whose every
 * name it imports is on that global (the runtime's public list, src/core.ts), so both share one
 * runtime — one capsule, one CapsuleError and ToolError class. Everything else it imports (the
 * adapters' shared helpers, its validators' lookup, tool overrides) comes along in its bundle.
 */
const fromAiccGlobal = [
  'src/base/errors.js',
  'src/base/clock.js',
  'src/runtime/capsule.js',
  'src/runtime/tool.js',
  'src/protocol/codec.js',
  'src/protocol/objectCodec.js',
].map((file) => resolve(here, file));

// @rollup/plugin-typescript fails on tsconfig's noEmit/outDir and would emit declarations itself:
// rollup-plugin-dts does the types. tsconfig.build.json makes src/ the only root files, so type
// errors in tests cannot stop a build; type errors in src/ are printed as warnings by the ESM build
// (`npm run typecheck` is the gate). The filter must still admit files outside src/ that src/ imports.
const ts = (extra = {}) =>
  typescript({
    tsconfig: './tsconfig.build.json',
    include: ['**/*.ts'],
    exclude: ['node_modules/**'],
    target: 'ES2022',
    declaration: false,
    declarationMap: false,
    outDir: undefined,
    rootDir: undefined,
    noEmit: false,
    ...extra,
  });

// Every non-relative import stays external (ajv/…, typed-binary, fast-deep-equal, ws, node:*),
// except tslib: the typescript plugin forces `importHelpers` and resolves tslib itself, so any helper
// gets bundled (tslib is not a runtime dependency).
const external = (id) => !id.startsWith('.') && !isAbsolute(id) && !id.startsWith('\0') && id !== 'tslib';

const onwarn = (warning, warn) => {
  // The IIFE must be self-contained: an import it cannot resolve would become an undefined global.
  if (warning.code === 'UNRESOLVED_IMPORT') throw new Error(warning.message);
  // ajv's CommonJS sources have harmless import cycles.
  if (warning.code === 'CIRCULAR_DEPENDENCY' && warning.ids?.every((id) => id.includes('node_modules'))) return;
  warn(warning);
};

/** Makes `#!/usr/bin/env node` (from the banner below) the one hashbang of dist/cli.js: rollup keeps
 * an entry's own hashbang, so a cli.ts that has one would otherwise get two. */
const shebang = () => ({
  name: 'aicc-shebang',
  transform(code, id) {
    // Blanking the line keeps line numbers, so the source map stays right.
    if (id.endsWith(cli) && code.startsWith('#!')) return { code: code.replace(/^#!.*/, ''), map: null };
    return null;
  },
});

export default [
  {
    input: { ...entries, ...programs },
    external,
    onwarn,
    // No type check here: `npm test` runs `tsc --noEmit` over src/ and tests right after (it was a third of the build).
    plugins: [shebang(), ts({ noCheck: true })],
    output: {
      dir: 'dist',
      format: 'es',
      sourcemap: true,
      entryFileNames: '[name].js',
      // Code shared by entries lives in chunks, so e.g. `.` and `./core` share one CapsuleError class.
      chunkFileNames: 'chunks/[name]-[hash].js',
      banner: (chunk) => (chunk.isEntry && chunk.name === 'cli' ? '#!/usr/bin/env node' : ''),
    },
  },
  {
    input: entries,
    external,
    plugins: [dts({ tsconfig: './tsconfig.build.json' })],
    output: { dir: 'dist', format: 'es', entryFileNames: '[name].d.ts', chunkFileNames: 'chunks/[name]-[hash].d.ts' },
  },
  {
    input: entries.index,
    onwarn,
    plugins: [nodeResolve({ browser: true, preferBuiltins: false }), commonjs(), json(), ts({ noCheck: true })],
    output: {
      file: 'dist/aicc.iife.js',
      format: 'iife',
      name: globalOf('index'),
      exports: 'named',
      plugins: [terser({ format: { comments: false } })],
    },
  },
  {
    // The inspector for <script> pages: global AICCInspector, mounted on a capsule from the AICC global.
    input: entries.inspector,
    onwarn,
    plugins: [ts({ noCheck: true })],
    output: {
      file: 'dist/aicc-inspector.iife.js',
      format: 'iife',
      name: globalOf('inspector'),
      exports: 'named',
      plugins: [terser({ format: { comments: false } })],
    },
  },
  {
    // The Phaser adapter for <script> pages: global AICCPhaser, standing on the page's AICC global
    // (dist/aicc.iife.js, loaded first) for the runtime it shares with it (fromAiccGlobal).
    input: entries.phaser,
    onwarn,
    external: (id, importer) => importer !== undefined && id.startsWith('.') && fromAiccGlobal.includes(resolve(dirname(importer), id)),
    plugins: [ts({ noCheck: true })],
    output: {
      file: 'dist/aicc-phaser.iife.js',
      format: 'iife',
      name: globalOf('phaser'),
      exports: 'named',
      globals: () => 'AICC',
      plugins: [terser({ format: { comments: false } })],
    },
  },
];
