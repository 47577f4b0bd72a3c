// Test helpers for the gateway's daemon mode: a minimal pi-daemon v2 stand-in on a Unix socket that
// keeps every line it gets, byte for byte, and a browser that offers the daemon subprotocol. The
// full protocol is test/pi/daemonSimulator.ts; this one only answers, echoes and pushes lines.

import { createServer, type Server, type Socket } from 'node:net';
import { DAEMON_SUBPROTOCOL, KEY_PREFIX } from '../../../src/node/gateway/access.js';
import { BrowserClient, KEY, within, type ClientOptions, type Record_ } from './helpers.js';

export interface FakeDaemon {
  readonly path: string;
  /** Every line received (without its "\n"), in order, over all connections. */
  readonly lines: string[];
  /** Connections accepted so far. */
  readonly connections: number;
  /** The open connections. */
  readonly sockets: Set<Socket>;
  /** Whether to answer each command with an ok response (default true). */
  answer: boolean;
  /** Writes one raw line to every open connection (a "\n" is added). */
  push(line: string): void;
  /** Ends every connection from the daemon's side. */
  dropAll(): void;
  /** Resolves once `n` lines have arrived. */
  waitForLines(n: number, ms?: number): Promise<void>;
  close(): Promise<void>;
}

/** A command's ok response, as the fake daemon writes it. */
export function okResponse(record: Record_): Record_ {
  return {
    protocolVersion: record.protocolVersion ?? '2.0',
    kind: 'response',
    requestId: record.requestId,
    hostInstanceId: 'fake-host',
    ok: true,
    data: { operation: record.operation },
  };
}

export async function startFakeDaemon(path: string): Promise<FakeDaemon> {
  const lines: string[] = [];
  const sockets = new Set<Socket>();
  const waiters: Array<() => void> = [];
  let connections = 0;
  const daemon: FakeDaemon = {
    path,
    lines,
    sockets,
    get connections() {
      return connections;
    },
    answer: true,
    push: (line) => sockets.forEach((socket) => socket.write(`${line}\n`)),
    dropAll: () => sockets.forEach((socket) => socket.end()),
    waitForLines: (n, ms = 5000) =>
      within(
        new Promise<void>((resolve) => {
          const look = (): void => (lines.length >= n ? resolve() : void waiters.push(look));
          look();
        }),
        `${n} lines at the daemon`,
        ms,
      ),
    close: () => new Promise<void>((resolve) => (sockets.forEach((socket) => socket.destroy()), server.close(() => resolve()))),
  };
  const server: Server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (let i = pending.indexOf(0x0a); i !== -1; i = pending.indexOf(0x0a)) {
        const line = pending.subarray(0, i).toString('utf8');
        pending = pending.subarray(i + 1);
        lines.push(line);
        for (const waiter of waiters.splice(0)) waiter();
        let record: Record_;
        try {
          record = JSON.parse(line) as Record_;
        } catch {
          // What pi-daemon does with a bad line: an error response, then the close.
          socket.end(
            `${JSON.stringify({ protocolVersion: '2.0', kind: 'response', hostInstanceId: 'fake-host', ok: false, error: { code: 'invalid_json', message: 'bad line', retryable: false } })}\n`,
          );
          return;
        }
        if (daemon.answer) socket.write(`${JSON.stringify(okResponse(record))}\n`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return daemon;
}

/** A browser stand-in that offers pi-daemon.v2 and the key (unless told otherwise). */
export function connectDaemonBrowser(url: string, options: ClientOptions = {}): BrowserClient {
  const key = options.key === undefined ? KEY : options.key;
  return BrowserClient.connect(url, { ...options, protocols: options.protocols ?? [DAEMON_SUBPROTOCOL, ...(key === null ? [] : [`${KEY_PREFIX}${key}`])] });
}

/** A v2 command with the fields every command has. */
export function command(requestId: string, operation: string, payload: Record_ = {}, extra: Record_ = {}): Record_ & { requestId: string } {
  return { protocolVersion: '2.0', requestId, operation, payload, ...extra };
}

/** Waits for the response to `requestId` among the browser's records. */
export function responseTo(client: BrowserClient, requestId: string, ms = 5000): Promise<Record_> {
  return client.waitFor((record) => record.kind === 'response' && record.requestId === requestId, `the response to ${requestId}`, ms);
}

/** An open the gateway's policy lets through: a memory session with no host tools. */
export function openCommand(requestId: string, sessionId: string, generation = 1): Record_ & { requestId: string } {
  return command(requestId, 'open', { cwd: '/', session: { mode: 'memory' }, resources: { tools: 'none' } }, { sessionId, generation });
}

/** A refusal the gateway makes, as a browser receives it (the defaults: before the daemon named itself, answering no request). */
export function refusal(
  code: string,
  message: string,
  fields: { requestId?: string; hostInstanceId?: string; retryable?: boolean; details?: Record_ } = {},
): Record_ {
  return {
    protocolVersion: '2.0',
    kind: 'response',
    requestId: fields.requestId ?? 'unknown',
    hostInstanceId: fields.hostInstanceId ?? 'aicc-gateway',
    ok: false,
    error: { code, message: `aicc gateway: ${message}`, retryable: fields.retryable ?? false, details: { ...fields.details, source: 'aicc-gateway' } },
  };
}
