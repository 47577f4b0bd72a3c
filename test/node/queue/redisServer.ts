// A private Redis for the queue tests: Debian's `redis-server` started on a free port of 127.0.0.1
// only, with no persistence (its working directory is a fresh temp dir), waited for until it answers
// PING, and stopped by its PID. Where redis-server is not installed the suites are skipped, saying
// so — except under CI (.ci/run installs it), where a missing redis-server fails them.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Why the Redis suites cannot run here, or undefined when they can. */
export const redisSkip: string | undefined =
  spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0
    ? undefined
    : 'needs redis-server (Debian package redis-server; .ci/run installs it)';

/** `describe` for suites that start a Redis: skipped with the reason where it is missing, failed under CI. */
export function describeWithRedis(name: string, body: () => void): void {
  if (redisSkip !== undefined && process.env['CI'] === 'true') {
    describe(name, () => it('finds redis-server on PATH', () => expect.fail(`${redisSkip}; under CI it must be installed`)));
    return;
  }
  if (redisSkip !== undefined) process.stderr.write(`skipped "${name}": ${redisSkip}\n`);
  describe.skipIf(redisSkip !== undefined)(redisSkip === undefined ? name : `${name} (skipped: ${redisSkip})`, body);
}

export interface RedisServer {
  /** redis://127.0.0.1:PORT */
  url: string;
  port: number;
  pid: number;
  /** SIGTERM, then SIGKILL if it has not exited within 5 s; removes its directory. */
  stop(): Promise<void>;
}

/** A port nothing listens on right now (the OS's pick). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** True once something on `port` answers `PING` with `+PONG`. */
function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => {
      reply += data.toString('latin1');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts a Redis on a free loopback port; tries three ports in case one is taken meanwhile. */
export async function startRedis(): Promise<RedisServer> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'aicc-redis-'));
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        '--daemonize',
        'no',
        '--loglevel',
        'warning',
        '--maxmemory-policy',
        'noeviction',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let log = '';
    child.stderr!.on('data', (data: Buffer) => (log += data.toString()));
    const stop = async (): Promise<void> => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited(child);
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    };
    // Up to 5 s for it to answer; a redis-server that exits (its port was taken) is retried.
    for (let i = 0; i < 100 && child.exitCode === null; i++) {
      if (await pings(port)) return { url: `redis://127.0.0.1:${port}`, port, pid: child.pid!, stop };
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await stop();
    if (attempt === 3) throw new Error(`redis-server did not answer PING on 127.0.0.1:${port}: ${log.trim() || 'no output'}`);
  }
}
