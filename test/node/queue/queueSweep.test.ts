// A sweep across machines, on one machine: a private redis-server, `aicc worker` child processes
// and the coordinator in this process. A worker SIGKILLed in the middle of an episode loses nothing
// (its job comes back once its lock lapses), a stopped coordinator resumed later adds only the jobs
// Redis never had, and the results are the same, byte for byte, as the episodes run in-process.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setImmediate as yieldToIo } from 'node:timers/promises';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { aggregate } from '../../../src/research/aggregate.js';
import { runEpisode, type EpisodeSummary } from '../../../src/research/episode.js';
import { jobId, jobKey, planSweep, type SweepJob } from '../../../src/research/sweepPlan.js';
import { villageWorld } from '../../../src/worlds/index.js';
import { runQueueSweep } from '../../../src/node/queue/index.js';
import { describeWithRedis, startRedis, type RedisServer } from './redisServer.js';
import { killMidEpisode, killWorker, spawnWorker, type WorkerProcess } from './workerProcess.js';

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
/** An episode without its one run-dependent field. */
const comparable = (episode: EpisodeSummary): string => JSON.stringify({ ...episode, wallMs: 0 });

describeWithRedis('a sweep on a BullMQ queue', () => {
  let redis: RedisServer;
  let dir: string;
  const workers: WorkerProcess[] = [];
  /** Test-side connections to the queue, to watch it (closed in afterAll). */
  const closers: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    redis = await startRedis();
    dir = mkdtempSync(join(tmpdir(), 'aicc-queue-sweep-'));
  }, 20_000);

  afterAll(async () => {
    for (const close of closers) await close().catch(() => {});
    for (const worker of workers) await killWorker(worker);
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 20_000);

  function watch(queueName: string): { queue: Queue; events: QueueEvents } {
    const connection = new Redis(redis.port, '127.0.0.1', { maxRetriesPerRequest: null });
    const queue = new Queue(queueName, { connection });
    const events = new QueueEvents(queueName, { connection });
    closers.push(
      () => events.close(),
      () => queue.close(),
      async () => connection.disconnect(),
    );
    return { queue, events };
  }

  function startWorker(queueName: string, name: string, ...more: string[]): WorkerProcess {
    const worker = spawnWorker(['--queue', redis.url, '--queue-name', queueName, '--name', name, ...more]);
    workers.push(worker);
    return worker;
  }

  /** Each line of a results file, parsed: duplicates would show here (readResults drops them). */
  const lines = (path: string): EpisodeSummary[] =>
    readFileSync(path, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as EpisodeSummary);

  /** The same plan, episode after episode in this process (yielding between them so the sweep's I/O runs). */
  async function inProcess(plan: readonly SweepJob[]): Promise<EpisodeSummary[]> {
    const episodes: EpisodeSummary[] = [];
    for (const job of plan) {
      episodes.push(await runEpisode(villageWorld, { seed: job.seed, params: job.params }));
      await yieldToIo();
    }
    return episodes;
  }

  it('runs 500 episodes on two worker processes, one SIGKILLed mid-episode: 0 missing, 0 differing, the in-process aggregate byte for byte', async () => {
    const queueName = 'killed-worker';
    const seeds = range(1, 500);
    // ~190 ticks: some seeds meet every goal before nightfall and some do not.
    const grid = { dayTicks: [190] };
    const plan = planSweep(villageWorld, seeds, grid);
    const { queue, events } = watch(queueName);
    const stalled = new Set<string>();
    events.on('stalled', ({ jobId: id }) => stalled.add(id));
    await events.waitUntilReady();
    // Short locks, so the killed worker's job comes back in about two seconds, not a minute.
    const a = startWorker(queueName, 'worker-a', '--lock-ms', '1000', '--stalled-ms', '500');
    const b = startWorker(queueName, 'worker-b', '--lock-ms', '1000', '--stalled-ms', '500');
    await Promise.all([a.ready, b.ready]);

    // Worker A is killed mid-episode once 50 episodes are in (killMidEpisode: frozen, looked at, killed holding a job).
    let killing: Promise<string> | undefined;
    const out = join(dir, 'killed-worker.jsonl');
    const [result, reference] = await Promise.all([
      runQueueSweep({
        world: 'village',
        seeds,
        grid,
        out,
        queue: redis.url,
        queueName,
        pollMs: 500,
        progress: (done) => {
          if (done >= 50) killing ??= killMidEpisode(a, 'worker-a', queue);
        },
      }),
      inProcess(plan),
    ]);
    const killedJob = await killing!;

    expect(await a.exited).toBe('SIGKILL');
    // The job A died holding was put back by B's stall check, and ran again.
    expect(stalled).toContain(killedJob);
    expect(result.jobs).toBe(500);
    expect(result.missing).toEqual([]);
    const written = lines(out);
    expect(written).toHaveLength(500);
    expect(new Set(written.map((episode) => jobKey(episode.world, episode.params, episode.seed))).size).toBe(500);
    expect(written.filter((episode) => jobId(episode) === killedJob)).toHaveLength(1);
    // 0 differing: every episode as the in-process run has it, and the aggregate byte for byte.
    const byKey = new Map(result.episodes.map((episode) => [jobKey(episode.world, episode.params, episode.seed), episode]));
    expect(plan.filter((job) => comparable(byKey.get(job.key)!) !== comparable(reference[plan.indexOf(job)]!))).toEqual([]);
    expect(JSON.stringify(result.aggregate)).toBe(JSON.stringify(aggregate(reference)));
    // The outcome varies by seed, so the comparison is not of 500 equal episodes.
    expect(Object.keys(result.aggregate[0]!.stops).sort()).toEqual(['goals_met', 'nightfall']);
    // Each job was removed once written: Redis keeps only what is in flight.
    expect(await queue.getJobCounts('completed', 'failed', 'waiting', 'active')).toEqual({ completed: 0, failed: 0, waiting: 0, active: 0 });
    // The sweep ended with worker B alone, still serving.
    expect(b.child.exitCode).toBe(null);
  }, 90_000);

  it('resumed after its coordinator stopped mid-sweep, adds only the jobs Redis never had and collects the ones that ran meanwhile', async () => {
    const queueName = 'resumed';
    const seeds = range(1, 120);
    const grid = { dayTicks: [100] };
    const plan = planSweep(villageWorld, seeds, grid);
    const worker = startWorker(queueName, 'worker-c');
    await worker.ready;
    const out = join(dir, 'resumed.jsonl');
    const options = { world: 'village', seeds, grid, out, queue: redis.url, queueName, maxQueued: 30, pollMs: 200 };

    const stop = new AbortController();
    const addedFirst: string[] = [];
    const first = await runQueueSweep({
      ...options,
      signal: stop.signal,
      onAdded: (ids) => addedFirst.push(...ids),
      progress: (done) => {
        if (done >= 40) stop.abort();
      },
    });
    const writtenFirst = 120 - first.missing.length;
    expect(writtenFirst).toBeGreaterThanOrEqual(40);
    // Stopped with jobs still on the queue (they keep running) and jobs never added.
    expect(addedFirst.length).toBeGreaterThan(writtenFirst);
    expect(addedFirst.length).toBeLessThan(120);
    expect(lines(out)).toHaveLength(writtenFirst);

    await expect(runQueueSweep(options)).rejects.toThrow(/is not empty; resume/);

    const addedSecond: string[] = [];
    const second = await runQueueSweep({ ...options, resume: true, onAdded: (ids) => addedSecond.push(...ids) });
    expect(second.missing).toEqual([]);
    expect(second.ran).toBe(first.missing.length);
    // Added now: exactly the jobs the first run never added. The ones it added and did not
    // write were taken from Redis (done while no coordinator ran) or waited for — not added again.
    expect(addedSecond.sort()).toEqual(
      plan
        .map((job) => jobId(job))
        .filter((id) => !addedFirst.includes(id))
        .sort(),
    );
    const written = lines(out);
    expect(written).toHaveLength(120);
    expect(new Set(written.map((episode) => jobKey(episode.world, episode.params, episode.seed)))).toEqual(new Set(plan.map((job) => job.key)));
  }, 60_000);

  it('fails, naming the episode and why, when its world throws on a worker; resume puts the failed job back on the queue', async () => {
    const queueName = 'broken';
    const worker = startWorker(queueName, 'worker-d');
    await worker.ready;
    const options = {
      world: fileURLToPath(new URL('./brokenWorld.mjs', import.meta.url)),
      seeds: [1, 2, 3],
      out: join(dir, 'broken.jsonl'),
      queue: redis.url,
      queueName,
      pollMs: 200,
    };
    const failure =
      /^runQueueSweep: episode broken\/\{\}\/([123]) failed on a worker: the broken world cannot set up; the episodes written so far are kept, and resume retries this one$/;
    const first = await runQueueSweep(options).then(
      () => expect.fail('the sweep of a broken world resolved'),
      (error: Error) => error.message,
    );
    expect(first).toMatch(failure);
    const failedJob = jobId({ world: 'broken', params: {}, seed: Number(failure.exec(first)![1]) });
    const retried: string[] = [];
    await expect(runQueueSweep({ ...options, resume: true, onAdded: (ids) => retried.push(...ids) })).rejects.toThrow(failure);
    expect(retried).toContain(failedJob);
    expect(worker.output()).toContain(`aicc worker: job ${failedJob} failed: the broken world cannot set up`);
  }, 30_000);
});
