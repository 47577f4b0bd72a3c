// `aicc sweep WORLD --seeds 1..N --out results.jsonl`: episodes of a world over seeds and a params
// grid, on this machine's worker threads (or, with --queue, on BullMQ workers anywhere), one JSON
// line per episode as each finishes, then the aggregate table. Usage mistakes are found before any
// episode runs (exit 2), so a typo never costs a half-finished sweep.

import { formatAggregate } from '../../research/aggregate.js';
import { MAX_SEEDS } from '../../research/sweepPlan.js';
import { readArgs } from './args.js';
import type { CliIo } from './cliIo.js';
import { progressBar, type ProgressBar, type ProgressStream } from './progress.js';
import { type PreparedSweep, prepareSweep } from '../sweep/prepareSweep.js';
import { MAX_WORKERS, runPreparedSweep } from '../sweep/runSweep.js';
import type { SweepOptions, SweepResult } from '../sweep/sweepResult.js';
import { BUILT_IN_WORLDS } from '../sweep/loadWorld.js';
import { SeedList } from '../sweep/seedList.js';
import { firstCtrlC, paramsGrid, wholeNumbers } from './sweepArgs.js';
import { userMessage } from './userMessage.js';

const HELP = `aicc sweep — episodes of a world over seeds and parameters, on worker threads

Usage: aicc sweep WORLD --seeds 1..N --out results.jsonl [options]

WORLD is a built-in world (${BUILT_IN_WORLDS.join(', ')}) or the path of a compiled JavaScript
module whose default export (or export \`world\`) is made with defineWorld (aicc-capsule/research).
Every combination of the --param values runs with every seed; each episode is appended to the
results file as one JSON line the moment it ends, so a killed sweep loses only the episodes in
flight. At the end the aggregate (mean, sd, min, max per metric and params) is printed; it is the
same, byte for byte, whatever the number of workers.

Options:
  --seeds LIST         seeds to run: 1..200, 1,5,9 or both (1..10,20); whole numbers within
                       ±(2^53 - 1), negative ones too (--seeds -5..3), at most ${MAX_SEEDS}
  --param NAME=V1,V2   values to try for one of the world's parameters; repeat for more
                       parameters (default: the world's defaults). Each combination is set up
                       once before the sweep starts, so a value the world refuses stops it at once
  --out FILE           the results file (JSON lines); refused if it holds episodes, unless --resume
  --resume             keep the episodes already in --out and run only the missing ones
  --workers K          worker threads (default: the machine's available parallelism, at most ${MAX_WORKERS})
  --max-ticks N        most ticks per episode (default: the world's)
  --hash-every K       also record the state hash every K ticks of each episode
  --json               print {world, jobs, ran, held, missing, out, aggregate} as JSON instead of
                       the table (missing: how many episodes of the sweep the file lacks)
  --queue redis://HOST:PORT
                       enqueue the jobs on BullMQ instead (run \`aicc worker --queue …\` on any
                       machine); needs the optional dependencies bullmq and ioredis
  --queue-name NAME    with --queue: the BullMQ queue (default aicc-sweep; its workers need the same)
  -h, --help           this help

A progress bar (episodes done, per second, time left) is drawn on stderr when it is a terminal.
Ctrl-C stops handing out episodes; those in flight are written, and --resume finishes the sweep.

Exit codes: 0 every episode is in the results file, 1 the sweep failed (an episode threw, a
worker kept dying), 2 bad usage or a results file that cannot be used, 130 stopped by Ctrl-C.
`;

/** What `--queue` loads: the BullMQ sweep (src/node/queue/), kept out of the way of those without bullmq. */
export interface QueueModule {
  runQueueSweep(options: SweepOptions & { queue: string; queueName?: string }): Promise<SweepResult>;
}

/** What a test hands in instead of the process's own: Ctrl-C, the worker entry, the queue module. */
export interface SweepRuntime {
  signal?: AbortSignal;
  workerUrl?: URL;
  loadQueue?: () => Promise<QueueModule>;
}

