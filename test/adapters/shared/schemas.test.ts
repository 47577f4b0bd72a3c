// The schema pieces the adapters share, and the folder's one promise: it runs wherever the
// adapters do, so it imports no engine and nothing of Node.

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NO_INPUT, objectOf, POINT_2D_SCHEMA, POINT_3D_SCHEMA } from '../../../src/adapters/shared/schemas.js';

const SOURCE = new URL('../../../src/adapters/shared/', import.meta.url);

describe('objectOf', () => {
  it('requires every property unless told which', () => {
    expect(objectOf({ x: { type: 'number' }, y: { type: 'number' } })).toEqual({
      type: 'object',
      properties: { x: { type: 'number' }, y: { type: 'number' } },
      required: ['x', 'y'],
    });
    expect(objectOf({ x: { type: 'number' }, speed: { type: 'number' } }, ['x']).required).toEqual(['x']);
  });

  it('builds the points and the empty input every adapter uses', () => {
    expect(POINT_2D_SCHEMA.required).toEqual(['x', 'y']);
    expect(POINT_3D_SCHEMA.required).toEqual(['x', 'y', 'z']);
    expect(NO_INPUT).toEqual({ type: 'object', properties: {} });
  });
});

describe('src/adapters/shared', () => {
  it('imports only the layers below the adapters (base, protocol, runtime): no engine, no Node built-in, no adapter', () => {
    const files = readdirSync(SOURCE).filter((file) => file.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(2);
    for (const file of files) {
      const source = readFileSync(new URL(file, SOURCE), 'utf8');
      for (const [, specifier] of source.matchAll(/^\s*(?:import|export)[^'"]*from\s+'([^']+)'/gm)) {
        expect(specifier, `${file} imports ${specifier}`).toMatch(/^(\.\/[a-zA-Z]+|\.\.\/\.\.\/(base|protocol|runtime)\/[a-zA-Z/]+)\.js$/);
      }
    }
  });
});
