import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatAggregate } from '../../../src/research/aggregate.js';
import { runEpisode } from '../../../src/research/episode.js';
import type { SweepJob } from '../../../src/research/sweepPlan.js';
import { workerWorld } from '../../../src/node/sweep/prepareSweep.js';
import { runSweep } from '../../../src/node/sweep/runSweep.js';
import type { SweepResult } from '../../../src/node/sweep/sweepResult.js';
import { villageWorld } from '../../../src/worlds/village/villageWorld.js';
import { brokenWorldModule, keyCounts, rawEpisodes, requireBuiltWorker, seedRange, tempFolder } from './helpers.js';

beforeAll(requireBuiltWorker);

/** key → state hash of every episode of a sweep. */
const hashes = (result: SweepResult): Record<string, string> =>
  Object.fromEntries(result.episodes.map((episode) => [`${JSON.stringify(episode.params)}/${episode.seed}`, episode.stateHash]));

/** Records every job handed to a thread; `kill` says which start to terminate its thread on. */
function threadLog(kill: (start: number, job: SweepJob) => boolean = () => false) {
  const started: SweepJob[] = [];
  const workers = new Set<Worker>();
  const onThread = ({ job, worker }: { job: SweepJob; worker: Worker }): void => {
    started.push(job);
    workers.add(worker);
    if (kill(started.length, job)) void worker.terminate();
  };
  return { started, workers, onThread };
}

