// What the sweep tests share: the compiled worker they need (built by `npm test` before vitest), a
// private folder per test for results files, and the raw lines of a results file — read without
// readResults, which forgives a line written twice, so "exactly once" is really checked.

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach } from 'vitest';
import type { EpisodeSummary } from '../../../src/research/episode.js';
import { jobKey } from '../../../src/research/sweepPlan.js';

export const WORKER = fileURLToPath(new URL('../../../dist/sweepWorker.js', import.meta.url));

/** Fails (never skips) when the worker is not built: these tests are the proof that sweeps work. */
export function requireBuiltWorker(): void {
  if (!existsSync(WORKER)) throw new Error(`${WORKER} is missing: the sweep tests run the compiled worker; run \`npm run build\` (npm test does it first)`);
}

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A fresh folder, removed after the test. */
export function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'aicc-sweep-'));
  folders.push(folder);
  return folder;
}

/** Every line of a results file, parsed; a torn last line throws. */
export function rawEpisodes(path: string): EpisodeSummary[] {
  const text = readFileSync(path, 'utf8');
  if (text !== '' && !text.endsWith('\n')) throw new Error(`${path} ends in a torn line`);
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as EpisodeSummary);
}

/** How many lines each job key has in a results file. */
export function keyCounts(path: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const episode of rawEpisodes(path)) {
    const key = jobKey(episode.world, episode.params, episode.seed);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** Seeds first..last. */
export function seedRange(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

/**
 * A world module (built on dist/) named `broken`: the village, set up as usual, but whose episodes
 * throw when measured — a failure only running an episode finds, not the check of its setup.
 */
export function brokenWorldModule(folder: string): string {
  const module = join(folder, 'broken.mjs');
  const dist = (name: string): string => pathToFileURL(join(import.meta.dirname, '../../../dist', name)).href;
  writeFileSync(
    module,
    `import { defineWorld } from ${JSON.stringify(dist('research.js'))};
import { villageWorld } from ${JSON.stringify(dist('worlds.js'))};
export default defineWorld({
  ...villageWorld,
  name: 'broken',
  async setup(setup) {
    const episode = await villageWorld.setup(setup);
    return { ...episode, metrics: () => { throw new Error('the broken world cannot measure'); } };
  },
});
`,
  );
  return module;
}
