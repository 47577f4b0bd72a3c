// The worker side of a fuzz run: runs one target under its own process handlers, and posts
// progress and the report to the parent.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import type { FuzzContext, FuzzTarget } from './context.js';
import type { FuzzReport } from './report.js';

let gc: (() => void) | undefined;
const heapMiB = (): number => {
  // A worker takes no --expose-gc; the flag set at run time gives a fresh context its gc().
  if (gc === undefined) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};

/** Runs `target` with the budget the parent sent, and posts the report. */
export async function serve(name: string, target: FuzzTarget): Promise<void> {
  const { frames, seed } = workerData as { frames: number; seed: number };
  const started = Date.now();
  const report: FuzzReport = {
    target: name,
    seed,
    frames: 0,
    escapes: 0,
    hangs: 0,
    undocumented: [],
    secrets: [],
    problems: [],
    heapWarmMiB: 0,
    heapEndMiB: 0,
    ms: 0,
    tallies: {},
  };
  const escaped = (error: unknown): void => {
    report.escapes++;
    report.firstEscape ??= error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 300) : String(error).slice(0, 300);
  };
  process.on('uncaughtException', escaped);
  process.on('unhandledRejection', escaped);
  const secrets: string[] = [];
  const once = (list: string[], item: string): void => {
    if (!list.includes(item) && list.length < 20) list.push(item);
  };
  let lastPost = 0;
  let warm = false;
  const context: FuzzContext = {
    frames,
    seed,
    sent(count = 1) {
      report.frames += count;
      if (!warm && report.frames >= frames / 10) {
        warm = true;
        report.heapWarmMiB = heapMiB();
      }
      const now = Date.now();
      if (now - lastPost > 100) {
        lastPost = now;
        parentPort!.postMessage({ kind: 'progress', frames: report.frames });
      }
    },
    code(code, documented, where) {
      if (typeof code !== 'string' || !documented.has(code)) once(report.undocumented, `${String(code).slice(0, 80)} at ${where}`);
    },
    seen(text, where) {
      for (const secret of secrets) if (text.includes(secret)) once(report.secrets, where);
    },
    secret(value) {
      secrets.push(value);
    },
    problem(what) {
      once(report.problems, what);
    },
    tally(outcome) {
      if (outcome in report.tallies || Object.keys(report.tallies).length < 64) report.tallies[outcome] = (report.tallies[outcome] ?? 0) + 1;
    },
    breathe: () => new Promise((resolve) => setImmediate(resolve)),
  };
  try {
    await target(context);
  } catch (error) {
    once(report.problems, `the target itself failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`.slice(0, 500));
  }
  // Late escapes (a rethrow in a microtask, a rejection noticed a turn later) still count.
  await new Promise((resolve) => setTimeout(resolve, 50));
  if (!warm) report.heapWarmMiB = heapMiB();
  report.heapEndMiB = heapMiB();
  report.ms = Date.now() - started;
  parentPort!.postMessage({ kind: 'report', report });
}
