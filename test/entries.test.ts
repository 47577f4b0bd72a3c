// The table of the package's entries (scripts/entries.mjs) against what it feeds: package.json's
// exports and typesVersions are the ones it generates, every source and program exists, every
// optional peer dependency is some entry's and every entry's peer is one, each adapter's validators
// are where its row says and no entry reaches the module they are generated from.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENTRIES, PROGRAMS, packageExports, typesVersions } from '../scripts/entries.mjs';
import { importGraph } from './importGraph.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
  exports: unknown;
  typesVersions: unknown;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

describe('the table of entries', () => {
  it('makes package.json’s exports and typesVersions (`node scripts/entries.mjs --write`)', () => {
    expect(manifest.exports, 'run `node scripts/entries.mjs --write`').toEqual(packageExports());
    expect(manifest.typesVersions, 'run `node scripts/entries.mjs --write`').toEqual(typesVersions());
  });

  it('names sources that exist, one output name and subpath each', () => {
    for (const { source } of [...ENTRIES, ...PROGRAMS]) expect(existsSync(`${root}${source}`), source).toBe(true);
    const outs = [...ENTRIES, ...PROGRAMS].map((entry) => entry.out);
    expect(new Set(outs).size).toBe(outs.length);
    expect(new Set(ENTRIES.map((entry) => entry.subpath)).size).toBe(ENTRIES.length);
  });

  it('holds every optional peer dependency, and only those', () => {
    const peers = new Set(ENTRIES.flatMap((entry) => entry.peers ?? []));
    expect([...peers].sort()).toEqual(Object.keys(manifest.peerDependencies).sort());
    for (const peer of peers) expect(manifest.peerDependenciesMeta[peer]?.optional, peer).toBe(true);
  });

  it('puts each adapter’s precompiled validators where its row says, generated from a module no entry reaches', () => {
    const rows = ENTRIES.filter((entry) => entry.validators !== undefined);
    // Every adapter folder with a validatorTools.ts has its row, and each row's files are in its own folder.
    const adapters = readdirSync(`${root}src/adapters`).filter((name) => existsSync(`${root}src/adapters/${name}/validatorTools.ts`));
    expect(rows.map((entry) => entry.validators!.tools).sort()).toEqual(adapters.map((name) => `src/adapters/${name}/validatorTools.ts`).sort());
    const reachedByEntries = new Set(ENTRIES.flatMap((entry) => importGraph(`${root}${entry.source}`).files));
    for (const { source, validators } of rows) {
      const folder = source.slice(0, source.lastIndexOf('/') + 1);
      expect(
        [validators!.tools, validators!.out].every((file) => file.startsWith(folder)),
        `${source}: its validators live beside it`,
      ).toBe(true);
      expect(existsSync(`${root}${validators!.out}`), validators!.out).toBe(true);
      expect(reachedByEntries.has(`${root}${validators!.tools}`), validators!.tools).toBe(false);
    }
  });
});
