// `aicc worker` as a child process, the way a machine of a sweep runs it: started with its own
// Node, ready once it prints that it serves the queue, and killed by its PID.

import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** How `aicc worker` is started: the built bin, as a user runs it (npm test builds dist/ first). */
const AICC = [`${root}dist/cli.js`];

export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  /** Resolves once the worker is connected and taking jobs; rejects if it exits first. */
  ready: Promise<void>;
  /** Resolves with the exit code (or the signal's name) once it has exited. */
  exited: Promise<number | string>;
  /** What it printed so far, stdout and stderr. */
  output(): string;
}

export function spawnWorker(args: readonly string[]): WorkerProcess {
  const child = spawn(process.execPath, [...AICC, 'worker', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (data: Buffer): void => {
      output += data.toString();
      if (output.includes('serving queue')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`aicc worker exited (${code}) before it was ready:\n${output}`)));
  });
  ready.catch(() => {}); // awaited by the test; never an unhandled rejection
  return { child, pid: child.pid!, ready, exited, output: () => output };
}

/** Kills a worker by PID, if still running, and waits for it to be gone. */
export async function killWorker(worker: WorkerProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (worker.child.exitCode === null && worker.child.signalCode === null) process.kill(worker.pid, signal);
  await worker.exited;
}

/**
 * Kills `worker` (the one named `name`) in the middle of an episode: freezes it and looks at what it
 * holds on `queue`; with a job active it is SIGKILLed right there, idle (between jobs) it is let go and
 * tried again a moment later. Resolves with the id of the job it died holding.
 */
export async function killMidEpisode(
  worker: WorkerProcess,
  name: string,
  queue: { getActive(): Promise<Array<{ id?: string; processedBy?: string }>> },
): Promise<string> {
  for (let attempt = 0; attempt < 400; attempt++) {
    process.kill(worker.pid, 'SIGSTOP');
    const held = (await queue.getActive()).find((job) => job.processedBy === name);
    if (held !== undefined) {
      process.kill(worker.pid, 'SIGKILL');
      return held.id!;
    }
    process.kill(worker.pid, 'SIGCONT');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`${name} was never caught holding a job`);
}
