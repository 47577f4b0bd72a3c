// Research runs at scale: how many agent decisions a second one core drives in the swarm world, how
// sweeps scale from one worker thread to two, and what a BullMQ queue on a local Redis costs a sweep.
//
// Rows and baselines:
// - "swarm decisions/s per core": runEpisode of the swarm world (every decision a sense call and a
//   move or eat call over aicc/0.1, in-process agents) against the bare loop (demos/swarm/bare.ts:
//   the same world and brains, no protocol), both on this one thread. Beside it, the anchor the issue
//   names: Godot RL Agents, about 3,000 agent steps a second per core.
// - "sweep, 2 worker threads vs 1": the same village sweep (2,000 episodes: long enough that each
//   thread's start and JIT warm-up do not dominate) through runSweep with 1 and then 2 workers from
//   the built dist/ (what `aicc sweep` runs); the ratio is (time with 2) ÷ (time with 1), and 2 cores
//   give at best 0.5. Target: episodes/s with 2 workers ≥ 1.7× one worker (ratio ≤ 0.59). Beside
//   it, the same two sweeps' process CPU time per episode (every thread's), which a busy machine does
//   not skew: 2 workers should spend ≤ 1.1× the CPU of 1 an episode (issue #27).
// - "sweep on BullMQ vs worker threads": the same sweep through runQueueSweep, its episodes run by one
//   `aicc worker --concurrency 4` child process (dist/cli.js, as a machine of a sweep runs it; the
//   concurrency lets Redis round trips overlap episodes on its one thread), against runSweep with
//   one worker thread; the overhead is the queue's share of the wall time. Redis, the coordinator and
//   the worker share this machine's 2 cores. Target ≤ 5%. Not measured, with a row note, when no
//   redis-server.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BareSwarm } from '../demos/swarm/bare.js';
import { runEpisode } from '../src/research/episode.js';
import { swarmWorld } from '../src/worlds/index.js';
import { redisSkip, startRedis } from '../test/node/queue/redisServer.js';
import { repoRoot, type BenchOptions, type BenchRow } from './row.js';

const root = repoRoot(import.meta.url);
/** The built package, as `aicc sweep` and `aicc worker` run it (worker threads need compiled JS). */
const dist = (file: string): Promise<any> => import(pathToFileURL(join(root, 'dist', file)).href);

const GODOT_RL_STEPS_PER_CORE = 3000;

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  return [await swarmDecisions(options), ...(await sweeps(options))];
}

async function swarmDecisions(options: BenchOptions): Promise<BenchRow> {
  const params = { foragers: options.quick ? 16 : 128, size: 64, foodDensity: 0.2, regrowPerTick: 16 };
  const maxTicks = options.quick ? 20 : 600;
  await runEpisode(swarmWorld, { seed: 0, params, maxTicks: Math.min(maxTicks, 100) }); // JIT warm-up
  const started = performance.now();
  const summary = await runEpisode(swarmWorld, { seed: 1, params, maxTicks });
  const capsule = summary.metrics.decisions! / ((performance.now() - started) / 1000);

  const bare = new BareSwarm({ seed: 1, ...params });
  for (let i = 0; i < 100; i++) bare.step();
  const bareStarted = performance.now();
  for (let i = 0; i < maxTicks; i++) bare.step();
  const bareSeconds = (performance.now() - bareStarted) / 1000;
  const bareDecisions = bare.state().foragers.reduce((sum, forager) => sum + forager.decisions, 0) * (maxTicks / (maxTicks + 100));
  const baseline = bareDecisions / bareSeconds;
  return {
    name: 'research: swarm decisions/s per core (runEpisode vs bare loop)',
    capsule,
    baseline,
    unit: 'decisions/s',
    ratio: baseline / capsule,
    note: `${params.foragers} foragers, ${maxTicks} ticks, one thread; each decision is a sense and a move or eat call over aicc/0.1; anchor: Godot RL ~${GODOT_RL_STEPS_PER_CORE.toLocaleString('en-US')} steps/s per core (${(capsule / GODOT_RL_STEPS_PER_CORE).toFixed(1)}× that)`,
  };
}

