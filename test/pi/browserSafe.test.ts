// src/pi (its browser half) must run in a browser, a worker or Node: no Node built-ins, no `ws`, no
// DOM. Walks the import graph from src/pi/index.ts, as a bundler would.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importGraph, NODE_OR_DOM_GLOBAL } from '../importGraph.js';

const entry = fileURLToPath(new URL('../../src/pi/index.ts', import.meta.url));

describe('src/pi is browser-safe', () => {
  const { files, bare } = importGraph(entry);

  it('imports no package (nothing from node: or ws either)', () => {
    expect([...bare]).toEqual([]);
  });

  it('touches no Node or DOM global', () => {
    for (const file of files) {
      const code = readFileSync(file, 'utf8').replace(/\/\/.*$/gm, '');
      expect(code, file).not.toMatch(NODE_OR_DOM_GLOBAL);
    }
  });

  it('reaches the generated validators, not the ajv compiler', () => {
    expect(files.some((f) => f.endsWith('src/pi/generated/peers-validators.js'))).toBe(true);
    expect(files.some((f) => /src\/validators\/ajv\.ts$/.test(f))).toBe(false);
  });
});
