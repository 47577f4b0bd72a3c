// An eval across machines, on one machine: a private redis-server, two `aicc worker` processes, the
// coordinator in this process — one worker SIGKILLed in the middle of an episode — and the same eval
// on worker threads: the same episodes, line for line, and the same summary byte for byte (the
// model's wall-time latency aside).

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runEval } from '../../../src/node/eval/runEval.js';
import type { EvalEpisode, EvalSummary } from '../../../src/research/evalResult.js';
import { episodeKey } from '../../../src/research/sweepPlan.js';
import { type StubModel, startStubModel, walkingReply } from '../../e2e/stubModel.js';
import { describeWithRedis, type RedisServer, startRedis } from './redisServer.js';
import { killMidEpisode, killWorker, spawnWorker, type WorkerProcess } from './workerProcess.js';

/** An episode without what wall time decides, or where its recording lies. */
function timeless(episode: EvalEpisode): string {
  const { wallMs: _, decisionMs: __, recording: ___, timeline, ...rest } = episode;
  return JSON.stringify({
    ...rest,
    decisions: timeline.decisions.map(([tick, character, _ms, input, output]) => [tick, character, input, output]),
    calls: timeline.calls,
  });
}

const timelessSummary = (summary: EvalSummary): string =>
  JSON.stringify({ ...summary, rows: summary.rows.map(({ latencyMs, ...row }) => ({ ...row, decisions: latencyMs?.decisions ?? 0 })) });

describeWithRedis('an eval on a BullMQ queue', () => {
  let redis: RedisServer;
  let stub: StubModel;
  let dir: string;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    dir = mkdtempSync(join(tmpdir(), 'aicc-queue-eval-'));
    stub = await startStubModel({ respond: walkingReply });
  }, 20_000);

  afterAll(async () => {
    for (const worker of workers) await killWorker(worker);
    await stub?.close();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 20_000);

  it('compares three agents over 30 seeds on two workers, one SIGKILLed mid-episode: every episode once, as the threads have them', async () => {
    const queueName = 'eval-killed-worker';
    const options = {
      world: 'village',
      agents: ['world=policy:world', 'wanderer=policy:wanderer', `stub=model:stub/stub-model@${stub.baseUrl}`],
      roles: ['cleo'],
      grid: { dayTicks: [160] },
      seeds: '1..30',
    };
    const connection = new Redis(redis.port, '127.0.0.1', { maxRetriesPerRequest: null });
    const queue = new Queue(queueName, { connection });
    const start = (name: string) => {
      const worker = spawnWorker(['--queue', redis.url, '--queue-name', queueName, '--name', name, '--lock-ms', '1000', '--stalled-ms', '500']);
      workers.push(worker);
      return worker;
    };
    const a = start('worker-a');
    const b = start('worker-b');
    await Promise.all([a.ready, b.ready]);
    let killing: Promise<string> | undefined;
    const out = join(dir, 'queue.jsonl');
    const onQueue = await runEval({
      ...options,
      out,
      queue: redis.url,
      queueName,
      progress: (done) => {
        if (done >= 10) killing ??= killMidEpisode(a, 'worker-a', queue);
      },
    });
    await killing;
    expect(await a.exited).toBe('SIGKILL');
    await queue.close();
    connection.disconnect();

    const onThreads = await runEval({ ...options, out: join(dir, 'threads.jsonl'), workers: 2 });
    expect(onQueue.missing).toEqual([]);
    const lines = readFileSync(out, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as EvalEpisode);
    expect(lines).toHaveLength(90);
    expect(new Set(lines.map(episodeKey)).size).toBe(90);
    const threads = new Map(onThreads.episodes.map((episode) => [episodeKey(episode), timeless(episode)]));
    expect(onQueue.episodes.filter((episode) => timeless(episode) !== threads.get(episodeKey(episode))).map(episodeKey)).toEqual([]);
    expect(timelessSummary(onQueue.summary)).toBe(timelessSummary(onThreads.summary));
  }, 240_000);
});
