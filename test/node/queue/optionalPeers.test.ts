// bullmq and ioredis are optional peer dependencies: a program that never sweeps on a queue must
// load without them. So no source file imports them as values but src/node/queue/connection.ts, and it
// only through import() when a queue is first used; elsewhere in src/node/queue they appear as types only.

import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../../../src/', import.meta.url));
const sources = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
const text = (file: string): string => readFileSync(`${src}${file}`, 'utf8');
/** `import … from 'bullmq'` (not `import type`), `export … from 'ioredis'`, `require('bullmq')`. */
const STATIC = /^(?:import|export)\s(?!type\b)[^;]*?from\s+['"](?:bullmq|ioredis)(?:\/[^'"]*)?['"]|\brequire\(\s*['"](?:bullmq|ioredis)/m;
const DYNAMIC = /\bimport\(\s*['"](?:bullmq|ioredis)/;

describe('the optional peers bullmq and ioredis', () => {
  it('are found by these checks (they are not looking at nothing)', () => {
    expect(sources.length).toBeGreaterThan(50);
    expect(STATIC.test(`import { Queue } from 'bullmq';`)).toBe(true);
    expect(STATIC.test(`import type { Queue } from 'bullmq';`)).toBe(false);
    expect(DYNAMIC.test(text('node/queue/connection.ts'))).toBe(true);
  });

  it('are never imported as values at the top of a module', () => {
    expect(sources.filter((file) => STATIC.test(text(file)))).toEqual([]);
  });

  it('are loaded with import() in src/node/queue/connection.ts alone', () => {
    expect(sources.filter((file) => DYNAMIC.test(text(file)))).toEqual(['node/queue/connection.ts']);
  });
});
