// `aicc worker`: its usage errors (exit 2, before anything connects), a Redis it cannot reach
// (exit 1, a message saying where and what to do), and, as a real child process on a private
// Redis, serving a queue until SIGTERM stops it cleanly (exit 0).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQueueSweep } from '../../../src/node/queue/index.js';
import { workerCommand } from '../../../src/node/cli/workerCommand.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWithRedis, freePort, startRedis, type RedisServer } from '../queue/redisServer.js';
import { killWorker, spawnWorker, type WorkerProcess } from '../queue/workerProcess.js';

async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await workerCommand(argv, { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } });
  return { code, stdout, stderr };
}

describe('aicc worker, used wrongly', () => {
  it('--help prints the usage and exits 0', async () => {
    const { code, stdout } = await run('--help');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^aicc worker — run the episodes of sweeps queued on Redis/);
    expect(stdout).toContain('--queue URL');
  });

  it.each([
    [[], /name the queue with --queue redis:\/\/HOST:PORT/],
    [['--queue', 'localhost:6379'], /the queue URL must be redis:\/\/HOST:PORT\[\/DB\] \(rediss:\/\/ for TLS\), got "localhost:6379"/],
    [['--queue', 'redis://127.0.0.1:1', '--queue-name', 'a:b'], /a queue name is 1 to 100 letters/],
    [['--queue', 'redis://127.0.0.1:1', '--concurrency', '0'], /--concurrency takes a whole number from 1 to 256; got 0/],
    [['--queue', 'redis://127.0.0.1:1', '--lock-ms', '5s'], /--lock-ms takes a whole number of ms >= 100; got 5s/],
    [['--queue', 'redis://127.0.0.1:1', '--frobnicate'], /unknown option "--frobnicate"; run `aicc worker --help`/],
  ])('%j exits 2 with a message that says what to write', async (argv, message) => {
    const { code, stderr } = await run(...argv);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^aicc worker: /);
    expect(stderr).toMatch(message);
  });

  it('exits 1 when nothing answers at the queue URL, saying where it looked', async () => {
    const port = await freePort();
    const { code, stderr } = await run('--queue', `redis://127.0.0.1:${port}`);
    expect(code).toBe(1);
    expect(stderr).toMatch(new RegExp(`^aicc worker: cannot reach Redis at redis://127\\.0\\.0\\.1:${port} \\(.*ECONNREFUSED.*\\); start redis-server there`));
  });
});

describeWithRedis('aicc worker, serving a queue', () => {
  let redis: RedisServer;
  let dir: string;
  const workers: WorkerProcess[] = [];
  beforeAll(async () => {
    redis = await startRedis();
    dir = mkdtempSync(join(tmpdir(), 'aicc-worker-command-'));
  }, 20_000);
  afterAll(async () => {
    for (const worker of workers) await killWorker(worker);
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 20_000);

  it('runs the episodes a sweep queues, and SIGTERM stops it with exit 0 and a count', async () => {
    const worker = spawnWorker(['--queue', redis.url]);
    workers.push(worker);
    await worker.ready;
    expect(worker.output()).toContain(`aicc worker: serving queue aicc-sweep on ${redis.url}; Ctrl-C stops`);
    // The default queue name on both ends: they meet without being told one.
    const result = await runQueueSweep({ world: 'village', seeds: [1, 2, 3], grid: { dayTicks: [60] }, out: join(dir, 'three.jsonl'), queue: redis.url });
    expect(result.missing).toEqual([]);
    expect(result.episodes.map((episode) => episode.seed)).toEqual([1, 2, 3]);
    process.kill(worker.pid, 'SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(worker.output()).toContain('aicc worker: stopped after 3 episodes');
  }, 30_000);
});
