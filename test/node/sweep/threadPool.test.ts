import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { planSweep } from '../../../src/research/sweepPlan.js';
import { defaultWorkerUrl, ThreadPool } from '../../../src/node/sweep/threadPool.js';
import { villageWorld } from '../../../src/worlds/village/villageWorld.js';
import { requireBuiltWorker, tempFolder, WORKER } from './helpers.js';

beforeAll(requireBuiltWorker);

const jobs = planSweep(villageWorld, [1, 2, 3], { dayTicks: [10] });
const spec = (index: number, params: Record<string, number> = jobs[index]!.params as Record<string, number>) => ({
  world: 'village',
  seed: jobs[index]!.seed,
  params,
});

let pool: ThreadPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe('ThreadPool', () => {
  it('runs dist/sweepWorker.js of this package by default, found from src/ as from dist/', () => {
    expect(defaultWorkerUrl().href).toBe(pathToFileURL(WORKER).href);
    expect(defaultWorkerUrl(pathToFileURL(join(WORKER, '..', 'chunks', 'any.js'))).href).toBe(pathToFileURL(WORKER).href);
  });

  it('says to build when the package has no compiled worker, and to pass workerUrl outside a package', () => {
    const root = tempFolder();
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'aicc-capsule' }));
    expect(() => defaultWorkerUrl(pathToFileURL(join(root, 'src', 'x.js')))).toThrow(/sweepWorker\.js is missing; run `npm run build`/);
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'someone-else' }));
    expect(() => defaultWorkerUrl(pathToFileURL(join(root, 'src', 'x.js')))).toThrow(/no aicc-capsule package\.json above .*pass workerUrl/);
  });

  it('keeps a thread up after its job throws, and runs the next job on it', async () => {
    const threads: number[] = [];
    pool = new ThreadPool({ size: 1, onThread: ({ worker }) => void threads.push(worker.threadId) });
    await expect(pool.run(jobs[0]!, spec(0, { apples: 99, dayTicks: 10 }))).rejects.toThrow(
      /the episode village seed 1 \(apples=3, dayTicks=10\) failed: village: apples must be/,
    );
    const episode = await pool.run(jobs[1]!, spec(1));
    expect([episode.seed, episode.params]).toEqual([2, { apples: 3, dayTicks: 10 }]);
    expect(new Set(threads).size).toBe(1);
  });

  it('runs one job per thread: a job beyond its size is refused, not queued', async () => {
    pool = new ThreadPool({ size: 2 });
    const running = [pool.run(jobs[0]!, spec(0)), pool.run(jobs[1]!, spec(1))];
    await expect(pool.run(jobs[2]!, spec(2))).rejects.toThrow(/all 2 threads are busy/);
    expect((await Promise.all(running)).map((episode) => episode.seed)).toEqual([1, 2]);
    expect((await pool.run(jobs[2]!, spec(2))).seed).toBe(3);
  });

  it('rejects the jobs in flight when closed, and runs nothing after', async () => {
    pool = new ThreadPool({ size: 1 });
    const running = expect(pool.run(jobs[0]!, spec(0))).rejects.toThrow(/closed while the episode village seed 1 \(apples=3, dayTicks=10\) was in flight/);
    await pool.close();
    await running;
    await expect(pool.run(jobs[1]!, spec(1))).rejects.toThrow(/the pool is closed/);
  });
});
