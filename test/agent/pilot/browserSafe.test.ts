// The pilot runs wherever the capsule does (browser, worker, Node): no Node built-ins, no DOM, no
// package but mitt. Walks the import graph from src/agent/pilot/index.ts, as a bundler would.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importGraph, NODE_OR_DOM_GLOBAL } from '../../importGraph.js';

const entry = fileURLToPath(new URL('../../../src/agent/pilot/index.ts', import.meta.url));

describe('src/agent/pilot is browser-safe', () => {
  const { files, bare } = importGraph(entry);

  it('imports no package', () => {
    expect([...bare]).toEqual([]);
  });

  it('touches no Node or DOM global, and no file is past 350 lines', () => {
    for (const file of files.filter((f) => f.includes('/pilot/'))) {
      const source = readFileSync(file, 'utf8');
      expect(source.replace(/\/\/.*$/gm, ''), file).not.toMatch(NODE_OR_DOM_GLOBAL);
      expect(source.split('\n').length, file).toBeLessThan(350);
    }
  });
});
