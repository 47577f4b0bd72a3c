// The gateway under hostile pages: what its three fuzz targets share (gatewayRelay.ts,
// gatewayHost.ts, gatewayDaemon.ts). Each target starts a gateway in its mode on 127.0.0.1 with a
// fake peer behind it and hands fuzzGateway() what is particular to that mode; fuzzGateway then
// sends batches of hostile frames over a few reused WebSocket connections, plus a small share of
// hostile handshakes on raw TCP, and after every batch checks that
// - every frame a page got, every close reason, every selected subprotocol, every HTTP answer and
//   every log line holds neither the gateway key nor the agent's token (context.seen);
// - every close code (the page's and the log's) and every error code is a documented one;
// - a page's requests were each answered once (where the mode promises it);
// - a fresh, well-formed connection is still served end to end, through the gateway to the peer
//   and back;
// - the gateway holds no connection but the live one, and the peer no more than that.

import { existsSync, readFileSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import WebSocket from 'ws';
import type { FuzzContext } from '../harness/context.js';
import { CLOSE, KEY_PREFIX } from '../../../src/node/gateway/access.js';
import type { Gateway } from '../../../src/node/gateway/server.js';
import peersSchema from '../../../schemas/pi-peers-1.0.schema.json';
import { BrowserClient, KEY, ORIGIN, type Record_ } from '../../node/gateway/helpers.js';
import { draw } from './agentFrames.js';

export { KEY, ORIGIN };
/** The fake agent's token: the gateway adds it to the hello; no page or log line may ever show it. */
export const TOKEN = 'fuzz-agent-token-93d0b6e1a7c4f258';

/**
 * Close codes a page (or the log) may show: the gateway's own (CLOSE, listed in `aicc gateway
 * --help`) and the standard ones ws and the peers use — 1001 going away, 1002 protocol error,
 * 1005 no status (a page that closes without a code, in the log), 1006 dropped, 1007 invalid
 * UTF-8, 1008 policy (ws: too many fragments), 1011 internal error.
 */
export const CLOSE_CODES: ReadonlySet<string> = new Set([...Object.values(CLOSE), 1001, 1002, 1005, 1006, 1007, 1008, 1011].map(String));

/**
 * pi-peers error codes (the schema's ErrorCode enum) but internal_error: the schema documents it,
 * but behind a fake peer that never fails it could only come from a bug of the gateway's.
 */
export const PEERS_CODES: ReadonlySet<string> = new Set(peersSchema.$defs.ErrorCode.enum.filter((code) => code !== 'internal_error'));

/** The project's root, found from this file whether it runs from source or from the fuzz bundle. */
export function projectRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'aicc-capsule') return dir;
  }
  throw new Error('projectRoot: no aicc-capsule package.json above this file');
}

// ---------------------------------------------------------------------------------------------
// Frames

/** One WebSocket message: text, binary, a "text" frame of bytes that are not UTF-8, or a ping. */
export type PageFrame = string | Uint8Array | { invalidUtf8: Uint8Array } | { ping: Uint8Array };

export const weird = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 40 }), // lone surrogates included
  fc.constantFrom('', ' ', '\u0000', '__proto__', 'constructor', 'toString', 'hello', 'token', 'a\nb', 'a\u2028b\u2029c', '\r\n', '\ud800', 'ж'.repeat(60), '😀'.repeat(40), 'x'.repeat(4000)),
);
export const json = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(weird, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }));

/** `arbitrary` one time in `1 + rarity`, else undefined (a field left out: see dropUndefined). */
export function sometimes<T>(arbitrary: fc.Arbitrary<T>, rarity: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: rarity, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
}

export function dropUndefined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}

/** A record with `fields` and a value nested `depth` levels deep: deep enough, it breaks a recursive serializer. */
export function deepRecord(fields: string, depth: number, arrays: boolean): string {
  return arrays ? `{${fields},"deep":${'['.repeat(depth)}${']'.repeat(depth)}}` : `{${fields},"deep":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
}

/** Depths for deepRecord: shallow, about where a worker's stack gives out (~20,000), and far past it. */
export const depth = fc.oneof(fc.constantFrom(64, 1_000, 5_000, 20_000, 60_000, 150_000), fc.integer({ min: 10, max: 150_000 }));

/** Frames that are not records, shared by both protocols: bytes, broken UTF-8, pings. */
export const notText: fc.Arbitrary<PageFrame> = fc.oneof(
  fc.uint8Array({ maxLength: 64 }),
  fc.string({ maxLength: 80 }).map((text) => new TextEncoder().encode(text)), // text, in a binary frame
  fc.tuple(fc.uint8Array({ maxLength: 30 }), fc.integer({ min: 0x80, max: 0xff })).map(([bytes, bad]) => ({ invalidUtf8: Uint8Array.from([...bytes.filter((b) => b < 0x80), bad, 0xff]) })),
  fc.uint8Array({ maxLength: 125 }).map((bytes) => ({ ping: bytes })),
);

/** Text frames of `size` bytes around `limit`: a record padded to size, or a run of letters. */
export function sizedFrame(limit: number, fields: string): fc.Arbitrary<string> {
  return fc.tuple(fc.integer({ min: limit - 300, max: limit + 300 }), fc.boolean()).map(([size, record]) => {
    if (!record) return 'x'.repeat(size);
    const head = `{${fields},"pad":"`;
    return `${head}${'p'.repeat(Math.max(0, size - head.length - 2))}"}`;
  });
}

