// Memory per idle session: the heap one capsule session costs, against the least any in-process
// session needs.
//
// What it measures: 10,000 sessions in one capsule (ManualClock, never stepped, so no heartbeat
// fires and nothing expires), each connected on a memory link to a trivial peer that listens and
// never sends; session_init is sent and delivered. The heap used after a forced GC, before and after
// building them, divided by their number. It runs in a child process started with `--expose-gc`,
// so that `gc()` exists and nothing else of this process's heap (other benches, the test runner)
// moves the readings. The child is bench/memory.child.ts bundled by esbuild into a temp directory,
// not run through `--import tsx`: tsx compiles with keepNames, whose `__name(fn, …)` redefines every
// closure's `name` and so gives each closure a 256-byte property dictionary that no production
// build has (about 2.8 KB more per capsule session, 2 KB more per baseline pair). Modules, the
// capsule and a few warm-up sessions exist before the first reading.
//
// Why the baseline is fair: it is measured the same way, in its own child process, over the same
// number of bare memory link pairs, each with a mitt emitter and one listener fed by one end, the
// other end a peer like the capsule's: what any in-process session needs at minimum (a channel and a
// way to dispatch what arrives). The difference is the session itself: its ids, replay buffer, event
// queue and delivery, result cache, limits, heartbeat timer, wire, and the session_init it keeps
// for replay.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { MemoryKind, MemoryReading } from './memory.child.js';

/** Events each session of the active measurement hears. */
const ACTIVE_EVENTS = 2000;

/** The bound an active session's resume state should stay under (issue #14): 24 KiB. */
const RESUME_STATE_TARGET = 24 * 1024;
import { repoRoot, type BenchOptions, type BenchRow } from './row.js';

const root = repoRoot(import.meta.url);
const child = join(root, 'bench', 'memory.child.ts');

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const count = options.quick ? 1000 : 10_000;
  const dir = mkdtempSync(join(tmpdir(), 'aicc-memory-'));
  let capsule: MemoryReading;
  let baseline: MemoryReading;
  let busy: MemoryReading;
  const activeCount = options.quick ? 50 : 200;
  try {
    const script = join(dir, 'memory.child.mjs');
    await build({
      entryPoints: [child],
      outfile: script,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: `node${process.versions.node}`,
      keepNames: false,
      logLevel: 'silent',
    });
    capsule = await measure(script, 'capsule', count);
    baseline = await measure(script, 'baseline', count);
    busy = await measure(script, 'active', activeCount, ACTIVE_EVENTS);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // A size, not a rate: ratio = capsule ÷ baseline (smaller is better), as BenchRow.ratio means it.
  return [
    {
      name: `memory per idle session (${count.toLocaleString('en-US')})`,
      capsule: capsule.bytesPerSession,
      baseline: baseline.bytesPerSession,
      unit: 'B/session',
      ratio: capsule.bytesPerSession / baseline.bytesPerSession,
      note: `heap used after GC, ${mib(capsule.beforeBytes)} → ${mib(capsule.afterBytes)} (baseline: memory link pair + mitt listener, ${mib(baseline.beforeBytes)} → ${mib(baseline.afterBytes)}); target ≤ 2,000 B`,
    },
    {
      name: `resume state per active session after ${ACTIVE_EVENTS.toLocaleString('en-US')} events (${activeCount})`,
      capsule: busy.bytesPerSession,
      baseline: RESUME_STATE_TARGET,
      unit: 'B/session',
      ratio: busy.bytesPerSession / RESUME_STATE_TARGET,
      note: `heap growth per session while each heard ${ACTIVE_EVENTS.toLocaleString('en-US')} state_changes (the replay ring of 1,024; events kept once for all sessions, counted in), ${mib(busy.beforeBytes)} → ${mib(busy.afterBytes)}; baseline = the 24 KiB target`,
    },
  ];
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function measure(script: string, kind: MemoryKind, count: number, events?: number): Promise<MemoryReading> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--expose-gc', script, kind, String(count), ...(events === undefined ? [] : [String(events)])],
      { cwd: root, timeout: 60_000, maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`bench/memory: the ${kind} measurement failed: ${stderr.trim() || error.message}`));
        try {
          const reading = JSON.parse(stdout.trim().split('\n')[0] ?? '') as MemoryReading;
          if (!(reading.bytesPerSession > 0)) throw new Error(`bytes per session must be > 0, got ${reading.bytesPerSession}`);
          resolve(reading);
        } catch (problem) {
          reject(new Error(`bench/memory: the ${kind} measurement printed no reading (${(problem as Error).message}): ${stdout.slice(0, 200)}`));
        }
      },
    );
  });
}
