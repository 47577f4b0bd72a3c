// The pilot runs wherever the capsule does (browser, worker, Node): no Node built-ins, no DOM, no
// package but mitt. Walks the import graph from src/agent/pilot/index.ts, as a bundler would.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const entry = fileURLToPath(new URL('../../../src/agent/pilot/index.ts', import.meta.url));

function importGraph(start: string): { files: string[]; bare: Set<string> } {
  const files: string[] = [];
  const bare = new Set<string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.includes(file)) continue;
    files.push(file);
    for (const match of readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s(?!type\b)[^'"]*?from\s+'([^']+)'/gm)) {
      const spec = match[1]!;
      if (!spec.startsWith('.')) bare.add(spec);
      else queue.push(resolve(dirname(file), spec).replace(/\.js$/, '.ts'));
    }
  }
  return { files, bare };
}

describe('src/agent/pilot is browser-safe', () => {
  const { files, bare } = importGraph(entry);

  it('imports no package but mitt', () => {
    expect([...bare]).toEqual(['mitt']);
  });

  it('touches no Node or DOM global, and no file is past 350 lines', () => {
    for (const file of files.filter((f) => f.includes('/pilot/'))) {
      const source = readFileSync(file, 'utf8');
      expect(source.replace(/\/\/.*$/gm, ''), file).not.toMatch(/\b(?:process|Buffer|require|window|document|__dirname)\b[.(]/);
      expect(source.split('\n').length, file).toBeLessThan(350);
    }
  });
});
