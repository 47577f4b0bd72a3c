// A Link over a Node byte stream carrying NDJSON: one record per line. It serves Unix sockets (pi
// agents' endpoints) and a child's stdio (pi --mode rpc) alike.
//
// Lines are split on "\n" only, with a trailing "\r" stripped. Node's readline is not used on
// purpose: it also splits on U+2028/U+2029, which are legal inside JSON strings.

import { createConnection, type Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import type { Frame } from '../protocol/codec.js';
import { LinkInbox } from '../links/inbox.js';
import type { Link, LinkHandlers } from '../links/link.js';
import { CapsuleError } from '../base/errors.js';

export interface SocketLinkOptions {
  /** Longest line accepted, in bytes, without its "\n" (default 1 MiB). A longer one closes the link. */
  maxLineBytes?: number;
  /** Bytes written and not yet taken by the peer before a send closes the link instead (default 8 MiB). */
  maxOutboundBytes?: number;
}

export interface ConnectSocketLinkOptions extends SocketLinkOptions {
  /** Give up connecting after this many ms (default 5000). */
  timeoutMs?: number;
}

export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;
export const DEFAULT_MAX_OUTBOUND_BYTES = 8 * 1024 * 1024;
const NEWLINE = 0x0a;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Wraps a connected socket (a Unix socket or TCP): each line in is a frame, each frame out a line. */
export function socketLink(socket: Socket, options: SocketLinkOptions = {}): Link {
  return new NdjsonLink(socket, socket, () => socket.destroy(), options);
}

/**
 * Wraps a pair of streams, such as a child's stdout (input) and stdin (output). Closing the link
 * ends `output`; the child sees end of input.
 */
export function streamLink(input: Readable, output: Writable, options: SocketLinkOptions = {}): Link {
  return new NdjsonLink(input, output, () => input.destroy(), options);
}

/** Connects to a Unix socket (or a Windows named pipe) and resolves with a Link once connected. */
export function connectSocketLink(path: string, options: ConnectSocketLinkOptions = {}): Promise<Link> {
  const timeoutMs = options.timeoutMs ?? 5000;
  return new Promise((resolve, reject) => {
    const socket = createConnection({ path });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new CapsuleError('AICC_NOT_CONNECTED', `connectSocketLink: no connection to ${path} within ${timeoutMs} ms; is the agent still running?`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socketLink(socket, options));
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        new CapsuleError('AICC_NOT_CONNECTED', `connectSocketLink: cannot connect to ${path} (${error.code ?? error.message}); is the agent still running?`),
      );
    });
  });
}

class NdjsonLink implements Link {
  private readonly inbox = new LinkInbox((reason) => this.close(`socketLink: ${reason}`));
  private closeReason: string | undefined;
  /** Bytes of the line being received, split across chunks. */
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private readonly maxLineBytes: number;
  private readonly maxOutboundBytes: number;

  constructor(
    input: Readable,
    private readonly output: Writable,
    private readonly destroyInput: () => void,
    options: SocketLinkOptions,
  ) {
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.maxOutboundBytes = options.maxOutboundBytes ?? DEFAULT_MAX_OUTBOUND_BYTES;
    for (const [name, value] of [
      ['maxLineBytes', this.maxLineBytes],
      ['maxOutboundBytes', this.maxOutboundBytes],
    ] as const) {
      if (!Number.isSafeInteger(value) || value < 1)
        throw new CapsuleError('AICC_INVALID_OPTION', `socketLink: ${name} must be a whole number above 0, got ${String(value)}`);
    }
    input.on('data', (chunk: Buffer | string) => this.receive(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    input.on('end', () => this.ended(this.partialBytes > 0 ? 'stream ended inside a line' : 'stream ended by the peer'));
    input.on('close', () => this.ended('stream closed'));
    input.on('error', (error: NodeJS.ErrnoException) => this.ended(`stream error ${error.code ?? error.message}`));
    // A write error (EPIPE after the peer left) is reported through the input's end or close.
    output.on('error', () => {});
  }

  get open(): boolean {
    return this.closeReason === undefined;
  }

  get bufferedAmount(): number {
    return this.output.writableLength;
  }

  send(frame: Frame): void {
    if (typeof frame !== 'string') {
      throw new CapsuleError('AICC_INVALID_OPTION', 'socketLink.send: NDJSON carries text only; encode with jsonCodec (binary and object frames cannot cross)');
    }
    if (frame.includes('\n')) {
      // A raw newline would split one record into two on the far side.
      throw new CapsuleError('AICC_INVALID_OPTION', 'socketLink.send: a frame must be one line; JSON.stringify never emits a raw newline');
    }
    if (this.closeReason !== undefined || this.output.writableEnded || this.output.destroyed) return;
    if (this.output.writableLength > this.maxOutboundBytes) {
      this.close(`socketLink: the peer left more than ${this.maxOutboundBytes} bytes unread; closed`);
      return;
    }
    this.output.write(`${frame}\n`);
  }

  close(reason = 'closed'): void {
    if (this.closeReason !== undefined) return;
    this.closeReason = reason;
    // end() flushes what was written, then the input side is torn down too.
    if (!this.output.writableEnded && !this.output.destroyed) this.output.end(() => this.destroyInput());
    else this.destroyInput();
    this.inbox.closed(reason);
  }

  listen(handlers: LinkHandlers): void {
    this.inbox.listen(handlers);
  }

  private receive(chunk: Buffer): void {
    let start = 0;
    while (this.closeReason === undefined) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) {
        const rest = chunk.length - start;
        if (rest > 0) {
          this.partialBytes += rest;
          if (this.partialBytes > this.maxLineBytes + 1) return this.tooLong();
          this.partial.push(chunk.subarray(start));
        }
        return;
      }
      const piece = chunk.subarray(start, newline);
      start = newline + 1;
      const bytes = this.partialBytes + piece.length;
      let line = this.partial.length === 0 ? piece : Buffer.concat([...this.partial, piece], bytes);
      this.partial = [];
      this.partialBytes = 0;
      if (line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
      if (line.length > this.maxLineBytes) return this.tooLong();
      let text: string;
      try {
        text = utf8.decode(line);
      } catch {
        return this.close('socketLink: a line is not valid UTF-8; the peer must send UTF-8 JSON text');
      }
      this.deliver(text);
    }
  }

  private tooLong(): void {
    this.partial = [];
    this.partialBytes = 0;
    this.close(`socketLink: a line exceeded ${this.maxLineBytes} bytes; the peer must keep records shorter, or raise maxLineBytes`);
  }

  private deliver(frame: Frame): void {
    this.inbox.receive(frame);
  }

  private ended(reason: string): void {
    if (this.closeReason === undefined) {
      this.closeReason = reason;
      if (!this.output.writableEnded && !this.output.destroyed) this.output.end();
      this.destroyInput();
    }
    this.inbox.closed(this.closeReason);
  }
}
