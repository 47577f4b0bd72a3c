// What every sweep runner takes and gives back, on worker threads or on a queue: the same options
// for what to run and where the results go, and the same result — the episodes of the plan, read
// back from the results file, and their aggregate.

import { aggregate, type AggregateRow } from '../../research/aggregate.js';
import type { EpisodeSummary } from '../../research/episode.js';
import { episodeKey, type SweepJob } from '../../research/sweepPlan.js';
import type { ParamValue } from '../../research/world.js';

export interface SweepOptions {
  /** A built-in world's name (village, swarm) or the path of a compiled world module. */
  world: string;
  /**
   * The seeds: a list of whole numbers, or text as `aicc sweep --seeds` takes it (`1..1000000`,
   * `1,5,9`, `1..10,20`), kept as ranges so a big sweep is never listed out.
   */
  seeds: readonly number[] | string;
  /** Values to try per parameter; every combination runs with every seed. Default: the world's defaults only. */
  grid?: Readonly<Record<string, readonly ParamValue[]>>;
  /** The results file: one JSON line per episode, appended as each finishes. */
  out: string;
  /**
   * Keep the episodes already in `out` and run only the missing ones. Without it an `out` that holds
   * episodes is refused, so a finished sweep is never overwritten by accident.
   */
  resume?: boolean;
  /** Per episode; default the world's maxTicks. */
  maxTicks?: number;
  /** Per episode: also hash the state every K ticks. */
  hashEvery?: number;
  /** Told (episodes done, episodes in the sweep) as each finishes, and once at the start. */
  progress?: (done: number, total: number) => void;
  /** Stops handing out jobs; the sweep resolves once the episodes in flight are written. */
  signal?: AbortSignal;
}

export interface SweepResult {
  /** Jobs in the plan. */
  jobs: number;
  /** Episodes this call ran (the rest were in the results file already). */
  ran: number;
  /** Episodes of the plan in the results file at the end, sorted by (params, seed). */
  episodes: EpisodeSummary[];
  /** Jobs of the plan with no result (a sweep stopped by its signal); [] when complete. */
  missing: SweepJob[];
  aggregate: AggregateRow[];
}

/** The plan's episodes from what the results file holds, in a fixed order, and their aggregate. */
export function sweepResult(plan: Iterable<SweepJob>, held: readonly EpisodeSummary[], ran: number): SweepResult {
  const byKey = new Map(held.map((episode) => [episodeKey(episode), episode]));
  const episodes: EpisodeSummary[] = [];
  const missing: SweepJob[] = [];
  let jobs = 0;
  for (const job of plan) {
    jobs++;
    const episode = byKey.get(job.key);
    if (episode === undefined) missing.push(job);
    else episodes.push(episode);
  }
  return { jobs, ran, episodes, missing, aggregate: aggregate(episodes) };
}
