// The worker thread of a sweep (compiled to dist/sweepWorker.js; no TypeScript loader in workers):
// takes one job at a time from its parent, runs the episode and posts the summary back. A job that
// throws is reported, not fatal: the thread stays up for the next job.

import { parentPort } from 'node:worker_threads';
import { runJob, type JobSpec } from './job.js';
import type { EpisodeSummary } from '../../research/episode.js';

/** From the sweep to its worker. */
export interface JobMessage {
  type: 'job';
  id: number;
  job: JobSpec;
}

/** From the worker to the sweep: the job's summary, or why it failed. */
export type JobReply = { type: 'done'; id: number; episode: EpisodeSummary } | { type: 'failed'; id: number; message: string };

/** Serves jobs on `port` (the thread's parentPort); what the entry does when it runs in a worker. */
export function serveJobs(port: NonNullable<typeof parentPort>): void {
  port.on('message', (message: JobMessage) => {
    runJob(message.job).then(
      (episode) => port.postMessage({ type: 'done', id: message.id, episode } satisfies JobReply),
      (error: unknown) =>
        port.postMessage({ type: 'failed', id: message.id, message: error instanceof Error ? error.message : String(error) } satisfies JobReply),
    );
  });
}

// A worker entry runs on load by nature; outside a worker thread (imported for its types) it does nothing.
if (parentPort !== null) serveJobs(parentPort);
