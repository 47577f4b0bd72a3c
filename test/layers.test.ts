// The rules of DESIGN.md's layering, on the sources as they import each other (value imports): each
// layer imports only downward, and nothing published imports demos/.

import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importGraph } from './importGraph.js';

const src = fileURLToPath(new URL('../src/', import.meta.url));
const reached = (entry: string) => importGraph(`${src}${entry}`).files.map((file) => file.slice(src.length - 'src/'.length));

describe('layering', () => {
  it('the inspector does not import the pilot', () => {
    expect(reached('inspector/index.ts').filter((file) => file.startsWith('src/agent/'))).toEqual([]);
  });

  it('the runtime imports no adapter, agent, pi client, inspector or Node tool', () => {
    const runtime = readdirSync(`${src}runtime`).filter((file) => file.endsWith('.ts'));
    for (const file of runtime) expect(reached(`runtime/${file}`).filter((path) => !/^src\/(runtime|links|validators)\//.test(path)), file).toEqual([]);
  });

  it('the conformance suite stands on links and the runtime only', () => {
    expect(reached('conformance/index.ts').filter((file) => !/^src\/(conformance|links|runtime)\//.test(file))).toEqual([]);
  });

  it('no published entry, the CLI included, reaches demos/ or anything outside src/', () => {
    const entries = ['index.ts', 'core.ts', 'conformance/index.ts', 'inspector/index.ts', 'agent/pilot/index.ts', 'pi/index.ts', 'adapters/text/index.ts', 'adapters/headless/index.ts', 'adapters/three/index.ts', 'adapters/phaser/index.ts', 'recording/index.ts', 'node/index.ts', 'node/cli.ts'];
    for (const entry of entries) expect(reached(entry).filter((file) => !file.startsWith('src/')), entry).toEqual([]);
  });
});
