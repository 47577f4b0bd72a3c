// How bench/toolCall.bench.ts and bench/webSocket.bench.ts time calls: tinybench, one call in flight
// (each sample is one awaited round trip), the same warm-up and the same number of timed calls for
// every side, and the p50, p99 and mean of the samples.
//
// The timed calls are split into rounds, and every round runs each side in turn (in a rotating
// order), so a slow spell of the machine — another process, a GC of the other side's garbage —
// falls on both sides alike instead of on whichever was timing then. Each side's samples from all
// rounds are pooled before the percentiles are taken.

import { Bench } from 'tinybench';

export interface CallTask {
  name: string;
  /** One round trip; `n` counts this task's calls across warm-up and timing. */
  call(n: number): Promise<void>;
}

export interface CallStats {
  calls: number;
  p50Us: number;
  p99Us: number;
  /** Calls per second with one in flight: 1 ÷ the mean round trip. */
  callsPerSecond: number;
}

export interface TimingPlan {
  /** Untimed calls per side before the first round. */
  warmupCalls: number;
  /** Timed calls per side, over all rounds. */
  calls: number;
  rounds: number;
}

export async function timeCalls(tasks: readonly CallTask[], plan: TimingPlan, benchName: string): Promise<Map<string, CallStats>> {
  const perRound = Math.ceil(plan.calls / plan.rounds);
  const counters = new Map(tasks.map((task) => [task.name, 0]));
  const samples = new Map<string, number[]>(tasks.map((task) => [task.name, []]));
  for (let round = 0; round < plan.rounds; round++) {
    const bench = new Bench({
      name: benchName,
      iterations: perRound,
      time: 0,
      warmup: round === 0,
      warmupIterations: plan.warmupCalls,
      warmupTime: 0,
      retainSamples: true,
      throws: true,
    });
    for (let i = 0; i < tasks.length; i++) {
      const task = tasks[(i + round) % tasks.length]!;
      bench.add(
        task.name,
        () => {
          const n = counters.get(task.name)!;
          counters.set(task.name, n + 1);
          return task.call(n);
        },
        { async: true },
      );
    }
    await bench.run();
    for (const task of tasks) {
      const result = bench.getTask(task.name)?.result;
      if (result === undefined || result.state !== 'completed')
        throw new Error(`bench/${benchName}: task "${task.name}" did not complete (${result?.state ?? 'missing'})`);
      if (result.latency.samples === undefined) throw new Error(`bench/${benchName}: tinybench kept no samples for "${task.name}"`);
      samples.get(task.name)!.push(...result.latency.samples);
    }
  }
  const stats = new Map<string, CallStats>();
  for (const [name, taken] of samples) {
    const sorted = taken.sort((a, b) => a - b);
    const totalMs = sorted.reduce((sum, ms) => sum + ms, 0);
    stats.set(name, {
      calls: sorted.length,
      p50Us: quantile(sorted, 0.5) * 1000,
      p99Us: quantile(sorted, 0.99) * 1000,
      callsPerSecond: (sorted.length * 1000) / totalMs,
    });
  }
  return stats;
}

/** The q-quantile of sorted samples, interpolated between the two nearest (as tinybench does). */
function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const below = Math.floor(at);
  const low = sorted[below]!;
  const high = sorted[Math.min(below + 1, sorted.length - 1)]!;
  return low + (high - low) * (at - below);
}

export function statsOf(stats: Map<string, CallStats>, name: string): CallStats {
  const found = stats.get(name);
  if (found === undefined) throw new Error(`bench: no timing for "${name}"`);
  return found;
}

/** `12.3 µs`, to three figures. */
export function us(value: number): string {
  return `${value >= 100 ? Math.round(value) : value.toPrecision(3)} µs`;
}
