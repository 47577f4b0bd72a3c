// The CommonJS face of the package, written into dist/cjs/ after the rollup builds. The package is
// ES modules; Node ≥ 20.19 (our `engines`) can require() them, so each `require` condition of
// package.json's exports points at a one-line forwarder that requires the ES module itself — one
// copy of the code, so no class exists twice — and at declarations a CommonJS TypeScript project
// can read: the rolled-up .d.ts files copied as .d.cts, their relative imports renamed to match
// (a .d.cts that imported the ES .d.ts would be refused under `module: node16`).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** Writes dist/cjs/ for every export of `root`/package.json that has a `require` condition. */
export function writeCommonJsEntries(root) {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const dist = join(root, 'dist');
  const out = join(dist, 'cjs');
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (typeof target !== 'object' || target.require === undefined) continue;
    const forwarder = join(root, target.require.default);
    const esm = join(root, target.default);
    if (!forwarder.startsWith(out) || !esm.startsWith(dist)) {
      throw new Error(
        `package.json exports["${subpath}"]: its require.default must lie in dist/cjs/ and its default in dist/ (got ${target.require.default}, ${target.default})`,
      );
    }
    const specifier = relative(dirname(forwarder), esm);
    mkdirSync(dirname(forwarder), { recursive: true });
    writeFileSync(forwarder, `'use strict';\nmodule.exports = require('${specifier.startsWith('.') ? specifier : `./${specifier}`}');\n`);
  }
  for (const folder of ['', 'chunks']) {
    mkdirSync(join(out, folder), { recursive: true });
    for (const name of readdirSync(join(dist, folder)).filter((file) => file.endsWith('.d.ts'))) {
      const text = readFileSync(join(dist, folder, name), 'utf8');
      writeFileSync(join(out, folder, name.replace(/\.d\.ts$/, '.d.cts')), renameRelativeImports(text));
    }
  }
}

/** `from './x.js'`, `import './x.js'`, `import('./x.js')` → the same with `.cjs` (resolving to x.d.cts). */
export function renameRelativeImports(declarations) {
  return declarations.replace(/((?:from|import)\s*\(?\s*)(['"])(\.\.?\/[^'"]+)\.js\2/g, '$1$2$3.cjs$2');
}
