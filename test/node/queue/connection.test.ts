// Reaching a queue's Redis: a URL that is not Redis's is refused before anything connects or any
// file is touched, and a Redis that refuses or never answers is a clear error within the connect
// timeout, not a hang. No redis-server needed: the addresses here are a closed port and a silent one.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONNECT_TIMEOUT_MS, parseRedisUrl, runQueueSweep } from '../../../src/node/queue/index.js';
import { runQueueWorker } from '../../../src/node/queue/queueWorker.js';
import { freePort } from './redisServer.js';

const dir = mkdtempSync(join(tmpdir(), 'aicc-queue-connection-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('parseRedisUrl', () => {
  it('reads host, port, database, user and password, and never shows the password', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6380/2', 'here')).toEqual({ host: '127.0.0.1', port: 6380, db: 2, tls: false, shown: 'redis://127.0.0.1:6380/2' });
    expect(parseRedisUrl('redis://queue.lab', 'here')).toMatchObject({ host: 'queue.lab', port: 6379, db: 0 });
    expect(parseRedisUrl('rediss://sweeper:s%40cret@[::1]:7000', 'here')).toEqual({
      host: '::1',
      port: 7000,
      db: 0,
      username: 'sweeper',
      password: 's@cret',
      tls: true,
      shown: 'rediss://sweeper:***@[::1]:7000',
    });
  });

  it.each([
    ['127.0.0.1', /is not a URL; name the queue's Redis as redis:\/\/HOST:PORT/],
    ['http://127.0.0.1:6379', /must be redis:\/\/HOST:PORT\[\/DB\] \(rediss:\/\/ for TLS\), got "http:\/\/127.0.0.1:6379"/],
    ['localhost:6379', /must be redis:\/\/HOST:PORT\[\/DB\] \(rediss:\/\/ for TLS\), got "localhost:6379"/],
    ['redis://127.0.0.1:6379/queue', /may only name a database number/],
    ['redis://127.0.0.1:6379?db=2', /takes no \?query/],
  ])('refuses %s, saying what a queue URL looks like', (url, message) => {
    expect(() => parseRedisUrl(url, 'here')).toThrow(message);
    expect(() => parseRedisUrl(url, 'here')).toThrow(/^here: /);
  });

  it.each(['http://sweeper:s3cret@127.0.0.1:6379', 'redis://:s3cret@', 'redis://:s3cret@host:6379/queue', 'redis://u:s3cret@host?db=2', 'nonsense:s3cret@x'])(
    'never puts the password of %s in its error',
    (url) => {
      expect(() => parseRedisUrl(url, 'here')).toThrow(/^here: /);
      expect(() => parseRedisUrl(url, 'here')).not.toThrow(/s3cret/);
    },
  );
});

describe('a Redis that cannot be reached', () => {
  const servers: Server[] = [];
  const sockets: Socket[] = [];
  afterAll(() => {
    for (const socket of sockets) socket.destroy();
    for (const server of servers) server.close();
  });

  /** A loopback port that accepts connections and never says a word: a Redis that hangs. */
  async function silentPort(): Promise<number> {
    const server = createServer((socket) => sockets.push(socket));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as { port: number }).port;
  }

  const sweep = (queue: string, out: string) => runQueueSweep({ world: 'village', seeds: [1, 2], out, queue, connectTimeoutMs: 1000 });

  it('a bad URL fails the sweep before the results file is touched', async () => {
    const out = join(dir, 'bad-url.jsonl');
    await expect(sweep('http://127.0.0.1:6379', out)).rejects.toMatchObject({
      code: 'AICC_INVALID_OPTION',
      message: expect.stringMatching(/^runQueueSweep: the queue URL must be redis:\/\/HOST:PORT/),
    });
    expect(existsSync(out)).toBe(false);
  });

  it('a closed port fails the sweep at once, naming the address, and writes no results file', async () => {
    const port = await freePort();
    const out = join(dir, 'closed.jsonl');
    await expect(sweep(`redis://127.0.0.1:${port}`, out)).rejects.toMatchObject({
      code: 'AICC_NOT_CONNECTED',
      message: expect.stringMatching(
        new RegExp(`^runQueueSweep: cannot reach Redis at redis://127\\.0\\.0\\.1:${port} \\(.*ECONNREFUSED.*\\); start redis-server there`),
      ),
    });
    expect(existsSync(out)).toBe(false);
  });

  it('a server that never answers fails the sweep after the connect timeout, not later', async () => {
    const port = await silentPort();
    const started = performance.now();
    await expect(sweep(`redis://127.0.0.1:${port}`, join(dir, 'silent.jsonl'))).rejects.toThrow(
      new RegExp(`cannot reach Redis at redis://127\\.0\\.0\\.1:${port}/? \\(no answer within 1000 ms\\)`),
    );
    // Bounded by the timeout it was given (with room for a busy machine), far below the 10 s default.
    expect(performance.now() - started).toBeLessThan(CONNECT_TIMEOUT_MS / 2);
  });

  it('a worker fails the same way instead of waiting for a Redis that is not there', async () => {
    const port = await silentPort();
    await expect(runQueueWorker({ queue: `redis://127.0.0.1:${port}`, connectTimeoutMs: 500 })).rejects.toThrow(
      /^runQueueWorker: cannot reach Redis at .* \(no answer within 500 ms\)/,
    );
  });
});
