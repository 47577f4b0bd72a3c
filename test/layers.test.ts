// The rules of DESIGN.md's layering, on the sources as they import each other (value imports): each
// layer imports only downward, and nothing published imports demos/.

import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importGraph } from './importGraph.js';
import { ENTRIES, PROGRAMS } from '../scripts/entries.mjs';

const src = fileURLToPath(new URL('../src/', import.meta.url));
const reached = (entry: string) => importGraph(`${src}${entry}`).files.map((file) => file.slice(src.length - 'src/'.length));

describe('layering', () => {
  it('the inspector does not import the pilot', () => {
    expect(reached('inspector/index.ts').filter((file) => file.startsWith('src/agent/'))).toEqual([]);
  });

  // The layers from the bottom up: base (errors, emitter, microtask batch, clip) → links (pure transports) →
  // protocol (wire, framing, codecs, message checks) → runtime. Each imports only its own and those below.
  const below: Record<string, RegExp> = {
    base: /^src\/base\//,
    links: /^src\/(base|links)\//,
    protocol: /^src\/(base|links|protocol)\//,
    runtime: /^src\/(base|links|protocol|runtime)\//,
  };
  for (const [layer, allowed] of Object.entries(below)) {
    it(`${layer} imports only from the layers below it`, () => {
      const files = readdirSync(`${src}${layer}`, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
      expect(files.length).toBeGreaterThan(0);
      for (const file of files)
        expect(
          reached(`${layer}/${file}`).filter((path) => !allowed.test(path)),
          `${layer}/${file}`,
        ).toEqual([]);
    });
  }

  it("the runtime's files import each other, types included, without a circle", () => {
    const dir = `${src}runtime/`;
    const names = readdirSync(dir).filter((file) => file.endsWith('.ts'));
    const imports = new Map(
      names.map((file) => [
        file,
        [...readFileSync(`${dir}${file}`, 'utf8').matchAll(/(?:import|export)[^;]*?from\s+'\.\/([\w]+)\.js'/g)].map((match) => `${match[1]}.ts`),
      ]),
    );
    // Depth-first: a file met again while it is still on the path closes a circle.
    const circles: string[] = [];
    const done = new Set<string>();
    const visit = (file: string, path: string[]): void => {
      if (path.includes(file)) {
        circles.push([...path.slice(path.indexOf(file)), file].join(' → '));
        return;
      }
      if (done.has(file)) return;
      for (const next of imports.get(file) ?? []) visit(next, [...path, file]);
      done.add(file);
    };
    for (const file of names) visit(file, []);
    expect(imports.get('session.ts')).toContain('sessionParts.ts'); // the pattern reads imports
    expect(circles).toEqual([]);
  });

  it("the ports between the runtime's parts are small: at most 6 members each", () => {
    // The interfaces one runtime part reaches another through (not the public faces, Capsule and
    // SessionView, nor records of settings or options).
    const ports = new Map<string, number>();
    for (const file of readdirSync(`${src}runtime/`).filter((name) => name.endsWith('.ts'))) {
      const text = readFileSync(`${src}runtime/${file}`, 'utf8');
      for (const match of text.matchAll(/export interface (\w+)(?:<[^>]*>)?(?: extends [^{]+)? \{\n([\s\S]*?)\n\}/g)) {
        const members = match[2]!.split('\n').filter((line) => /^ {2}(readonly )?[\w[\]]+\??[(:<]/.test(line));
        ports.set(match[1]!, members.length);
      }
    }
    const named = [
      'CallHost',
      'TickState',
      'BudgetHost',
      'BudgetedSession',
      'DeliveryHost',
      'DeliverySession',
      'DeliveryOutlet',
      'SessionRuntime',
      'SessionReports',
      'ManifestSource',
      'SessionParts',
      'ResumeHost',
      'OutboxTap',
      'LogReader',
    ];
    for (const port of named) expect(ports.get(port), port).toBeGreaterThan(0);
    expect(named.filter((port) => ports.get(port)! > 6).map((port) => `${port}: ${ports.get(port)}`)).toEqual([]);
  });

  it('the conformance suite stands on links and the runtime only', () => {
    expect(reached('conformance/index.ts').filter((file) => !/^src\/(conformance|base|links|protocol|runtime)\//.test(file))).toEqual([]);
  });

  it('research stands on the runtime, the agents and the headless runner, never on Node tools or worlds', () => {
    expect(reached('research/index.ts').filter((file) => !/^src\/(research|base|links|protocol|runtime|agent|adapters\/headless)\//.test(file))).toEqual([]);
  });

  it('the worlds import research and adapters, never Node tools', () => {
    expect(reached('worlds/index.ts').filter((file) => /^src\/node\//.test(file))).toEqual([]);
  });

  it('no entry but the root one imports the root barrel (it brings the ajv compiler along)', () => {
    for (const entry of ENTRIES.filter(({ subpath }) => subpath !== '.').map(({ source }) => source.replace(/^src\//, ''))) {
      expect(reached(entry), entry).not.toContain('src/index.ts');
    }
  });

  it('no published entry, the CLI included, reaches demos/ or anything outside src/', () => {
    // Every entry and program of the table (scripts/entries.mjs), as paths under src/.
    const entries = [...ENTRIES, ...PROGRAMS].map(({ source }) => source.replace(/^src\//, ''));
    expect(entries).toContain('node/cli/bin.ts');
    for (const entry of entries)
      expect(
        reached(entry).filter((file) => !file.startsWith('src/')),
        entry,
      ).toEqual([]);
  });
});
