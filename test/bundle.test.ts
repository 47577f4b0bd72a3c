// Checks the built files in dist/ (npm test builds first): everything outside ./node loads in a
// browser, the compiler-free entries really leave ajv's compiler out, the protocol validators need
// no code generation (CSP), and every entry ships its .d.ts.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { parseAst } from 'rollup/parseAst';
import { describe, expect, it } from 'vitest';
import { ENTRIES as TABLE } from '../scripts/entries.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Every entry's output name, from the table of entries. */
const ENTRIES = TABLE.map((entry) => entry.out);
/** The entries that run in a browser, as their rows say. */
const BROWSER_ENTRIES = TABLE.filter((entry) => entry.platform === 'browser').map((entry) => entry.out);
const IIFE = 'aicc.iife.js';

const NODE_BUILTIN = /^(node:|(fs|path|net|os|child_process|crypto|http|https|stream|url|util|events|buffer|worker_threads|tls|zlib)(\/|$))/;
const WS = /^ws(\/|$)/;
/** The only packages a browser build may import; the bundler of the app resolves them. */
const ALLOWED_EXTERNAL = /^(ajv|ajv\/dist\/.+|ajv-formats|typed-binary|fast-deep-equal)$/;
/** An engine an adapter entry may import (an optional peer dependency), allowed in that entry alone. */
const ENGINE_OF: Record<string, RegExp> = { three: /^three$/, 'three-tools': /^three$/ };
/** ajv's compiler (ajv/dist/runtime/* are small helpers that generated validators import). */
const AJV_COMPILER = /^(ajv|ajv-formats(\/.*)?|ajv\/dist\/(?!runtime\/).+)$/;

/** Reads dist/<file>; a missing file fails the test, it never skips it. */
function read(file: string): string {
  const path = `${root}dist/${file}`;
  if (!existsSync(path)) throw new Error(`dist/${file} is missing: run \`npm run build\` first (npm test does)`);
  return readFileSync(path, 'utf8');
}

interface Scan {
  /** import/export … from, import(): the specifiers. */
  imports: string[];
  /** require(…) calls. */
  requires: string[];
  /** new Function(…), Function(…), eval(…): what a CSP without 'unsafe-eval' blocks. */
  codeGeneration: string[];
}

const scans = new Map<string, Scan>();
/** Finds imports, requires and code generation in the syntax tree (not in strings: ajv's own code
 * holds `require("…")` text that it writes into standalone validators). */
function scan(file: string): Scan {
  const cached = scans.get(file);
  if (cached) return cached;
  const found: Scan = { imports: [], requires: [], codeGeneration: [] };
  const argument = (node: any) => (node?.type === 'Literal' ? String(node.value) : '<computed>');
  const visit = (node: any): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    if (typeof node.type === 'string') {
      if (node.source && /^(Import|Export(All|Named))Declaration$/.test(node.type)) found.imports.push(argument(node.source));
      if (node.type === 'ImportExpression') found.imports.push(argument(node.source));
      const callee = node.callee?.type === 'Identifier' ? node.callee.name : undefined;
      if (node.type === 'CallExpression' && callee === 'require') found.requires.push(argument(node.arguments[0]));
      if ((node.type === 'CallExpression' || node.type === 'NewExpression') && (callee === 'Function' || callee === 'eval')) {
        found.codeGeneration.push(`${node.type === 'NewExpression' ? 'new ' : ''}${callee}(…)`);
      }
    }
    for (const key in node) if (key !== 'type') visit(node[key]);
  };
  visit(parseAst(read(file)));
  scans.set(file, found);
  return found;
}

/** An ESM build and the chunks it imports, with every package specifier they import or require. */
function graph(entry: string): { files: string[]; packages: string[] } {
  const files: string[] = [];
  const packages = new Set<string>();
  const todo = [`${entry}.js`];
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    if (files.includes(file)) continue;
    files.push(file);
    const { imports, requires } = scan(file);
    for (const specifier of [...imports, ...requires]) {
      if (specifier.startsWith('.')) todo.push(posix.normalize(posix.join(posix.dirname(file), specifier)));
      else packages.add(specifier);
    }
  }
  return { files, packages: [...packages].sort() };
}

