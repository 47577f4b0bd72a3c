// src/pi (its browser half) must run in a browser, a worker or Node: no Node built-ins, no `ws`, no
// DOM. Walks the import graph from src/pi/index.ts, as a bundler would.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const entry = fileURLToPath(new URL('../../src/pi/index.ts', import.meta.url));

function importGraph(start: string): { files: string[]; bare: Set<string> } {
  const files: string[] = [];
  const bare = new Set<string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.includes(file)) continue;
    files.push(file);
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(/^(?:import|export)\s(?!type\b)[^'"]*?from\s+'([^']+)'/gm)) {
      const spec = match[1]!;
      if (!spec.startsWith('.')) {
        bare.add(spec);
        continue;
      }
      const target = resolve(dirname(file), spec);
      queue.push(target.endsWith('.js') && !target.includes('/generated/') ? target.replace(/\.js$/, '.ts') : target);
    }
  }
  return { files, bare };
}

describe('src/pi is browser-safe', () => {
  const { files, bare } = importGraph(entry);

  it('imports no package but mitt (and nothing from node: or ws)', () => {
    expect([...bare]).toEqual(['mitt']);
  });

  it('touches no Node or DOM global', () => {
    for (const file of files) {
      const code = readFileSync(file, 'utf8').replace(/\/\/.*$/gm, '');
      expect(code, file).not.toMatch(/\b(?:process|Buffer|require|window|document|__dirname)\b[.(]/);
    }
  });

  it('reaches the generated validators, not the ajv compiler', () => {
    expect(files.some((f) => f.endsWith('src/pi/generated/peers-validators.js'))).toBe(true);
    expect(files.some((f) => /src\/validators\/ajv\.ts$/.test(f))).toBe(false);
  });
});
