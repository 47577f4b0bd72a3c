// `aicc worker --queue redis://…`: serves a sweep's queue on this machine until SIGINT or SIGTERM,
// running each job's episode and sending its summary back through Redis to the coordinator.

import { readArgs } from './args.js';
import type { CliIo } from './cliIo.js';
import { userMessage } from './userMessage.js';
import { parseRedisUrl } from '../queue/connection.js';
import { checkQueueName, DEFAULT_QUEUE_NAME } from '../queue/queueName.js';
import { MAX_CONCURRENCY, runQueueWorker } from '../queue/queueWorker.js';

const HELP = `aicc worker — run the episodes of sweeps queued on Redis (BullMQ)

Usage: aicc worker --queue redis://HOST:PORT[/DB] [options]

Start one on each machine (one per core), then run \`aicc sweep WORLD … --queue redis://…\` anywhere:
its jobs are shared out among the workers and every result goes back to the sweep's results file.
A worker that dies mid-episode loses nothing: its job goes back on the queue once its lock lapses.

Options:
  --queue URL         the queue's Redis (required): redis://HOST:PORT[/DB], rediss:// for TLS
  --queue-name NAME   the queue to serve (default ${DEFAULT_QUEUE_NAME}, what \`aicc sweep\` uses)
  --concurrency N     episodes at once in this process (default 1; 1 to ${MAX_CONCURRENCY})
  --lock-ms N         how long a job's lock lasts unless renewed (default 30000)
  --stalled-ms N      how often to look for jobs whose worker died (default 30000)
  --name NAME         this worker's name in the jobs it runs (default HOST:PID)
  -h, --help          this help

SIGINT or SIGTERM (Ctrl-C) stops it: the episodes in hand finish first; a second one kills it.
Needs the optional peer dependencies bullmq and ioredis (npm install bullmq ioredis).

Exit codes: 0 stopped by a signal, 1 Redis cannot be reached (or another failure), 2 bad usage.
`;

export async function workerCommand(argv: string[], io: CliIo): Promise<number> {
  const parsed = readArgs(argv, {
    options: {
      queue: { type: 'string' },
      'queue-name': { type: 'string' },
      concurrency: { type: 'string' },
      'lock-ms': { type: 'string' },
      'stalled-ms': { type: 'string' },
      name: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (typeof parsed === 'string') {
    io.stderr.write(`aicc worker: ${parsed}; run \`aicc worker --help\`\n`);
    return 2;
  }
  const { values } = parsed;
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (values.queue === undefined) {
    io.stderr.write('aicc worker: name the queue with --queue redis://HOST:PORT; run `aicc worker --help`\n');
    return 2;
  }
  const queueName = values['queue-name'] ?? DEFAULT_QUEUE_NAME;
  let shown: string;
  try {
    shown = parseRedisUrl(values.queue, 'queue').shown;
    checkQueueName(queueName, 'queue-name');
  } catch (error) {
    io.stderr.write(`aicc worker: ${userMessage(error)}\n`);
    return 2;
  }
  const numbers: Record<string, number | undefined> = {};
  for (const [flag, least] of [
    ['concurrency', 1],
    ['lock-ms', 100],
    ['stalled-ms', 100],
  ] as const) {
    const text = values[flag];
    if (text === undefined) continue;
    const value = Number(text);
    if (!(/^\d+$/.test(text) && value >= least && (flag !== 'concurrency' || value <= MAX_CONCURRENCY))) {
      io.stderr.write(
        `aicc worker: --${flag} takes a whole number ${flag === 'concurrency' ? `from 1 to ${MAX_CONCURRENCY}` : `of ms >= ${least}`}; got ${text}\n`,
      );
      return 2;
    }
    numbers[flag] = value;
  }

  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  // `once`: a second signal finds no handler of ours and ends the process at once.
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const report = await runQueueWorker({
      queue: values.queue,
      queueName,
      ...(numbers['concurrency'] !== undefined && { concurrency: numbers['concurrency'] }),
      ...(numbers['lock-ms'] !== undefined && { lockDurationMs: numbers['lock-ms'] }),
      ...(numbers['stalled-ms'] !== undefined && { stalledIntervalMs: numbers['stalled-ms'] }),
      ...(values.name !== undefined && { name: values.name }),
      signal: stop.signal,
      onReady: () => io.stdout.write(`aicc worker: serving queue ${queueName} on ${shown}; Ctrl-C stops\n`),
      onJob: (event) => {
        if (event.type === 'failed') io.stderr.write(`aicc worker: job ${event.jobId} failed: ${event.message}\n`);
      },
      onError: (error) => io.stderr.write(`aicc worker: ${userMessage(error)}\n`),
    });
    io.stdout.write(
      `aicc worker: stopped after ${report.completed} episode${report.completed === 1 ? '' : 's'}${report.failed > 0 ? `, ${report.failed} failed` : ''}\n`,
    );
    return 0;
  } catch (error) {
    // Bad options were checked above; what is left is Redis or the drivers.
    io.stderr.write(`aicc worker: ${userMessage(error)}\n`);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