async function sweeps(options: BenchOptions): Promise<BenchRow[]> {
  const { runSweep } = await dist('node.js');
  const seeds = Array.from({ length: options.quick ? 8 : 1000 }, (_, i) => i + 1);
  const plan = { world: 'village', seeds, grid: { dayTicks: [190, 600] } } as const;
  const dir = mkdtempSync(join(tmpdir(), 'aicc-bench-sweep-'));
  try {
    // Wall time, and this process's CPU time (every thread's: the workers are threads of it), so the CPU row holds on a busy machine.
    const cpuSeconds = (): number => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1e6;
    };
    const cpu: Record<string, number> = {};
    const timed = async (name: string, sweep: (out: string) => Promise<unknown>): Promise<number> => {
      const started = performance.now();
      const cpuAtStart = cpuSeconds();
      await sweep(join(dir, `${name}.jsonl`));
      cpu[name] = cpuSeconds() - cpuAtStart;
      return (performance.now() - started) / 1000;
    };
    const one = await timed('one', (out) => runSweep({ ...plan, out, workers: 1 }));
    const two = await timed('two', (out) => runSweep({ ...plan, out, workers: 2 }));
    const episodes = seeds.length * 2;
    const rows: BenchRow[] = [
      {
        name: 'research: sweep CPU time per episode, 2 worker threads vs 1',
        capsule: (cpu['two']! * 1000) / episodes,
        baseline: (cpu['one']! * 1000) / episodes,
        unit: 'ms CPU/episode',
        ratio: cpu['two']! / cpu['one']!,
        note: `${episodes} village episodes; process CPU time (user + system, all threads); 1 worker keeps ${(cpu['one']! / one).toFixed(2)} cores busy, 2 keep ${(cpu['two']! / two).toFixed(2)}; target ≤ 1.1×`,
      },
      {
        name: 'research: sweep episodes/s, 2 worker threads vs 1',
        capsule: episodes / two,
        baseline: episodes / one,
        unit: 'episodes/s',
        ratio: two / one,
        note: `${episodes} village episodes; 2 workers run ${(one / two).toFixed(2)}× the episodes/s of 1 (target ≥ 1.7×; 2 cores)`,
      },
    ];
    rows.push(await queueRow(plan, dir, one, episodes));
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function queueRow(
  plan: { world: string; seeds: number[]; grid: Record<string, readonly number[]> },
  dir: string,
  threadSeconds: number,
  episodes: number,
): Promise<BenchRow> {
  const name = 'research: sweep on BullMQ (1 queue worker) vs 1 worker thread';
  if (redisSkip !== undefined) return { name, capsule: 1, baseline: 1, unit: 's', ratio: 1, note: `not measured: ${redisSkip}` };
  const redis = await startRedis();
  try {
    const { runQueueSweep } = await dist('queue.js');
    const worker = spawn(process.execPath, [join(root, 'dist', 'cli.js'), 'worker', '--queue', redis.url, '--concurrency', '4'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let queueSeconds: number;
    try {
      // It prints a line once it serves the queue.
      await new Promise((resolve, reject) => {
        worker.stdout!.once('data', resolve);
        worker.once('exit', (code) => reject(new Error(`bench research: aicc worker exited (${code}) before serving the queue`)));
      });
      const started = performance.now();
      await runQueueSweep({ ...plan, out: join(dir, 'queue.jsonl'), queue: redis.url });
      queueSeconds = (performance.now() - started) / 1000;
    } finally {
      if (worker.exitCode === null) worker.kill('SIGTERM');
    }
    const overhead = (queueSeconds - threadSeconds) / queueSeconds;
    return {
      name,
      capsule: queueSeconds,
      baseline: threadSeconds,
      unit: 's',
      ratio: queueSeconds / threadSeconds,
      note: `${episodes} village episodes, one \`aicc worker --concurrency 4\` process; the queue's share of the wall time: ${(overhead * 100).toFixed(1)}%, ${(((queueSeconds - threadSeconds) * 1000) / episodes).toFixed(2)} ms an episode (target ≤ 5%)`,
    };
  } finally {
    await redis.stop();
  }
}