function sendFrame(socket: WebSocket, frame: PageFrame): void {
  if (typeof frame === 'string') socket.send(frame);
  else if (frame instanceof Uint8Array) socket.send(frame, { binary: true });
  // ws sends a Buffer given as text as is, unchecked: what a broken client would put on the wire.
  else if ('invalidUtf8' in frame) socket.send(Buffer.from(frame.invalidUtf8), { binary: false });
  else socket.ping(Buffer.from(frame.ping));
}

/** Whether a frame asks for one answer: a text or binary message (a ping gets a pong, broken UTF-8 a close). */
function asks(frame: PageFrame): boolean {
  return typeof frame === 'string' || frame instanceof Uint8Array;
}

function rawText(data: WebSocket.RawData): string {
  return (Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer)).toString('utf8');
}

// ---------------------------------------------------------------------------------------------
// A hostile page on a WebSocket

export type RecordCheck = (record: Record_, where: string) => boolean;

/**
 * Closes that ws makes for a broken frame (1002 protocol error, 1007 invalid UTF-8, 1009 too big),
 * counted as the pages saw them and as the log named them: the log must name the code the page
 * got. One run per worker, so one count per run.
 */
const WS_CLOSES = [1002, 1007, 1009];
const closesSeen = new Map<number, number>();
const closesLogged = new Map<number, number>();
const count = (map: Map<number, number>, code: number): void => void map.set(code, (map.get(code) ?? 0) + 1);

/**
 * A page that sends whatever it is given and checks everything it gets back as it arrives; it
 * keeps no frames, only counts: the requests it made and the answers it got.
 */
export class FuzzPage {
  readonly socket: WebSocket;
  readonly opened: Promise<boolean>;
  readonly closed: Promise<void>;
  isClosed = false;
  closeCode = 0;
  closeReason = '';
  asked = 0;
  answered = 0;
  /** Told of every text frame sent, as the gateway reads it (a lone surrogate crosses the wire as U+FFFD). */
  onText: ((text: string) => void) | undefined;
  private readonly watchers = new Set<{ match: (record: Record_) => boolean; done: (record: Record_ | undefined) => void }>();

  constructor(
    url: string,
    protocols: string[],
    origin: string | undefined,
    private readonly context: FuzzContext,
    /** Checks one record the page got (its codes, its shape); true when it answers a request. */
    private readonly inspect: RecordCheck,
    readonly where: string,
  ) {
    const socket = (this.socket = new WebSocket(url, protocols, origin === undefined ? {} : { origin }));
    socket.on('error', () => {}); // a refused handshake or a dropped link: its close is what is checked
    this.opened = new Promise((resolve) => {
      socket.once('open', () => {
        context.seen(socket.protocol, `${where}: the selected subprotocol`);
        resolve(true);
      });
      socket.once('close', () => resolve(false));
    });
    this.closed = new Promise((resolve) =>
      socket.once('close', (code, reason) => {
        this.isClosed = true;
        this.closeCode = code;
        this.closeReason = reason.toString('utf8');
        context.code(String(code), CLOSE_CODES, `${where}: a close code`);
        context.tally(`close ${code}`);
        count(closesSeen, code);
        context.seen(this.closeReason, `${where}: a close reason`);
        for (const watcher of [...this.watchers]) watcher.done(undefined);
        resolve();
      }),
    );
    socket.on('message', (data, isBinary) => this.take(data, isBinary));
  }

