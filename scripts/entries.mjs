// The package's entries, one row each: the table package.json's exports and typesVersions are
// generated from (`node scripts/entries.mjs --write`; test/entries.test.ts fails when they differ),
// and that rollup.config.mjs (the builds), scripts/generate-validators.ts (an adapter's precompiled
// validators), vitest.config.ts (the oldest-peer test projects), test/bundle.test.ts (which entries
// load in a browser) and test/layers.test.ts (what no entry may reach) read. A new engine adapter is
// its own folder plus one row here (and its docs).
//
// A row:
//   subpath     the export's subpath ('.' for the root)
//   out         dist/<out>.js and dist/<out>.d.ts (CommonJS forwarders in dist/cjs/<out>.cjs)
//   source      the module the entry is built from
//   platform    'browser' (loads in a page: no Node built-in, no code generation) or 'node'
//   peers       the optional peer dependencies it imports (they stay external)
//   iife        the global of its <script>-tag bundle, when it has one
//   validators  an adapter's precompiled validators: `tools`, a module exporting toolDefinitions()
//               (its tools in every shape their options give), written to `out` (and its .d.ts)
//   oldest      its tests again against the oldest peer it supports: a vitest project's name,
//               include and exclude globs, env, and an alias of the peer to its old dev dependency

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** @type {import('./entries.d.mts').Entry[]} */
export const ENTRIES = [
  { subpath: '.', out: 'index', source: 'src/index.ts', platform: 'browser', iife: 'AICC' },
  { subpath: './core', out: 'core', source: 'src/core.ts', platform: 'browser' },
  { subpath: './ajv', out: 'ajv', source: 'src/validators/ajv.ts', platform: 'browser' },
  { subpath: './precompiled', out: 'precompiled', source: 'src/validators/precompiled.ts', platform: 'browser' },
  { subpath: './text', out: 'text', source: 'src/adapters/text/index.ts', platform: 'browser' },
  { subpath: './text/tools', out: 'text-tools', source: 'src/adapters/text/toolsEntry.ts', platform: 'browser' },
  { subpath: './headless', out: 'headless', source: 'src/adapters/headless/index.ts', platform: 'browser' },
  { subpath: './recording', out: 'recording', source: 'src/recording/index.ts', platform: 'browser' },
  { subpath: './conformance', out: 'conformance', source: 'src/conformance/index.ts', platform: 'browser' },
  { subpath: './pi', out: 'pi', source: 'src/pi/index.ts', platform: 'browser' },
  { subpath: './pilot', out: 'pilot', source: 'src/agent/pilot/index.ts', platform: 'browser' },
  { subpath: './inspector', out: 'inspector', source: 'src/inspector/index.ts', platform: 'browser', iife: 'AICCInspector' },
  {
    subpath: './three',
    out: 'three',
    source: 'src/adapters/three/index.ts',
    platform: 'browser',
    peers: ['three'],
    validators: { tools: 'src/adapters/three/validatorTools.ts', out: 'src/adapters/three/generated/three-validators.js', label: 'the Three tools' },
    // Every import of 'three', the adapter's own included, goes to the `three150` dev dependency (three 0.150.0).
    oldest: {
      project: 'three 0.150',
      include: ['test/adapters/three/**/*.test.ts'],
      env: { AICC_THREE: 'three150' },
      alias: { find: '^three$', replacement: 'three150' },
    },
  },
  { subpath: './three/tools', out: 'three-tools', source: 'src/adapters/three/toolsEntry.ts', platform: 'browser', peers: ['three'] },
  {
    subpath: './phaser',
    out: 'phaser',
    source: 'src/adapters/phaser/index.ts',
    platform: 'browser',
    peers: ['phaser'],
    iife: 'AICCPhaser',
    validators: { tools: 'src/adapters/phaser/validatorTools.ts', out: 'src/adapters/phaser/generated/phaser-validators.js', label: 'the Phaser tools' },
    // The `phaser3` dev dependency (Phaser 3.60.0) as a bundler loads it, its ES module build; the
    // files that never load Phaser (plain geometry, tool options, the meter) run once, in `unit`.
    oldest: {
      project: 'phaser 3.60',
      include: ['test/adapters/phaser/**/*.test.ts'],
      exclude: ['test/adapters/phaser/{perception,tools,meter}.test.ts'],
      env: { AICC_PHASER: 'phaser3/dist/phaser.esm.js' },
    },
  },
  { subpath: './phaser/tools', out: 'phaser-tools', source: 'src/adapters/phaser/toolsEntry.ts', platform: 'browser', peers: ['phaser'] },
  {
    subpath: './pixi',
    out: 'pixi',
    source: 'src/adapters/pixi/index.ts',
    platform: 'browser',
    peers: ['pixi.js'],
    validators: { tools: 'src/adapters/pixi/validatorTools.ts', out: 'src/adapters/pixi/generated/pixi-validators.js', label: 'the PixiJS tools' },
    // Every import of 'pixi.js' goes to the `pixi80` dev dependency (PixiJS 8.0.0), the oldest v8;
    // the validators' test never loads PixiJS and runs once, in `unit`.
    oldest: {
      project: 'pixi 8.0',
      include: ['test/adapters/pixi/**/*.test.ts'],
      exclude: ['test/adapters/pixi/validators.test.ts'],
      env: { AICC_PIXI: 'pixi80' },
      alias: { find: '^pixi\\.js$', replacement: 'pixi80' },
    },
  },
  { subpath: './node', out: 'node', source: 'src/node/index.ts', platform: 'node', peers: ['@earendil-works/pi-ai', '@mariozechner/pi-ai'] },
  { subpath: './research', out: 'research', source: 'src/research/index.ts', platform: 'browser' },
  { subpath: './worlds', out: 'worlds', source: 'src/worlds/index.ts', platform: 'browser' },
  { subpath: './queue', out: 'queue', source: 'src/node/queue/index.ts', platform: 'node', peers: ['bullmq', 'ioredis'] },
  { subpath: './mcp', out: 'mcp', source: 'src/mcp/index.ts', platform: 'node', peers: ['@modelcontextprotocol/sdk'] },
];

