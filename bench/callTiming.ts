// How bench/toolCall.bench.ts and bench/webSocket.bench.ts time calls: tinybench, one call in flight
// (each sample is one awaited round trip), the same warm-up and the same number of timed calls for
// every side, and the p50, p99 and mean of its samples.

import { Bench } from 'tinybench';

export interface CallTask {
  name: string;
  /** One round trip; `n` counts calls across warm-up and timing. */
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
  warmupCalls: number;
  calls: number;
}

/** Times each task in turn: its warm-up, then its timed calls. */
export async function timeCalls(tasks: readonly CallTask[], plan: TimingPlan, benchName: string): Promise<Map<string, CallStats>> {
  const bench = new Bench({ iterations: plan.calls, time: 0, warmup: true, warmupIterations: plan.warmupCalls, warmupTime: 0, throws: true });
  for (const task of tasks) {
    let n = 0;
    bench.add(task.name, () => task.call(n++), { async: true });
  }
  await bench.run();
  const stats = new Map<string, CallStats>();
  for (const task of tasks) {
    const result = bench.getTask(task.name)?.result;
    if (result === undefined || result.state !== 'completed') throw new Error(`bench/${benchName}: task "${task.name}" did not complete (${result?.state ?? 'missing'})`);
    stats.set(task.name, {
      calls: result.latency.samplesCount,
      p50Us: result.latency.p50 * 1000,
      p99Us: result.latency.p99 * 1000,
      callsPerSecond: 1000 / result.period,
    });
  }
  return stats;
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
