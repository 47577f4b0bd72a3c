// What an eval adds to the episodes it runs: the same village episodes (every role played by the
// world's own policy, so both run exactly the same episodes) through runEval and through runSweep,
// each on one worker thread from the built dist/ (what `aicc eval` and `aicc sweep` run).
//
// The eval's own work per episode: seating the agent, the role and timeline bookkeeping on every call,
// the wait for the agent to settle after every tick, judging the goals, the recording it writes, and
// the longer result line. Measured as process CPU time per episode (every thread's: a busy machine
// does not skew it), the two runs alternated and each run three times, the lowest taken. Target ≤ 1.05.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot, type BenchOptions, type BenchRow } from './row.js';

const root = repoRoot(import.meta.url);
const dist = (file: string): Promise<any> => import(pathToFileURL(join(root, 'dist', file)).href);

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const { runSweep, runEval } = await dist('node.js');
  const seeds = options.quick ? '1..6' : '1..500';
  const plan = { world: 'village', seeds, grid: { dayTicks: [190, 600] }, workers: 1 };
  const episodes = (options.quick ? 6 : 500) * 2;
  const dir = mkdtempSync(join(tmpdir(), 'aicc-bench-eval-'));
  const cpuSeconds = (): number => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  };
  const best: Record<'sweep' | 'eval', number> = { sweep: Number.POSITIVE_INFINITY, eval: Number.POSITIVE_INFINITY };
  try {
    for (let round = 0; round < (options.quick ? 1 : 3); round++) {
      for (const kind of ['sweep', 'eval'] as const) {
        const out = join(dir, `${kind}-${round}.jsonl`);
        const started = cpuSeconds();
        if (kind === 'sweep') await runSweep({ ...plan, out });
        else await runEval({ ...plan, out, agents: ['world=policy:world'] });
        best[kind] = Math.min(best[kind], cpuSeconds() - started);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return [
    {
      name: 'eval: CPU time per episode, runEval vs runSweep of the same episodes',
      capsule: (best.eval * 1000) / episodes,
      baseline: (best.sweep * 1000) / episodes,
      unit: 'ms CPU/episode',
      ratio: best.eval / best.sweep,
      note: `${episodes} village episodes, every role the world's own policy (the same episodes both ways), one worker thread, recordings on; the lowest of ${options.quick ? 1 : 3} runs each; target ≤ 1.05`,
    },
  ];
}
