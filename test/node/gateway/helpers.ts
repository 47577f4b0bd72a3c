// Test helpers for the gateway: a browser-side client that keeps every frame it gets, a fake pi-peers
// agent on a Unix socket, and temporary folders.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { KEY_PREFIX, SUBPROTOCOL } from '../../../src/node/gateway/access.js';

export const KEY = 'test-gateway-key-0123456789abcdef';
export const ORIGIN = 'http://localhost:5173';

/** A promise that rejects after `ms`, so no test can hang. */
export function within<T>(promise: Promise<T>, what: string, ms = 5000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export type Record_ = { [key: string]: unknown };

export interface ClientOptions {
  origin?: string | null;
  key?: string | null;
  protocols?: string[];
}

/** A browser stand-in on plain `ws`: sends pi-peers records, keeps every frame and the close. */
export class BrowserClient {
  /** Every text frame received, raw, in order. */
  readonly frames: string[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly opened: Promise<void>;
  private waiters: Array<() => void> = [];

  constructor(readonly socket: WebSocket) {
    this.closed = new Promise((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') })));
    this.opened = new Promise((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    // A test that expects a refusal never awaits `opened`.
    this.opened.catch(() => {});
    socket.on('message', (data) => {
      this.frames.push(data.toString());
      for (const waiter of this.waiters.splice(0)) waiter();
    });
    socket.on('error', () => {});
  }

  static connect(url: string, options: ClientOptions = {}): BrowserClient {
    const key = options.key === undefined ? KEY : options.key;
    const protocols = options.protocols ?? [SUBPROTOCOL, ...(key === null ? [] : [`${KEY_PREFIX}${key}`])];
    const origin = options.origin === undefined ? ORIGIN : options.origin;
    return new BrowserClient(new WebSocket(url, protocols, origin === null ? {} : { origin }));
  }

  get records(): Record_[] {
    return this.frames.map((frame) => JSON.parse(frame) as Record_);
  }

  /** Sends once the socket is open, as a page would after its 'open' event. */
  send(record: object | string): void {
    const text = typeof record === 'string' ? record : JSON.stringify(record);
    if (this.socket.readyState === WebSocket.CONNECTING)
      void this.opened.then(
        () => this.socket.send(text),
        () => {},
      );
    else if (this.socket.readyState === WebSocket.OPEN) this.socket.send(text);
  }

  /** Waits for the first record (from `start`) that matches. */
  async waitFor(match: (record: Record_) => boolean, what: string, ms = 5000): Promise<Record_> {
    return within(
      new Promise<Record_>((resolve) => {
        const look = (): void => {
          const found = this.records.find(match);
          if (found) resolve(found);
          else this.waiters.push(look);
        };
        look();
      }),
      what,
      ms,
    );
  }

  /** Sends a request and waits for the response with its id. */
  async request(record: Record_ & { id: string }, ms = 5000): Promise<Record_> {
    this.send(record);
    return this.waitFor((r) => r.type === 'response' && r.id === record.id, `the response to ${String(record.type)} ${record.id}`, ms);
  }

  hello(extra: Record_ = {}): Promise<Record_> {
    return this.request({ id: 'hello-1', type: 'hello', protocol: { version: '1.0', minVersion: '1.0' }, ...extra });
  }

  close(): void {
    if (this.socket.readyState === WebSocket.CONNECTING) this.socket.terminate();
    else this.socket.close();
  }
}

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A pi-peers agent on a Unix socket: checks the hello's token, answers a few requests, keeps every line. */
export interface FakeAgent {
  readonly endpoint: string;
  readonly lines: string[];
  readonly connections: number;
  /** Makes the agent quote its token back in every response (a careless agent). */
  leakToken: boolean;
  /** Closes every open connection from the agent's side. */
  dropAll(): void;
  close(): Promise<void>;
}

export async function startFakeAgent(endpoint: string, token: string): Promise<FakeAgent> {
  const lines: string[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const agent = {
    endpoint,
    lines,
    get connections() {
      return connections;
    },
    leakToken: false,
    dropAll: () => sockets.forEach((s) => s.end()),
    close: () => new Promise<void>((resolve) => (sockets.forEach((s) => s.destroy()), server.close(() => resolve()))),
  };
  const server: Server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffer = '';
    let greeted = false;
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (let i = buffer.indexOf('\n'); i !== -1; i = buffer.indexOf('\n')) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
        lines.push(line);
        const record = JSON.parse(line) as Record_;
        const reply = (data: Record_): void => {
          socket.write(`${JSON.stringify({ type: 'response', id: record.id, command: record.type, ...data, ...(agent.leakToken ? { echo: token } : {}) })}\n`);
        };
        if (!greeted) {
          if (record.type !== 'hello') reply({ success: false, errorCode: 'hello_required', error: 'hello first' });
          else if (record.token !== token) {
            reply({ success: false, errorCode: 'auth_failed', error: 'bad token' });
            socket.end();
          } else {
            greeted = true;
            reply({ success: true, data: { version: '1.0' } });
          }
        } else if (record.type === 'get_state')
          reply({ success: true, data: { id: 'agent-1', label: 'Ada', host: 'here', cwd: '/tmp', idle: true, settled: 0 } });
        else reply({ success: true, data: { echoed: record } });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(endpoint, resolve));
  return agent;
}

/** Writes an AgentEntry for `id` into `<peersHome>/agents/<file>.json`. */
export function writeEntry(peersHome: string, entry: Record_ & { id: string }, file = entry.id): void {
  mkdirSync(join(peersHome, 'agents'), { recursive: true });
  writeFileSync(join(peersHome, 'agents', `${file}.json`), JSON.stringify(entry), { mode: 0o600 });
}

export function agentEntry(id: string, endpoint: string, token: string, extra: Record_ = {}): Record_ & { id: string } {
  return {
    schemaVersion: '1.0',
    protocol: { version: '1.0', minVersion: '1.0' },
    id,
    label: `label of ${id}`,
    host: 'testhost',
    runtime: process.platform,
    pid: process.pid,
    cwd: '/tmp',
    endpoint,
    token,
    startedAt: new Date(0).toISOString(),
    ...extra,
  };
}
