// The parent side of a fuzz run: bundles a target with esbuild, runs it in a worker thread with a
// watchdog, and returns its report. In a worker, a target that freezes its thread (an endless
// loop) is seen as a hang and stopped, instead of freezing the test run with it.

import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { build } from 'esbuild';
import type { FuzzReport } from './report.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const cache = `${root}node_modules/.cache/aicc-fuzz/`;

export interface FuzzRunOptions {
  frames: number;
  seed: number;
  /** No progress for this long is a hang. Default 15 s. */
  stallMs?: number;
  /** A run still going after this long is stopped and reported as a hang. Default: none. */
  deadlineMs?: number;
}

/** Runs the target exported as `target` from `file` (a path under test/fuzz/). */
export async function fuzzInWorker(name: string, file: string, options: FuzzRunOptions): Promise<FuzzReport> {
  mkdirSync(cache, { recursive: true });
  const entry = `${cache}${name.replace(/[^a-z0-9-]/gi, '-')}.mjs`;
  const bundled = await build({
    stdin: {
      contents: `import { target } from ${JSON.stringify(file)};\nimport { serve } from ${JSON.stringify(fileURLToPath(new URL('./worker.ts', import.meta.url)))};\nawait serve(${JSON.stringify(name)}, target);\n`,
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    write: false,
    logLevel: 'silent',
  });
  writeFileSync(entry, bundled.outputFiles[0]!.text);
  const worker = new Worker(entry, { workerData: { frames: options.frames, seed: options.seed } });
  const stallMs = options.stallMs ?? 15_000;
  let frames = 0;
  try {
    return await new Promise<FuzzReport>((resolve, reject) => {
      let watchdog: ReturnType<typeof setTimeout>;
      const hung = (why = `no progress for ${stallMs} ms after ${frames} frames`): void =>
        resolve({
          target: name,
          seed: options.seed,
          frames,
          escapes: 0,
          hangs: 1,
          undocumented: [],
          secrets: [],
          problems: [why],
          heapWarmMiB: 0,
          heapEndMiB: 0,
          ms: 0,
          tallies: {},
        });
      const arm = (): void => {
        clearTimeout(watchdog);
        watchdog = setTimeout(() => hung(), stallMs);
      };
      arm();
      if (options.deadlineMs !== undefined)
        setTimeout(() => hung(`did not finish within ${options.deadlineMs} ms (${frames} frames)`), options.deadlineMs).unref();
      worker.on('message', (message: { kind: 'progress'; frames: number } | { kind: 'report'; report: FuzzReport }) => {
        if (message.kind === 'progress') {
          frames = message.frames;
          arm();
        } else {
          clearTimeout(watchdog);
          resolve(message.report);
        }
      });
      worker.on('error', (error) => {
        clearTimeout(watchdog);
        reject(error);
      });
      worker.on('exit', (code) => {
        clearTimeout(watchdog);
        // 13: the worker's event loop emptied while its top-level await still waited.
        if (code === 13) hung(`the target waited on a promise that never settles, after ${frames} frames`);
        else reject(new Error(`fuzz worker ${name} exited (${code}) before its report`));
      });
    });
  } finally {
    await worker.terminate();
  }
}
