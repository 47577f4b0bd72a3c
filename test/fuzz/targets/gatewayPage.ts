// A hostile page on a WebSocket, as the gateway targets open it (gatewayRun.ts and each mode's own
// rounds): it sends whatever frame it is given and checks everything it gets back as it arrives —
// no secret shown, every close code documented, every frame one JSON object — keeping only counts.

import WebSocket from 'ws';
import type { FuzzContext } from '../harness/context.js';
import type { Record_ } from '../../node/gateway/helpers.js';
import { CLOSE_CODES, closeSeen } from './gatewayCloses.js';
import type { PageFrame } from './gatewayPageFrames.js';
import { sleep } from './gatewayWaits.js';

/** Checks one record a page got (its codes, its shape); true when it answers a request. */
export type RecordCheck = (record: Record_, where: string) => boolean;

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
        closeSeen(code);
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
    if (record === null || typeof record !== 'object' || Array.isArray(record))
      return this.context.problem(`${this.where}: the gateway sent JSON that is not an object: ${text.slice(0, 80)}`);
    if (this.inspect(record as Record_, this.where)) this.answered++;
    for (const watcher of [...this.watchers]) if (watcher.match(record as Record_)) watcher.done(record as Record_);
  }

  /** Sends a frame if the socket is open; says whether it was sent. */
  send(frame: PageFrame | Record_): boolean {
    if (this.socket.readyState !== WebSocket.OPEN) return false;
    const wire =
      typeof frame === 'string' || frame instanceof Uint8Array || 'invalidUtf8' in frame || 'ping' in frame ? (frame as PageFrame) : JSON.stringify(frame);
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
