// vitest's projects: `unit` and `dom` (the inner loop), the projects vitest.projects.ts lists (which
// file goes where, and why), and the adapters' tests again against the oldest peers they support
// (their rows in scripts/entries.mjs).
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { configDefaults, defineConfig } from 'vitest/config';
import { ENTRIES } from './scripts/entries.mjs';
import { ALL_TESTS, CLAIMING_PROJECTS, DOM, UNIT } from './vitest.projects.js';

const root = fileURLToPath(new URL('.', import.meta.url));

/** The test files (paths from the root, as globs write them) whose opening comment says `@vitest-environment jsdom`. */
function jsdomFiles(): string[] {
  return readdirSync(`${root}test`, { recursive: true, encoding: 'utf8' })
    .map((path) => `test/${path.split(sep).join('/')}`)
    .filter((file) => file.endsWith('.test.ts') && !file.split('/').some((part) => part.startsWith('.')))
    .filter((file) => /^(\s*\/\/.*\n)*\s*\/\/ @vitest-environment jsdom\b/.test(readFileSync(`${root}${file}`, 'utf8')));
}

const claimed = CLAIMING_PROJECTS.flatMap((project) => project.include);

/**
 * vitest's order (groups, then projects by name, then the longest first by the last run's times),
 * except that in each group the projects of LONG_FIRST start first: their files run for minutes on
 * one core (the local model has one thread), so the group's other worker takes every other file
 * meanwhile — started last, they would run alone at the end, the other core idle.
 */
const LONG_FIRST = ['model'];
class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => [spec.project.config.sequence.groupOrder, LONG_FIRST.includes(spec.project.name) ? 0 : 1];
    return sorted
      .map((spec, index) => ({ spec, index, rank: rank(spec) }))
      .sort((a, b) => a.rank[0]! - b.rank[0]! || a.rank[1]! - b.rank[1]! || a.index - b.index)
      .map(({ spec }) => spec);
  }
}
const dom = jsdomFiles();

export default defineConfig({
  test: {
    environment: 'node',
    // Files that need a DOM say so with a `// @vitest-environment jsdom` docblock.
    testTimeout: 20_000,
    pool: 'forks',
    sequence: { sequencer: LongFilesFirst },
    // Phaser is loaded as it ships: transforming its 8.8 MB build would cost ~10 s per test file.
    server: { deps: { external: [/node_modules\/phaser3?\//] } },
    projects: [
      // The inner loop. Its files reuse a worker and its module cache (isolate: false): a third of the
      // CPU of a fresh process and module graph per file — so a file leaves no global behind
      // (vi.unstubAllGlobals). And every core runs a worker (vitest leaves one to itself by default):
      // a good part of these tests waits on processes they start, not on the CPU.
      {
        extends: true,
        test: {
          name: UNIT,
          include: [ALL_TESTS],
          exclude: [...configDefaults.exclude, ...claimed, ...dom],
          isolate: false,
          maxWorkers: availableParallelism(),
          sequence: { groupOrder: 0 },
        },
      },
      // The same for jsdom files, in a group of their own: a group's projects share its worker count,
      // and a worker is reused only for a file in the same environment as the one before.
      {
        extends: true,
        test: { name: DOM, include: dom, exclude: [...configDefaults.exclude, ...claimed], environment: 'jsdom', isolate: false, sequence: { groupOrder: 1 } },
      },
      // The rest as before: a fresh process per file — on every core too (a group shares one worker
      // count): most of these files wait on the processes they start (pi, Chromium, Redis, the model),
      // and with vitest's default of one worker on two cores the other core sat idle 40% of the run.
      ...CLAIMING_PROJECTS.map(({ name, include, exclude = [] }) => ({
        extends: true as const,
        test: { name, include, exclude: [...configDefaults.exclude, ...exclude], maxWorkers: availableParallelism(), sequence: { groupOrder: 2 } },
      })),
      // Each adapter's tests again against the oldest peer it supports, as its row in the table of
      // entries says (scripts/entries.mjs: the project's name, files, env, and an alias of the peer).
      ...ENTRIES.flatMap(({ oldest }) =>
        oldest === undefined
          ? []
          : [
              {
                extends: true as const,
                ...(oldest.alias !== undefined && { resolve: { alias: [{ find: new RegExp(oldest.alias.find), replacement: oldest.alias.replacement }] } }),
                test: {
                  name: oldest.project,
                  include: oldest.include,
                  ...(oldest.exclude !== undefined && { exclude: oldest.exclude }),
                  ...(oldest.env !== undefined && { env: oldest.env }),
                  maxWorkers: availableParallelism(),
                  sequence: { groupOrder: 2 },
                },
              },
            ],
      ),
    ],
  },
});
