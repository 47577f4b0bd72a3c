// What one fuzz run found. A clean run has every count at 0 and a heap that stayed bounded.

export interface FuzzReport {
  target: string;
  seed: number;
  /** Hostile frames (or records, or drops) sent. */
  frames: number;
  /** Errors that escaped to the process: uncaught exceptions and unhandled rejections. */
  escapes: number;
  /** 1 when the target stopped making progress (a frozen thread, a promise that never settles). */
  hangs: number;
  /** Codes received that the docs do not list for that place, each once. */
  undocumented: string[];
  /** Places where a secret (a key, a token) was seen, each once. */
  secrets: string[];
  /** Broken promises of the target's own: a lost or doubled message, a loop that stopped… each once. */
  problems: string[];
  /** Heap in use after a GC: once warmed up (a tenth of the way) and at the end, in MiB. */
  heapWarmMiB: number;
  heapEndMiB: number;
  ms: number;
  /** Outcomes counted by the target, for the log: how deep the frames reached. */
  tallies: Record<string, number>;
  /** The first escape's message, for the log. */
  firstEscape?: string;
}

/** Heap growth past warm-up beyond which a run is taken as leaking. */
export const MAX_HEAP_GROWTH_MIB = 48;

/** What is wrong with a report, one line each; empty when clean. */
export function findings(report: FuzzReport): string[] {
  const out: string[] = [];
  if (report.escapes > 0) out.push(`${report.escapes} escapes (first: ${report.firstEscape ?? '?'})`);
  if (report.hangs > 0) out.push('the target hung');
  if (report.undocumented.length > 0) out.push(`undocumented codes: ${report.undocumented.join(', ')}`);
  if (report.secrets.length > 0) out.push(`secrets seen in: ${report.secrets.join(', ')}`);
  for (const problem of report.problems) out.push(problem);
  if (report.heapEndMiB - report.heapWarmMiB > MAX_HEAP_GROWTH_MIB)
    out.push(`heap grew ${(report.heapEndMiB - report.heapWarmMiB).toFixed(1)} MiB after warm-up`);
  return out;
}

/** One line for a log or a table. */
export function summary(report: FuzzReport): string {
  const rate = report.ms > 0 ? Math.round((report.frames / report.ms) * 1000) : 0;
  return `${report.target}: ${report.frames.toLocaleString('en')} frames in ${(report.ms / 1000).toFixed(1)} s (${rate.toLocaleString('en')}/s), seed ${report.seed}; ${report.escapes} escapes, ${report.hangs} hangs, ${report.undocumented.length} undocumented codes, ${report.secrets.length} secrets, ${report.problems.length} problems; heap ${report.heapWarmMiB.toFixed(1)} → ${report.heapEndMiB.toFixed(1)} MiB`;
}