export async function sweepCommand(argv: string[], io: CliIo, runtime: SweepRuntime = {}): Promise<number> {
  const usage = (message: string): number => {
    io.stderr.write(`aicc sweep: ${message}; run \`aicc sweep --help\`\n`);
    return 2;
  };
  const parsed = readArgs(argv, {
    options: {
      seeds: { type: 'string' },
      param: { type: 'string', multiple: true },
      out: { type: 'string' },
      resume: { type: 'boolean' },
      workers: { type: 'string' },
      'max-ticks': { type: 'string' },
      'hash-every': { type: 'string' },
      json: { type: 'boolean' },
      queue: { type: 'string' },
      'queue-name': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    positionals: true,
  });
  if (typeof parsed === 'string') return usage(parsed);
  const { values } = parsed;
  const { positionals } = parsed;
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals.length !== 1) return usage('name one world, a built-in one or a module');
  if (values.seeds === undefined) return usage('--seeds is required (e.g. --seeds 1..200)');
  if (values.out === undefined) return usage('--out is required: the results file, one JSON line per episode');
  const numbers = wholeNumbers(values, ['workers', 'max-ticks', 'hash-every'] as const);
  if (typeof numbers === 'string') return usage(numbers);
  if (numbers.workers !== undefined && numbers.workers > MAX_WORKERS) return usage(`--workers takes at most ${MAX_WORKERS}`);
  if (values.queue !== undefined) {
    if (!/^rediss?:\/\/./.test(values.queue)) return usage('--queue takes a Redis URL like redis://127.0.0.1:6379 (or rediss:// for TLS)');
    if (numbers.workers !== undefined) return usage('--workers does not apply with --queue: each `aicc worker --queue …` process is a worker');
  } else if (values['queue-name'] !== undefined) {
    return usage('--queue-name goes with --queue');
  }
  const grid = paramsGrid(values.param ?? []);
  if (typeof grid === 'string') return usage(grid);

  let options: SweepOptions;
  let prepared: PreparedSweep;
  try {
    // Read here too, for complaints that name --seeds; the sweep reads the same text as ranges.
    SeedList.parse(values.seeds, '--seeds');
    options = {
      world: positionals[0]!,
      seeds: values.seeds,
      grid,
      out: values.out,
      ...(values.resume === true && { resume: true }),
      ...(numbers['max-ticks'] !== undefined && { maxTicks: numbers['max-ticks'] }),
      ...(numbers['hash-every'] !== undefined && { hashEvery: numbers['hash-every'] }),
    };
    // Every mistake in WORLD, --seeds, --param or --out shows up here, before any episode runs and
    // before the results file is made or cut (a value the world's setup refuses, too).
    prepared = await prepareSweep(options, 'runSweep', { setUpOnce: true });
  } catch (error) {
    return usage(userMessage(error));
  }

  let queue: QueueModule | undefined;
  if (values.queue !== undefined) {
    try {
      queue = await (runtime.loadQueue ?? (() => import('../queue/index.js') as Promise<QueueModule>))();
    } catch (error) {
      io.stderr.write(
        `aicc sweep: --queue needs the optional dependencies bullmq and ioredis (npm install bullmq ioredis); loading them failed: ${userMessage(error).split('\n', 1)[0]}\n`,
      );
      return 1;
    }
  }

  const interrupt = runtime.signal === undefined ? firstCtrlC() : { signal: runtime.signal, release: () => {} };
  let bar: ProgressBar | undefined;
  // Made at the first report, which says how many episodes the file already held: they are not speed.
  const progress = (done: number, total: number): void => {
    bar ??= progressBar(io.stderr as ProgressStream, { eta: true, baseline: done });
    bar(done, total);
  };
  let result: SweepResult;
  try {
    const common = { ...options, progress, signal: interrupt.signal };
    result =
      queue !== undefined
        ? await queue.runQueueSweep({ ...common, queue: values.queue!, ...(values['queue-name'] !== undefined && { queueName: values['queue-name'] }) })
        : await runPreparedSweep(
            {
              ...common,
              ...(numbers.workers !== undefined && { workers: numbers.workers }),
              ...(runtime.workerUrl !== undefined && { workerUrl: runtime.workerUrl }),
            },
            prepared,
          );
  } finally {
    bar?.finish();
    interrupt.release();
  }

  const held = result.episodes.length - result.ran;
  const summary = `ran ${result.ran} episode${result.ran === 1 ? '' : 's'}, ${held} already in the results file; ${result.episodes.length} of ${result.jobs} in ${options.out}`;
  if (values.json) {
    const report = {
      world: options.world,
      jobs: result.jobs,
      ran: result.ran,
      held,
      missing: result.missing.length,
      out: options.out,
      aggregate: result.aggregate,
    };
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    io.stderr.write(`${summary}\n`);
  } else io.stdout.write(`${result.aggregate.length > 0 ? `${formatAggregate(result.aggregate)}\n\n` : ''}${summary}\n`);
  if (result.missing.length > 0) {
    io.stderr.write(
      `aicc sweep: stopped with ${result.missing.length} episode${result.missing.length === 1 ? '' : 's'} missing; run the same command with --resume to finish\n`,
    );
    return interrupt.signal.aborted ? 130 : 1;
  }
  return 0;
}