describe('dist/: every entry is built', () => {
  it.each(ENTRIES)('dist/%s.js and its rolled-up .d.ts', (entry) => {
    expect(read(`${entry}.js`)).toMatch(/\bexport\b/);
    expect(read(`${entry}.d.ts`)).toMatch(/\bexport\b/);
  });

  it('the CLI is executable and starts with a node hashbang', () => {
    expect(read('cli.js').split('\n', 1)[0]).toBe('#!/usr/bin/env node');
    expect(statSync(`${root}dist/cli.js`).mode & 0o111).not.toBe(0);
  });

  it('every file package.json points at exists', () => {
    const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
    const targets: string[] = [pkg.main, pkg.module, pkg.types, pkg.unpkg, pkg.jsdelivr, ...Object.values<string>(pkg.bin)];
    // Conditions nest (`require: { types, default }`): every leaf is a file.
    const leaves = (target: unknown): string[] => (typeof target === 'string' ? [target] : Object.values(target as Record<string, unknown>).flatMap(leaves));
    for (const [subpath, target] of Object.entries<unknown>(pkg.exports)) {
      if (!subpath.includes('*')) targets.push(...leaves(target));
    }
    expect(targets.filter((target) => !existsSync(`${root}${target}`))).toEqual([]);
  });

  it('package.json passes publint (strict)', async () => {
    read('index.js'); // without dist/, fail with the build hint rather than publint's findings
    const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
    const { messages } = await publint({ pkgDir: root, strict: true });
    expect(messages.map((message) => `${message.type}: ${formatMessage(message, pkg)}`)).toEqual([]);
  });
});