describe('runSweep on worker threads', () => {
  it('gives a byte-identical aggregate and the same state hash per seed on 1 and on 2 threads (200 episodes)', async () => {
    const folder = tempFolder();
    // Around 190 ticks the day is short enough that some seeds meet every goal and some do not.
    const options = { world: 'village', seeds: seedRange(1, 100), grid: { apples: [1, 3], dayTicks: [190] } };
    const log = threadLog();
    const one = await runSweep({ ...options, out: join(folder, 'one.jsonl'), workers: 1 });
    const two = await runSweep({ ...options, out: join(folder, 'two.jsonl'), workers: 2, onThread: log.onThread });
    expect(log.workers.size).toBe(2);
    for (const result of [one, two]) expect([result.jobs, result.ran, result.episodes.length, result.missing.length]).toEqual([200, 200, 200, 0]);
    expect(JSON.stringify(two.aggregate)).toBe(JSON.stringify(one.aggregate));
    expect(formatAggregate(two.aggregate)).toBe(formatAggregate(one.aggregate));
    expect(hashes(two)).toEqual(hashes(one));
    // Two rows, and they differ: the sweep measured something.
    expect(one.aggregate.map((row) => row.params.apples)).toEqual([1, 3]);
    expect(one.aggregate[0]!.stops).not.toEqual(one.aggregate[1]!.stops);
    // The threads ran the same episodes as this process does.
    for (const seed of [1, 2]) {
      const here = await runEpisode(villageWorld, { seed, params: { apples: 3, dayTicks: 190 } });
      expect(two.episodes.find((episode) => episode.seed === seed && episode.params.apples === 3)!.stateHash).toBe(here.stateHash);
    }
  }, 60_000);

  it('completes with every seed exactly once when a worker thread is killed mid-sweep', async () => {
    const out = join(tempFolder(), 'results.jsonl');
    const log = threadLog((start) => start === 20);
    const result = await runSweep({ world: 'village', seeds: seedRange(1, 40), grid: { dayTicks: [40] }, out, workers: 2, onThread: log.onThread });
    expect(result.missing).toEqual([]);
    expect(result.ran).toBe(40);
    const counts = keyCounts(out);
    expect(counts.size).toBe(40);
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
    // The killed thread's job was given again, to a fresh thread.
    expect(log.started).toHaveLength(41);
    expect(log.started.filter((job) => job.key === log.started[19]!.key)).toHaveLength(2);
    expect(log.workers.size).toBe(3);
  });

  it('fails on an episode that throws, naming it, without retrying it; every thread is ended; nothing was in the results file', async () => {
    const log = threadLog();
    const folder = tempFolder();
    const out = join(folder, 'r.jsonl');
    // The broken world sets up (the check before the sweep passes) but throws when its episode is measured.
    const sweep = runSweep({ world: brokenWorldModule(folder), seeds: [1, 2, 3], maxTicks: 5, out, workers: 1, onThread: log.onThread });
    await expect(sweep).rejects.toThrow(
      /the episode broken seed 1 \(apples=3, dayTicks=600\) failed: the broken world cannot measure; the sweep stops, .*--resume runs the rest/,
    );
    expect(log.started.map((job) => job.seed)).toEqual([1]);
    expect([...log.workers].map((worker) => worker.threadId)).toEqual([-1]);
    expect(existsSync(out)).toBe(false); // made at the first episode, and none came
  });

  it('gives up on a job that kills its thread three times, naming it', async () => {
    const out = join(tempFolder(), 'r.jsonl');
    const log = threadLog((_start, job) => job.seed === 2);
    const sweep = runSweep({ world: 'village', seeds: [1, 2, 3, 4], grid: { dayTicks: [20] }, out, workers: 2, onThread: log.onThread });
    await expect(sweep).rejects.toThrow(/the episode village seed 2 \(apples=3, dayTicks=20\) killed its worker thread 3 times/);
    expect(log.started.filter((job) => job.seed === 2)).toHaveLength(3);
    expect([...log.workers].every((worker) => worker.threadId === -1)).toBe(true);
    expect(keyCounts(out).size).toBeLessThan(4);
  });

  it('stops handing out jobs on its signal, writes the ones in flight and lists the rest as missing', async () => {
    const out = join(tempFolder(), 'r.jsonl');
    const controller = new AbortController();
    const log = threadLog();
    const result = await runSweep({
      world: 'village',
      seeds: seedRange(1, 30),
      grid: { dayTicks: [40] },
      out,
      workers: 2,
      signal: controller.signal,
      onThread: log.onThread,
      progress: (done) => void (done === 5 && controller.abort()),
    });
    expect(result.episodes.length).toBeGreaterThanOrEqual(5);
    expect(result.episodes.length).toBeLessThanOrEqual(6); // the other thread's episode in flight
    expect(result.missing).toHaveLength(30 - result.episodes.length);
    expect(new Set(log.started.map((job) => job.key))).toEqual(new Set(keyCounts(out).keys()));
    const aborted = await runSweep({ world: 'village', seeds: [1], out: join(tempFolder(), 'none.jsonl'), signal: controller.signal });
    expect([aborted.ran, aborted.missing.length]).toEqual([0, 1]);
  });

  it('loads a world module given by a relative path', async () => {
    const folder = tempFolder();
    const module = join(folder, 'hamlet.mjs');
    const dist = (name: string): string => pathToFileURL(join(import.meta.dirname, '../../../dist', name)).href;
    writeFileSync(
      module,
      `import { defineWorld } from ${JSON.stringify(dist('research.js'))};\nimport { villageWorld } from ${JSON.stringify(dist('worlds.js'))};\nexport default defineWorld({ ...villageWorld, name: 'hamlet', params: { ...villageWorld.params, dayTicks: 30 } });\n`,
    );
    const path = relative(process.cwd(), module);
    expect(workerWorld(path)).toBe(module);
    expect(workerWorld('village')).toBe('village');
    const result = await runSweep({ world: path, seeds: [1, 2], out: join(folder, 'r.jsonl'), workers: 1 });
    expect(result.episodes.map((episode) => [episode.world, episode.params.dayTicks, episode.seed])).toEqual([
      ['hamlet', 30, 1],
      ['hamlet', 30, 2],
    ]);
  });

  it('refuses bad options before starting a thread', async () => {
    const out = join(tempFolder(), 'r.jsonl');
    const log = threadLog();
    const base = { world: 'village', seeds: [1], out, onThread: log.onThread };
    await expect(runSweep({ ...base, workers: 0 })).rejects.toThrow(/workers must be a whole number from 1 to 256/);
    await expect(runSweep({ ...base, grid: { apple: [1] } })).rejects.toThrow(/no parameter "apple"/);
    // A value the world's setup refuses is found by setting it up once here, not by a failed job.
    await expect(runSweep({ ...base, grid: { apples: [1, 99] } })).rejects.toThrow(/the world "village" refuses apples=99 \(its setup with seed 1 threw: /);
    await expect(runSweep({ ...base, seeds: '1..3,2' })).rejects.toThrow(/seeds lists seed 2 twice/);
    await expect(runSweep({ ...base, seeds: [2 ** 53] })).rejects.toThrow(/seeds must be whole numbers from -9007199254740991 to 9007199254740991/);
    await expect(runSweep({ ...base, world: 'hamlet' })).rejects.toThrow(/no built-in world named "hamlet"/);
    await expect(runSweep({ ...base, hashEvery: 0 })).rejects.toThrow(/hashEvery must be a whole number >= 1/);
    await expect(runSweep({ ...base, workerUrl: pathToFileURL(join(tempFolder(), 'missing.js')) })).rejects.toThrow(/missing\.js does not exist/);
    expect(log.started).toEqual([]);
    expect(existsSync(out)).toBe(false);
  });

  it('takes its seeds as text, ranges included, and runs them in the order listed', async () => {
    const out = join(tempFolder(), 'r.jsonl');
    const log = threadLog();
    const result = await runSweep({ world: 'village', seeds: '-2..0,7', grid: { dayTicks: [10] }, out, workers: 1, onThread: log.onThread });
    expect(log.started.map((job) => job.seed)).toEqual([-2, -1, 0, 7]);
    expect([result.jobs, result.ran, result.missing.length]).toEqual([4, 4, 0]);
  });
});

describe('runSweep --resume', () => {
  it('runs only the episodes the results file lacks, cutting off a torn last line', async () => {
    const folder = tempFolder();
    const options = { world: 'village', seeds: seedRange(1, 12), grid: { dayTicks: [40] } };
    const reference = await runSweep({ ...options, out: join(folder, 'reference.jsonl'), workers: 2 });
    const lines = readFileSync(join(folder, 'reference.jsonl'), 'utf8').split('\n');
    const kept = `${lines.slice(0, 5).join('\n')}\n`;
    const partial = join(folder, 'partial.jsonl');
    writeFileSync(partial, `${kept}${lines[5]!.slice(0, 40)}`); // killed while writing the sixth

    await expect(runSweep({ ...options, out: partial })).rejects.toThrow(/partial\.jsonl is not empty; resume/);
    expect(readFileSync(partial, 'utf8')).toBe(`${kept}${lines[5]!.slice(0, 40)}`);

    const log = threadLog();
    const resumed = await runSweep({ ...options, out: partial, resume: true, workers: 2, onThread: log.onThread });
    const heldKeys = new Set(
      rawEpisodes(join(folder, 'reference.jsonl'))
        .slice(0, 5)
        .map((episode) => `${JSON.stringify(episode.params)}/${episode.seed}`),
    );
    expect(resumed.ran).toBe(7);
    expect(log.started).toHaveLength(7);
    expect(log.started.some((job) => heldKeys.has(`${JSON.stringify(job.params)}/${job.seed}`))).toBe(false);
    expect(readFileSync(partial, 'utf8').startsWith(kept)).toBe(true);
    const counts = keyCounts(partial); // throws on a torn line
    expect(counts.size).toBe(12);
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
    expect(hashes(resumed)).toEqual(hashes(reference));
    expect(JSON.stringify(resumed.aggregate)).toBe(JSON.stringify(reference.aggregate));

    // Complete: nothing runs, no thread starts.
    const again = await runSweep({ ...options, out: partial, resume: true, onThread: log.onThread });
    expect([again.ran, again.episodes.length, log.started.length]).toEqual([0, 12, 7]);
  });
});