  private take(data: WebSocket.RawData, isBinary: boolean): void {
    const text = rawText(data);
    this.context.seen(text, `${this.where}: a frame`);
    if (isBinary) return this.context.problem(`${this.where}: the gateway sent a binary frame`);
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      return this.context.problem(`${this.where}: the gateway sent a frame that is not JSON: ${text.slice(0, 80)}`);
    }
    if (record === null || typeof record !== 'object' || Array.isArray(record)) return this.context.problem(`${this.where}: the gateway sent JSON that is not an object: ${text.slice(0, 80)}`);
    if (this.inspect(record as Record_, this.where)) this.answered++;
    for (const watcher of [...this.watchers]) if (watcher.match(record as Record_)) watcher.done(record as Record_);
  }

  /** Sends a frame if the socket is open; says whether it was sent. */
  send(frame: PageFrame | Record_): boolean {
    if (this.socket.readyState !== WebSocket.OPEN) return false;
    const wire = typeof frame === 'string' || frame instanceof Uint8Array || 'invalidUtf8' in frame || 'ping' in frame ? (frame as PageFrame) : JSON.stringify(frame);
    if (asks(wire)) this.asked++;
    if (typeof wire === 'string') this.onText?.(Buffer.from(wire, 'utf8').toString('utf8'));
    sendFrame(this.socket, wire);
    return true;
  }

  /** The first record from now on that matches, or undefined on a close or after `ms`. */
  next(match: (record: Record_) => boolean, ms: number): Promise<Record_ | undefined> {
    return new Promise((resolve) => {
      if (this.isClosed) return resolve(undefined);
      const watcher = {
        match,
        done: (record: Record_ | undefined) => {
          clearTimeout(timer);
          this.watchers.delete(watcher);
          resolve(record);
        },
      };
      const timer = setTimeout(() => watcher.done(undefined), ms);
      this.watchers.add(watcher);
    });
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CONNECTING) this.socket.terminate();
    else if (this.socket.readyState === WebSocket.OPEN) this.socket.close(1000);
    await Promise.race([this.closed, sleep(3000)]);
    if (!this.isClosed) {
      this.context.problem(`${this.where}: the close handshake did not finish within 3 s`);
      this.socket.terminate();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Hostile handshakes on raw TCP: any header, any path, and everything the gateway answers read

export interface Handshake {
  method: string;
  path: string;
  /** Header lines besides Host; an upgrade request has Upgrade, Connection and the WebSocket key. */
  headers: Array<[string, string]>;
}

/** Handshakes a page (or a program) could get wrong: key, subprotocol, Origin, path, version. */
export function handshakes(served: string, other: string, path: string): fc.Arbitrary<Handshake> {
  const key = `${KEY_PREFIX}${KEY}`;
  const offers = fc.oneof(
    { weight: 4, arbitrary: fc.constant(`${served}, ${key}`) },
    fc.constantFrom(
      '',
      served,
      key,
      `${key}, ${served}`,
      `${served}, ${KEY_PREFIX}wrong-key-0123456789abcdef`,
      `${served}, ${KEY_PREFIX}`,
      `${served}, ${key}x`,
      `${served}, ${key.slice(0, -1)}`,
      `${other}, ${key}`,
      `pi-peers.v2, ${key}`,
      `PI-PEERS.V1, ${key}`,
      `${served}, AICC-KEY.${KEY}`,
      `AICC-KEY.${KEY}`,
      KEY,
      `${KEY}, ${key}`,
      `${served}, ${KEY}`,
      `aicc-key-${KEY}`,
      `${key}, ${key}`,
      `${served}, ${served}, ${key}`,
      `${key}, ${KEY_PREFIX}another-key-0123456789`,
      `${served},,${key}`,
      ` ${served} , ${key} `,
      `${served};${key}`,
      `${served} ${key}`,
      `aicc-key:${KEY}`,
      ',',
    ),
    fc.array(fc.stringMatching(/^[!#$%&'*+\-.0-9A-Z^_`|a-z~]{1,20}$/), { maxLength: 4 }).map((list) => list.join(', ')),
  );
  const origin = fc.oneof(
    { weight: 6, arbitrary: fc.constant<string | undefined>(ORIGIN) },
    { weight: 2, arbitrary: fc.constant<string | undefined>(undefined) },
    fc.constantFrom('http://evil.example', 'null', 'http://localhost:5173/', 'http://localhost:5173/x', 'HTTP://LOCALHOST:5173', 'http://localhost:5174', 'https://localhost:5173', '', ' ', 'file://', 'http://[::1', 'x'.repeat(500), `http://${KEY}.example`),
    fc.string({ maxLength: 40 }),
  );
  const paths = fc.oneof(
    { weight: 6, arbitrary: fc.constant(path) },
    fc.constantFrom('/', '/agents/ada', '/?agent=ada', `/agents/${KEY}`, `/?agent=${KEY}`, `/agents/${key}/`, '/agents/%ZZ', '/agents/%E0%A4%A', `/agents/${'a'.repeat(300)}`, '//', '/agents/ada/x', '/nope', '*', 'http://127.0.0.1/agents/ada', '/%00', '/agents/..%2F..%2Fetc', '/?agent=&agent=ada', `/${'x'.repeat(8000)}`),
    fc.webPath(),
  );
  const upgrade = fc.oneof(
    { weight: 12, arbitrary: fc.constant<Array<[string, string]>>([['Upgrade', 'websocket'], ['Connection', 'Upgrade'], ['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ=='], ['Sec-WebSocket-Version', '13']]) },
    fc.constant<Array<[string, string]>>([['Upgrade', 'websocket'], ['Connection', 'Upgrade'], ['Sec-WebSocket-Key', 'short'], ['Sec-WebSocket-Version', '8']]),
    fc.constant<Array<[string, string]>>([['Connection', 'close']]), // plain HTTP
  );
  return fc
    .record({ method: fc.oneof({ weight: 12, arbitrary: fc.constant('GET') }, fc.constantFrom('POST', 'HEAD', 'OPTIONS')), path: paths, origin, offers, upgrade, twice: fc.nat(9) })
    .map(({ method, path: p, origin: o, offers: list, upgrade: base, twice }) => {
      const headers: Array<[string, string]> = [...base];
      if (o !== undefined) headers.push(['Origin', o]);
      if (list !== '') {
        // Sometimes split over two headers, which Node joins with ", ".
        const parts = list.split(',');
        if (twice === 0 && parts.length > 1) headers.push(['Sec-WebSocket-Protocol', parts[0]!], ['Sec-WebSocket-Protocol', parts.slice(1).join(',')]);
        else headers.push(['Sec-WebSocket-Protocol', list]);
      }
      return { method, path: p.replace(/[\s]/g, '%20'), headers: headers.map(([name, value]) => [name, value.replace(/[\r\n]/g, ' ')] as [string, string]) };
    });
}

const MASK = [0x1b, 0x2c, 0x3d, 0x4e];

/** A masked close frame with `code`, as a client sends it. */
function clientClose(code: number): Buffer {
  return Buffer.from([0x88, 0x82, ...MASK, (code >> 8) ^ MASK[0]!, (code & 0xff) ^ MASK[1]!]);
}

/** One unmasked frame from the server at the start of `buffer`, or undefined until it is whole. */
function serverFrame(buffer: Buffer): { opcode: number; payload: Buffer; rest: Buffer } | undefined {
  if (buffer.length < 2) return undefined;
  let length = buffer[1]! & 0x7f;
  let at = 2;
  if (length === 126) {
    if (buffer.length < 4) return undefined;
    length = buffer.readUInt16BE(2);
    at = 4;
  } else if (length === 127) {
    if (buffer.length < 10) return undefined;
    length = Number(buffer.readBigUInt64BE(2));
    at = 10;
  }
  if (buffer.length < at + length) return undefined;
  return { opcode: buffer[0]! & 0x0f, payload: buffer.subarray(at, at + length), rest: buffer.subarray(at + length) };
}

/**
 * Sends one handshake on a fresh TCP connection and reads all the gateway answers: the HTTP head
 * and body, and after a 101 every frame up to the close (a close of ours goes out at once, so an
 * accepted connection ends too). A gateway that says nothing for 5 s is a problem.
 */
export function rawHandshake(port: number, shake: Handshake, context: FuzzContext, where: string): Promise<void> {
  return new Promise((resolve) => {
    const socket = connectTcp({ host: '127.0.0.1', port });
    let buffer: Buffer = Buffer.alloc(0);
    let status: number | undefined;
    let body = '';
    let finished = false;
    const finish = (trouble?: string): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
      if (body !== '') context.seen(body, `${where}: an HTTP body`);
      if (trouble !== undefined) context.problem(trouble);
      resolve();
    };
    const timer = setTimeout(() => finish(`${where}: no answer within 5 s to ${shake.method} ${shake.path.slice(0, 60)}`), 5000);
    socket.on('error', () => finish()); // a reset once the gateway is done with us
    socket.on('close', () => finish());
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (status === undefined) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString('latin1');
        buffer = buffer.subarray(end + 4);
        context.seen(head, `${where}: a response head`);
        status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
        if (status === 101) socket.write(clientClose(1000));
      }
      if (status !== 101) {
        body += buffer.toString('utf8');
        buffer = Buffer.alloc(0);
        return;
      }
      for (let frame = serverFrame(buffer); frame !== undefined; frame = serverFrame(buffer)) {
        buffer = frame.rest;
        if (frame.opcode === 0x8) {
          const code = frame.payload.length >= 2 ? frame.payload.readUInt16BE(0) : 1005;
          context.code(String(code), CLOSE_CODES, `${where}: a close code`);
          context.seen(frame.payload.subarray(2).toString('utf8'), `${where}: a close reason`);
          return finish();
        }
        context.seen(frame.payload.toString('utf8'), `${where}: a frame`);
      }
    });
    const lines = [`${shake.method} ${shake.path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, ...shake.headers.map(([name, value]) => `${name}: ${value}`)];
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  });
}

// ---------------------------------------------------------------------------------------------
// The run

/** A request of the mode's protocol and how to know its answer. */
export interface Exchange {
  record: Record_;
  answers(record: Record_): boolean;
  /** The answer says it was served (not refused). */
  served(record: Record_): boolean;
}

export interface ModeUnderFuzz {
  /** "relay", "host" or "daemon", in every problem's text. */
  name: string;
  gateway: Gateway;
  /** The path and subprotocol a well-formed page uses. */
  path: string;
  subprotocol: string;
  frames: fc.Arbitrary<PageFrame>;
  handshakes: fc.Arbitrary<Handshake>;
  inspect: RecordCheck;
  /** The first record of a connection (a hello, a handshake). */
  greeting(n: string): Exchange;
  /** A request that goes all the way to the peer and back. */
  request(n: string): Exchange;
  /** Frames sent before the event loop runs (default CHUNK): fewer where many frames end the connection. */
  chunk?: number;
  /** Every request gets exactly one answer while the connection stays open (else: at most one). */
  exactAnswers: boolean;
  /** Told of every text frame a page sends (a fake peer checks it got only what pages sent). */
  sending?: (text: string) => void;
  /** After each batch: the peer is still well and holds at most `open` connections. */
  checkPeer(open: number, batch: number): Promise<void>;
  /** Extra rounds of the mode's own (a peer that goes away, an agent id that is the key…). */
  extra?(batch: number): Promise<void>;
}

const BATCH = 150;
/** Frames sent before letting the event loop run, so that a close the gateway sent is seen. */
const CHUNK = 25;
const HANDSHAKES_PER_BATCH = 2;
/** A fresh fuzz connection every so many batches, so that no one connection's state decides the run. */
const ROTATE = 8;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `ok` until it holds or `ms` pass; says whether it held. */
export async function until(ok: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) return false;
    await sleep(5);
  }
  return true;
}

/** The gateway's log as the fuzz takes it: every line is checked for secrets and its close code. */
export function checkedLog(context: FuzzContext, name: string): (line: string) => void {
  return (line) => {
    context.seen(line, `${name}: a log line`);
    const [, how, code] = /(refused|closed) \((\d+)\)/.exec(line) ?? [];
    if (code !== undefined) context.code(code, CLOSE_CODES, `${name}: a close code in the log`);
    if (how === 'closed') count(closesLogged, Number(code));
  };
}

export async function fuzzGateway(context: FuzzContext, mode: ModeUnderFuzz): Promise<void> {
  const { name, gateway } = mode;
  const protocols = [mode.subprotocol, `${KEY_PREFIX}${KEY}`];
  const chunk = mode.chunk ?? CHUNK;
  let pages = 0;

  /**
   * A fuzz connection: well-formed handshake, then (usually) the greeting, waited for. One in five
   * does not wait, so that its first frames land while the gateway is still reaching the peer.
   */
  const open = async (): Promise<FuzzPage> => {
    const n = ++pages;
    const page = new FuzzPage(`${gateway.url}${mode.path}`, protocols, ORIGIN, context, mode.inspect, `${name} page`);
    page.onText = mode.sending;
    if (!(await page.opened)) {
      context.problem(`${name}: a well-formed handshake was refused (${page.closeCode}: ${page.closeReason})`);
      return page;
    }
    const greeting = mode.greeting(`hello-${n}`);
    const answer = page.next(greeting.answers, 5000);
    page.send(greeting.record);
    if (n % 5 !== 0 && (await answer) === undefined && !page.isClosed) context.problem(`${name}: a greeting on a fresh connection was not answered within 5 s`);
    return page;
  };

  /** A fresh, well-formed connection must be served end to end: greeting, one request, a clean close. */
  const probe = async (batch: number): Promise<void> => {
    const client = BrowserClient.connect(`${gateway.url}${mode.path}`, { protocols });
    const trouble = await (async (): Promise<string | undefined> => {
      try {
        await Promise.race([client.opened, sleep(5000).then(() => Promise.reject(new Error('no open within 5 s')))]);
        for (const exchange of [mode.greeting(`probe-hello-${batch}`), mode.request(`probe-${batch}`)]) {
          client.send(exchange.record);
          mode.sending?.(JSON.stringify(exchange.record));
          const answer = await client.waitFor(exchange.answers, `the answer to ${String(exchange.record['type'] ?? exchange.record['operation'])}`, 5000);
          if (!exchange.served(answer)) return `refused: ${JSON.stringify(answer).slice(0, 200)}`;
        }
        return undefined;
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    })();
    client.close();
    const closed = await Promise.race([client.closed, sleep(3000).then(() => undefined)]);
    for (const frame of client.frames) context.seen(frame, `${name} probe: a frame`);
    if (closed !== undefined) {
      context.seen(closed.reason, `${name} probe: a close reason`);
      context.code(String(closed.code), CLOSE_CODES, `${name} probe: a close code`);
    }
    if (trouble !== undefined) context.problem(`${name}: a well-formed connection after batch ${batch} was not served: ${trouble}`);
    else if (closed === undefined) context.problem(`${name}: a well-formed connection after batch ${batch} did not close within 3 s`);
  };

  let page = await open();
  for (let batch = 0; batch * BATCH < context.frames; batch++) {
    if (page.isClosed || batch % ROTATE === 0) {
      await page.close();
      page = await open();
    }
    const frames = draw(mode.frames, context.seed, batch, BATCH);
    for (let i = 0; i < frames.length; i++) {
      // CLOSING already: the gateway's close is in, the connection takes no more.
      if (page.socket.readyState !== WebSocket.OPEN) page = await open();
      page.send(frames[i]!);
      context.sent();
      if (i % chunk === chunk - 1) await sleep(0);
    }
    for (const [i, shake] of draw(mode.handshakes, context.seed + 1, batch, HANDSHAKES_PER_BATCH).entries()) {
      await rawHandshake(gateway.port, shake, context, `${name} handshake`);
      context.sent();
      if (i === 0 && batch % 3 === 0) await hostileWsHandshake(context, mode, batch);
    }
    // Drain: a request after the batch is answered once everything before it has been.
    if (!page.isClosed) {
      const mark = mode.request(`mark-${batch}`);
      const answer = page.next(mark.answers, 10_000);
      page.send(mark.record);
      const answered = await answer;
      if (answered === undefined && !page.isClosed) context.problem(`${name}: the connection stopped answering during batch ${batch}`);
      if (answered !== undefined && !page.isClosed && (mode.exactAnswers ? page.answered !== page.asked : page.answered > page.asked)) {
        context.problem(`${name}: a connection got ${page.answered} answers to ${page.asked} requests (batch ${batch})`);
      }
    }
    await probe(batch);
    await mode.extra?.(batch);
    // No leaked connection: the gateway holds the live fuzz connection and nothing else.
    const expected = (): number => (page.isClosed ? 0 : 1);
    if (!(await until(() => gateway.connections === expected(), 3000))) context.problem(`${name}: the gateway holds ${gateway.connections} connections after batch ${batch}; ${expected()} expected`);
    await mode.checkPeer(expected(), batch);
    await context.breathe();
  }
  await page.close();
  if (!(await until(() => gateway.connections === 0, 3000))) context.problem(`${name}: the gateway holds ${gateway.connections} connections after every page closed`);
  await mode.checkPeer(0, -1);
  for (const code of WS_CLOSES) {
    const seen = closesSeen.get(code) ?? 0;
    const logged = closesLogged.get(code) ?? 0;
    if (seen !== logged) context.problem(`${name}: pages saw ${seen} closes with ${code}, the log names ${logged}`);
  }
}

/**
 * Handshakes through a real WebSocket client, which reads the close a refused connection gets:
 * a bad key, no key, the other protocol's subprotocol, a bad Origin, an odd path.
 */
async function hostileWsHandshake(context: FuzzContext, mode: ModeUnderFuzz, batch: number): Promise<void> {
  const key = `${KEY_PREFIX}${KEY}`;
  const other = mode.subprotocol === 'pi-daemon.v2' ? 'pi-peers.v1' : 'pi-daemon.v2';
  const cases: Array<{ path: string; protocols: string[]; origin: string | undefined }> = [
    { path: mode.path, protocols: [mode.subprotocol, `${KEY_PREFIX}not-the-key-0123456789`], origin: ORIGIN },
    { path: mode.path, protocols: [mode.subprotocol], origin: ORIGIN },
    { path: mode.path, protocols: [other, key], origin: ORIGIN },
    { path: mode.path, protocols: [key], origin: ORIGIN },
    { path: mode.path, protocols: [mode.subprotocol, key], origin: 'http://evil.example' },
    { path: mode.path, protocols: [mode.subprotocol, key], origin: undefined },
    { path: `/agents/${KEY}`, protocols: [mode.subprotocol, key], origin: ORIGIN },
    { path: '/nowhere', protocols: [mode.subprotocol, key], origin: ORIGIN },
  ];
  const shake = cases[(batch / 3) % cases.length]!;
  const page = new FuzzPage(`${mode.gateway.url}${shake.path}`, shake.protocols, shake.origin, context, mode.inspect, `${mode.name} ws handshake`);
  await page.opened;
  await page.close();
  context.sent();
}

// ---------------------------------------------------------------------------------------------
// pi-peers frames (relay and host mode)

const peersId = fc.oneof(
  { weight: 30, arbitrary: fc.nat(9999).map((n) => `r${n}`) },
  fc.constantFrom(undefined, '', 'r1', '__proto__', 'hello-1', 'x'.repeat(100_000)),
  fc.integer(),
  fc.constantFrom(null, true, [], {}),
  weird,
);
const peersType = fc.oneof(
  { weight: 30, arbitrary: fc.constantFrom('get_state', 'get_state', 'get_last_assistant_text', 'prompt', 'prompt', 'steer', 'follow_up', 'abort') },
  fc.constantFrom(undefined, 'hello', 'response', 'event', 'list', 'GET_STATE', '__proto__', 'toString'),
  weird,
  fc.integer(),
  fc.constant(null),
);
const version = fc.oneof({ weight: 3, arbitrary: fc.constant('1.0') }, fc.constantFrom('1.1', '1.10', '0.9', '2.0', '01.0', '1.0.0', '1', '', '1e3', '99999999999999999999.0', '-1.0'), fc.integer(), fc.constant(null), weird);
// fakePi.mjs exits on the prompt "die": a page cannot know that, and the run must go on.
const message = fc.oneof({ weight: 8, arbitrary: fc.string({ minLength: 1, maxLength: 60 }) }, fc.constant(undefined), weird, json).map((m) => (m === 'die' ? 'die?' : m));

/** A pi-peers record close to a real one: any field replaced, dropped or added, a token now and then. */
export const peersRecord: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    id: peersId,
    type: peersType,
    message,
    protocol: sometimes(fc.oneof(fc.record({ version, minVersion: version }, { requiredKeys: [] }), json), 3),
    from: sometimes(fc.oneof(fc.record({ id: weird, label: weird, host: weird }), fc.record({ id: weird }), json), 4),
    hops: sometimes(fc.oneof(fc.integer({ min: -1, max: 5 }), fc.constantFrom(0, 1.5, 2 ** 53, 1e300, '2', null)), 4),
    awaitsReply: sometimes(fc.oneof({ weight: 3, arbitrary: fc.boolean() }, json), 6),
    // A get_state with settledAbove is held until a run settles, 20 s without holdMs: kept rare.
    settledAbove: sometimes(fc.oneof(fc.nat(3), fc.constantFrom(-1, 0.5, 2 ** 53, '1', null)), 10),
    holdMs: sometimes(fc.constantFrom(0, 1, 5, 20, -5, 'x', null), 1),
    token: sometimes(fc.oneof(weird, fc.constant('agent-token-guess')), 25),
    extra: sometimes(json, 4),
  })
  .map(dropUndefined);

const peersHello = fc.record({ id: peersId, type: fc.constant('hello'), protocol: fc.record({ version, minVersion: version }), from: sometimes(fc.record({ id: weird, label: weird, host: weird }), 2) }).map(dropUndefined);

/** Strings that hold a second record after a line break: one frame must stay one record. */
const smuggled = fc.constantFrom(
  '{"id":"s1","type":"get_state","note":"x\\n{\\"id\\":\\"s2\\",\\"type\\":\\"hello\\",\\"token\\":\\"t\\"}"}',
  '{"id":"s1","type":"get_state","note":"x\u2028{\\"id\\":\\"s2\\",\\"type\\":\\"prompt\\",\\"message\\":\\"m\\"}\u2029"}',
  '{"id":"s1","type":"prompt","message":"a\\r{\\"id\\":\\"s2\\",\\"type\\":\\"hello\\"}"}',
);

const protoPolluters = fc.constantFrom(
  '{"__proto__":{"token":"x"},"id":"p1","type":"get_state"}',
  '{"id":"p2","type":"get_state","__proto__":{"type":"hello","token":"x"}}',
  '{"id":"p3","type":"hello","protocol":{"__proto__":{"version":"1.0","minVersion":"1.0"}}}',
  '{"id":"p4","type":"prompt","message":"m","constructor":{"prototype":{"token":"x"}}}',
  '{"id":"__proto__","type":"prompt","message":"m"}',
  '{"id":"p5","type":"__proto__"}',
  '{"id":"p6","type":"hello","protocol":{"version":"1.0","minVersion":"1.0"},"from":{"__proto__":{"id":"i","label":"l","host":"h"}}}',
  '{"id":"toString","type":"follow_up","message":"m"}',
  '{"id":"hasOwnProperty","type":"get_state","settledAbove":{"valueOf":1}}',
);

/** JSON text as a hostile page writes it: records whole, doubled, cut, corrupted, split by line breaks. */
export function peersFrames(maxPayload: number): fc.Arbitrary<PageFrame> {
  const text = fc.oneof({ weight: 6, arbitrary: peersRecord }, peersHello).map((record) => JSON.stringify(record));
  const fields = fc.constantFrom('"id":"d","type":"get_state"', '"id":"d","type":"hello","protocol":{"version":"1.0","minVersion":"1.0"}', '"id":"d","type":"prompt","message":"m"');
  return fc.oneof(
    { weight: 24, arbitrary: text },
    // A duplicate key: JSON.parse keeps the last one, the gateway must act on what it forwards.
    { weight: 2, arbitrary: fc.tuple(text, fc.constantFrom('"id":"dup"', '"type":"hello"', '"token":"x"', '"id":1', '"__proto__":{"token":"t"}', '"type":"get_state"')).map(([t, field]) => (t.length > 2 ? `{${field},${t.slice(1)}` : t)) },
    // NDJSON smuggling: two records in one frame, raw line breaks as whitespace, breaks inside strings.
    { weight: 2, arbitrary: fc.tuple(text, text, fc.constantFrom('\n', '\r\n', '\r', '\u2028', ' ')).map(([a, b, gap]) => `${a}${gap}${b}`) },
    { weight: 2, arbitrary: fc.tuple(text, fc.constantFrom('\n', '\r', '\r\n', '\u2028', '\t')).map(([t, gap]) => t.replaceAll(',', `,${gap}`)) },
    { weight: 1, arbitrary: smuggled },
    { weight: 2, arbitrary: fc.tuple(text, fc.nat()).map(([t, n]) => t.slice(0, n % (t.length + 1))) },
    { weight: 1, arbitrary: fc.tuple(text, fc.nat(), fc.string({ minLength: 1, maxLength: 3 })).map(([t, n, junk]) => { const at = n % (t.length + 1); return t.slice(0, at) + junk + t.slice(at + 1); }) },
    { weight: 1, arbitrary: protoPolluters },
    { weight: 1, arbitrary: fc.tuple(fields, depth, fc.boolean()).map(([f, d, arrays]) => deepRecord(f, d, arrays)) },
    { weight: 1, arbitrary: fc.oneof(fc.string(), fc.constantFrom('null', 'true', '0', '""', '[]', '{}', '{', '\uFEFF{"id":"b","type":"get_state"}', '{"id":"a","type":"get_state"}{"id":"b"}', 'NaN', '[{"id":"a","type":"get_state"}]')) },
    { weight: 2, arbitrary: notText },
    // Around the payload limit (1 MiB by default): one draw in four, as they cost the most.
    { weight: 1, arbitrary: fc.nat(3).chain((n) => (n === 0 ? sizedFrame(maxPayload, '"id":"big","type":"get_state"') : text)) },
  );
}

/** A pi-peers record a page got: a failure's errorCode must be documented. True for a response. */
export function inspectPeers(context: FuzzContext): RecordCheck {
  return (record, where) => {
    if (record['type'] !== 'response') return false;
    const deliveredAs = (record['data'] as Record_ | undefined)?.['deliveredAs'];
    context.tally(record['success'] !== true ? `answer ${String(record['errorCode'])}` : typeof deliveredAs === 'string' ? `delivered as ${deliveredAs}` : 'answer ok');
    if (record['success'] === false) context.code(record['errorCode'], PEERS_CODES, `${where}: an errorCode`);
    else if (record['success'] !== true) context.problem(`${where}: a response without a boolean success: ${JSON.stringify(record).slice(0, 120)}`);
    return true;
  };
}