describe('browser ESM builds', () => {
  it.each(BROWSER_ENTRIES)('%s imports no Node built-in, no ws, and only the allowed packages', (entry) => {
    const { packages } = graph(entry);
    expect(
      packages.filter((name) => NODE_BUILTIN.test(name)),
      'Node built-ins',
    ).toEqual([]);
    expect(
      packages.filter((name) => WS.test(name)),
      'ws',
    ).toEqual([]);
    expect(
      packages.filter((name) => !ALLOWED_EXTERNAL.test(name) && !(ENGINE_OF[entry]?.test(name) ?? false)),
      'packages outside the allowed set',
    ).toEqual([]);
  });

  // The adapters' own tools come with precompiled validators (src/validators/shapes.ts).
  it.each(['core', 'precompiled', 'phaser', 'three', 'phaser-tools', 'three-tools'])('%s leaves the ajv compiler out', (entry) => {
    const { files, packages } = graph(entry);
    expect(packages.filter((name) => AJV_COMPILER.test(name))).toEqual([]);
    for (const file of files) expect(read(file), file).not.toMatch(/ajv\/dist\/2020|from\s*['"]ajv['"]/);
  });

  // typed-binary serves the binary codec alone, which these never use.
  it.each(['precompiled', 'phaser', 'three', 'inspector'])('%s leaves typed-binary and the binary codec out', (entry) => {
    const { files, packages } = graph(entry);
    expect(packages.filter((name) => name.startsWith('typed-binary'))).toEqual([]);
    expect(files.filter((file) => /binaryCodec/.test(file))).toEqual([]);
  });

  // ajv itself stays external in these builds, so any code generation here would be ours, e.g. the
  // generated protocol validators (src/protocol/generated) falling back to ajv's runtime compile.
  it.each(BROWSER_ENTRIES)('%s generates no code at run time (CSP without unsafe-eval)', (entry) => {
    for (const file of graph(entry).files) expect(scan(file).codeGeneration, file).toEqual([]);
  });
});

describe('dist/aicc-inspector.iife.js (<script> tag)', () => {
  it('is a classic script that defines the global AICCInspector, running nothing else on load', () => {
    const file = 'aicc-inspector.iife.js';
    expect(() => new vm.Script(read(file))).not.toThrow();
    expect([...scan(file).imports, ...scan(file).requires]).toEqual([]);
    // No DOM in this context: loading must not touch one (the panel is built only by mountInspector).
    const context = vm.createContext({}, { codeGeneration: { strings: false, wasm: false } });
    vm.runInContext(read(file), context, { filename: file });
    expect((context as { AICCInspector?: Record<string, unknown> }).AICCInspector?.['mountInspector']).toBeTypeOf('function');
  });
});

describe('dist/aicc-phaser.iife.js (<script> tag)', () => {
  it('defines the global AICCPhaser on top of the page’s AICC global, sharing its runtime', () => {
    const file = 'aicc-phaser.iife.js';
    expect(() => new vm.Script(read(file))).not.toThrow();
    expect([...scan(file).imports, ...scan(file).requires]).toEqual([]);
    // No Phaser global here: the adapter needs none to load (Phaser constructs the plugin later).
    const globals = { console, TextEncoder, TextDecoder, URL, setTimeout, clearTimeout, queueMicrotask, performance, crypto };
    const context = vm.createContext(globals, { codeGeneration: { strings: false, wasm: false } });
    vm.runInContext(read(IIFE), context, { filename: IIFE });
    vm.runInContext(read(file), context, { filename: file });
    const { AICC, AICCPhaser } = context as { AICC?: Record<string, any>; AICCPhaser?: Record<string, any> };
    expect(AICCPhaser?.['AiccScenePlugin']).toBeTypeOf('function');
    expect(AICCPhaser?.['aiccScenePlugin']).toBeTypeOf('function');
    // Its errors are the AICC global's classes, not a second bundled copy.
    let thrown: unknown;
    try {
      AICCPhaser!['aiccScenePlugin']({ perceptionRadius: -1 });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AICC!['CapsuleError']);
    // The plugin's tools are checked by precompiled validators, with code generation off as under a
    // strict CSP, and agree with the AICC global's own wording of a refusal.
    const world = { perceptionRadius: 100, entities: { templates: () => [] } };
    const [nearby] = AICCPhaser!['phaserTools'](world, { only: ['nearby'] });
    const validate = AICCPhaser!['phaserValidators']().compile(nearby.input_schema, { tool: 'nearby', kind: 'input', strict: true });
    expect(validate({ radius: 50 })).toEqual({ ok: true });
    expect(validate({ radius: 150 })).toEqual({ ok: false, message: 'input.radius must be <= 100' });
    expect(validate({ extra: 1 })).toEqual({ ok: false, message: 'input.extra is not a declared field' });
  });
});

describe(`dist/${IIFE} (<script> tag)`, () => {
  it('is a self-contained classic script: no import, no require()', () => {
    const code = read(IIFE);
    expect(() => new vm.Script(code)).not.toThrow(); // a script cannot hold import/export statements
    expect(scan(IIFE).imports, 'import()').toEqual([]);
    expect(scan(IIFE).requires, 'require()').toEqual([]);
  });

  it('defines the global AICC and checks protocol messages under a CSP without unsafe-eval', async () => {
    // A browser-like global: JS built-ins come with the context; no process, require or Buffer.
    const globals = { console, TextEncoder, TextDecoder, URL, setTimeout, clearTimeout, queueMicrotask, performance, crypto };
    // strings:false makes eval and new Function throw, as a CSP without 'unsafe-eval' does.
    const context = vm.createContext(globals, { codeGeneration: { strings: false, wasm: false } });
    vm.runInContext(read(IIFE), context, { filename: IIFE });
    const AICC = (context as { AICC?: Record<string, any> }).AICC;
    expect(AICC, 'the IIFE defines no global AICC').toBeTypeOf('object');
    expect(AICC!['createCapsule']).toBeTypeOf('function');

    // An agent takes its session_init through the checks, the generated session_init validator
    // among them (wire JSON, not trusted objects): they must work without code generation.
    const capsule = AICC!['createCapsule']({ world: { name: 'csp', kind: 'abstract' }, tickMode: 'event' });
    const [bridgeEnd, agentEnd] = AICC!['createMemoryLinkPair']();
    const connecting = AICC!['AgentClient'].connect(agentEnd);
    capsule.connect(bridgeEnd, { character: 'hero' });
    const agent = await connecting;
    expect(agent.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await agent.call('nothing_here', {})).toMatchObject({ ok: false, error: { code: 'tool_unknown' } });
    capsule.dispose();
  });
});