/** What is built besides the entries: the `aicc` bin, and what a sweep's worker threads run (compiled: workers need no TypeScript loader). */
export const PROGRAMS = [
  { out: 'cli', source: 'src/node/cli/bin.ts' },
  { out: 'sweepWorker', source: 'src/node/sweep/sweepWorker.ts' },
];

/** Exports that are files, not entries. */
const FILE_EXPORTS = { './schemas/*': './schemas/*', './package.json': './package.json' };

/** package.json's `exports`, as the table makes it. */
export function packageExports(entries = ENTRIES) {
  const exports = {};
  for (const { subpath, out } of entries)
    exports[subpath] = {
      require: { types: `./dist/cjs/${out}.d.cts`, default: `./dist/cjs/${out}.cjs` },
      types: `./dist/${out}.d.ts`,
      default: `./dist/${out}.js`,
    };
  return { ...exports, ...FILE_EXPORTS };
}

/** package.json's `typesVersions`: the subpaths for TypeScript's node10 resolution, which reads no exports. */
export function typesVersions(entries = ENTRIES) {
  return { '*': Object.fromEntries(entries.filter(({ subpath }) => subpath !== '.').map(({ subpath, out }) => [subpath.slice(2), [`./dist/${out}.d.ts`]])) };
}

/** Writes package.json's exports and typesVersions from the table, keeping the rest of it as it is. */
function write() {
  const file = new URL('../package.json', import.meta.url);
  let text = readFileSync(file, 'utf8');
  // Only the two fields change: the rest of the file keeps its layout.
  for (const [field, value] of [
    ['exports', packageExports()],
    ['typesVersions', typesVersions()],
  ]) {
    const start = text.indexOf(`\n  "${field}": {`);
    if (start < 0) throw new Error(`package.json has no top-level "${field}" object`);
    const open = text.indexOf('{', start);
    text = `${text.slice(0, open)}${layout(value, '  ')}${text.slice(closing(text, open) + 1)}`;
  }
  JSON.parse(text);
  writeFileSync(file, text);
  console.log('package.json: exports and typesVersions written from scripts/entries.mjs');
}

/** The index of the brace that closes the one at `open` (strings skipped). */
function closing(text, open) {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      for (i++; text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (char === '{' || char === '[') depth++;
    else if ((char === '}' || char === ']') && --depth === 0) return i;
  }
  throw new Error('package.json: an object is never closed');
}

/** JSON laid out as the project's formatter keeps it: an object or array of plain values on one line when it fits in 160 columns. */
function layout(value, indent) {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const entries = Array.isArray(value) ? value.map((item) => [undefined, item]) : Object.entries(value);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) return `${open}${close}`;
  const key = (name) => (name === undefined ? '' : `${JSON.stringify(name)}: `);
  const flat = entries.every(([, item]) => item === null || typeof item !== 'object');
  const inline = `${open}${Array.isArray(value) ? '' : ' '}${entries.map(([name, item]) => key(name) + JSON.stringify(item)).join(', ')}${Array.isArray(value) ? '' : ' '}${close}`;
  if (flat && indent.length + inline.length + 40 <= 160) return inline;
  const inner = `${indent}  `;
  return `${open}\n${entries.map(([name, item]) => inner + key(name) + layout(item, inner)).join(',\n')}\n${indent}${close}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--write')) write();
