// Reaching Redis for a sweep's queue: the one place that reads a `redis://` URL, loads the optional
// peer dependencies (bullmq, ioredis) and opens a connection. Both ends need the same three things
// and the same answers when they fail: a URL that is not Redis's is refused before anything
// connects, and a Redis that does not answer is an error within `connectTimeoutMs`, never a hang.
// Once a connection has answered, it reconnects on its own for as long as the process runs: a
// Redis restarted (with its AOF) in the middle of a long sweep is waited for, not fatal.

import type { Redis } from 'ioredis';
import { CapsuleError } from '../../base/errors.js';

/** Where a queue lives, read from `redis://[user:password@]host[:port][/db]` (or `rediss://` for TLS). */
export interface RedisTarget {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  tls: boolean;
  /** The URL without its password: what messages show. */
  shown: string;
}

/** How long reaching Redis may take before a queue command gives up (ms). */
export const CONNECT_TIMEOUT_MS = 10_000;

/** Longest pause between two reconnection attempts once a connection has worked (ms). */
const MAX_RECONNECT_DELAY_MS = 5_000;

/** A queue URL as messages may show it: any password replaced by ***, even in text that is not a URL. */
export function redactUrl(text: string): string {
  // user:password@ after a scheme, and anything before an @ that could be one where there is none.
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*:)[^@/]*@/i, '$1***@').replace(/^([^/@]*:)[^/@]*@/, '$1***@');
}

/** Reads a queue URL; `place` names the caller in the error (which never shows the password). */
export function parseRedisUrl(text: string, place: string): RedisTarget {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CapsuleError(
      'AICC_INVALID_OPTION',
      `${place}: ${JSON.stringify(redactUrl(text))} is not a URL; name the queue's Redis as redis://HOST:PORT (e.g. redis://127.0.0.1:6379)`,
    );
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new CapsuleError(
      'AICC_INVALID_OPTION',
      `${place}: the queue URL must be redis://HOST:PORT[/DB] (rediss:// for TLS), got ${JSON.stringify(redactUrl(text))}`,
    );
  }
  if (url.hostname === '') throw new CapsuleError('AICC_INVALID_OPTION', `${place}: the queue URL ${redactUrl(text)} names no host; write redis://HOST:PORT`);
  const path = url.pathname.replace(/^\//, '');
  if (!/^\d*$/.test(path) || Number(path) > 65_535) {
    throw new CapsuleError(
      'AICC_INVALID_OPTION',
      `${place}: after the host, the queue URL may only name a database number (redis://HOST:PORT/2), got /${path}`,
    );
  }
  if (url.search !== '' || url.hash !== '')
    throw new CapsuleError('AICC_INVALID_OPTION', `${place}: the queue URL takes no ?query or #fragment; write redis://HOST:PORT[/DB]`);
  const shown = new URL(url.href);
  if (shown.password !== '') shown.password = '***';
  return {
    // A literal IPv6 address keeps its brackets in a URL; a socket wants it bare.
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? 6379 : Number(url.port),
    db: path === '' ? 0 : Number(path),
    ...(url.username !== '' && { username: decodeURIComponent(url.username) }),
    ...(url.password !== '' && { password: decodeURIComponent(url.password) }),
    tls: url.protocol === 'rediss:',
    shown: shown.href,
  };
}

/** The optional peer dependencies, loaded on first use. */
export interface Drivers {
  bullmq: typeof import('bullmq');
  Redis: typeof Redis;
}

let drivers: Promise<Drivers> | undefined;

/** bullmq and ioredis, or an error saying how to install them. */
export function loadDrivers(place: string): Promise<Drivers> {
  drivers ??= Promise.all([import('bullmq'), import('ioredis')]).then(
    ([bullmq, ioredis]) => ({ bullmq, Redis: ioredis.Redis ?? ioredis.default }),
    (error: unknown) => {
      drivers = undefined; // installed later in the same process: try again
      throw new CapsuleError(
        'AICC_INVALID_OPTION',
        `${place}: sweeps on a queue need the optional peer dependencies bullmq and ioredis (npm install bullmq ioredis); loading them failed: ${(error as Error).message.split('\n', 1)[0]}`,
      );
    },
  );
  return drivers;
}

export interface OpenOptions {
  /** Default CONNECT_TIMEOUT_MS. */
  connectTimeoutMs?: number;
  /** Told of connection errors after the first answer (reconnects in progress), which are not fatal. */
  onError?: (error: Error) => void;
}

/**
 * A connection that has answered PING. It fails at once (within the timeout) when the first
 * connection fails; after that it reconnects without end. BullMQ duplicates it for its blocking
 * reads; the caller closes this one (BullMQ leaves a connection it was given open).
 */
export async function openRedis(target: RedisTarget, { Redis }: Drivers, place: string, options: OpenOptions = {}): Promise<Redis> {
  const timeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0))
    throw new CapsuleError('AICC_INVALID_OPTION', `${place}: connectTimeoutMs must be a number of ms above 0, got ${timeoutMs}`);
  let answered = false;
  // Inline, not a typed RedisOptions: ioredis's own type fails under exactOptionalPropertyTypes.
  const client = new Redis({
    host: target.host,
    port: target.port,
    db: target.db,
    ...(target.username !== undefined && { username: target.username }),
    ...(target.password !== undefined && { password: target.password }),
    ...(target.tls && { tls: { servername: target.host } }),
    lazyConnect: true,
    connectTimeout: timeoutMs,
    // BullMQ requires null: a command waits through a reconnect instead of failing after N tries.
    maxRetriesPerRequest: null,
    // No retries until the first answer, so a wrong address is an error, not an endless wait.
    retryStrategy: (times: number) => (answered ? Math.min(times * 250, MAX_RECONNECT_DELAY_MS) : null),
  });
  let firstError: Error | undefined;
  // Without a listener ioredis prints every error; before the first answer the error is thrown instead.
  client.on('error', (error: Error) => {
    if (answered) options.onError?.(error);
    else firstError ??= error;
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([client.connect().then(() => client.ping()), timeout]);
    answered = true;
    return client;
  } catch (error) {
    client.disconnect();
    const reason = (firstError ?? (error as Error)).message;
    throw new CapsuleError(
      'AICC_NOT_CONNECTED',
      `${place}: cannot reach Redis at ${target.shown} (${reason}); start redis-server there (appendonly yes, maxmemory-policy noeviction) or fix the URL`,
    );
  } finally {
    clearTimeout(timer);
  }
}
