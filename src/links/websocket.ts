// A Link over the standard WebSocket API, so one implementation serves browsers, workers and Node
// (Node 20 passes `ws`'s class, which implements the same API).

import { CapsuleError } from '../base/errors.js';
import { closeReason } from './closeReason.js';
import { LinkInbox } from './inbox.js';
import type { Frame, Link, LinkHandlers } from './link.js';

/** The part of the WebSocket API this link uses. */
export interface WebSocketLike {
  readonly readyState: number;
  readonly bufferedAmount: number;
  binaryType: string;
  send(data: string | ArrayBufferView | ArrayBuffer): void;
  close(code?: number, reason?: string): void;
  // biome-ignore lint/suspicious/noExplicitAny: the DOM's and ws's event types differ; each listener reads what it needs.
  addEventListener(type: 'open' | 'message' | 'close' | 'error', listener: (event: any) => void): void;
}

export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocketLike;

const OPEN = 1;
const CONNECTING = 0;

/** Bytes a WebSocket link lets wait unsent before it takes the peer as not reading and closes. */
export const DEFAULT_MAX_OUTBOUND_BYTES = 8 * 1024 * 1024;

export interface WebSocketLinkOptions {
  /**
   * Bytes the socket may hold unsent (its `bufferedAmount`) before a send closes the link instead:
   * a peer that stops reading must not make this side hold everything it is sent. Default 8 MiB.
   * (A capsule pauses event deliveries far earlier, at its `maxBufferedBytes`; this bound is for
   * everything else: results, replays, manifests.)
   */
  maxOutboundBytes?: number;
}

export interface ConnectWebSocketOptions extends WebSocketLinkOptions {
  /** The WebSocket class; defaults to `globalThis.WebSocket`. */
  WebSocket?: WebSocketConstructor;
  protocols?: string | string[];
}

/**
 * Opens a WebSocket and resolves with a Link once it is open; rejects if it closes first.
 *
 * @example
 * const link = await connectWebSocket('ws://127.0.0.1:8787/characters/cleo', { protocols: ['aicc.v0.1', `aicc-key.${key}`] });
 * capsule.connect(link, { character: 'cleo' }); // the game's end; an agent would take AgentClient.connect(link)
 */
export function connectWebSocket(url: string, options: ConnectWebSocketOptions = {}): Promise<Link> {
  const Ctor = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (Ctor === undefined) {
    throw new CapsuleError(
      'AICC_INVALID_OPTION',
      'connectWebSocket: this platform has no global WebSocket; pass one as options.WebSocket (in Node 20: the `ws` package)',
    );
  }
  const socket = new Ctor(url, options.protocols);
  socket.binaryType = 'arraybuffer';
  return new Promise((resolve, reject) => {
    // A refused connection fires 'error' then 'close'; the rejection happens on 'close'.
    socket.addEventListener('error', () => {});
    socket.addEventListener('open', () => resolve(webSocketLink(socket, options)));
    socket.addEventListener('close', (event: { code?: number }) => {
      if (socket.readyState !== OPEN)
        reject(new CapsuleError('AICC_NOT_CONNECTED', `connectWebSocket: could not connect to ${url} (close code ${event.code ?? 'unknown'})`));
    });
  });
}

/** Wraps a WebSocket that is open or opening (a server's accepted socket, for example). */
export function webSocketLink(socket: WebSocketLike, options: WebSocketLinkOptions = {}): Link {
  const max = options.maxOutboundBytes ?? DEFAULT_MAX_OUTBOUND_BYTES;
  if (!(Number.isFinite(max) && max > 0)) throw new CapsuleError('AICC_INVALID_OPTION', `webSocketLink: maxOutboundBytes must be a number > 0, got ${max}`);
  return new WebSocketLink(socket, max);
}

class WebSocketLink implements Link {
  private readonly inbox = new LinkInbox((reason) => this.close(`webSocketLink: ${reason}`));
  private closeReason: string | undefined;

  constructor(
    private readonly socket: WebSocketLike,
    private readonly maxOutboundBytes: number,
  ) {
    socket.binaryType = 'arraybuffer';
    socket.addEventListener('message', (event: { data: unknown }) => this.receive(toFrame(event.data)));
    socket.addEventListener('close', (event: { code?: number; reason?: string }) => {
      this.closeReason ??= event.reason ? `${event.reason} (code ${event.code})` : `socket closed (code ${event.code})`;
      this.inbox.closed(this.closeReason);
    });
    // An 'error' event is always followed by 'close'; the reason is reported there.
    socket.addEventListener('error', () => {});
  }

  get open(): boolean {
    return this.closeReason === undefined && (this.socket.readyState === OPEN || this.socket.readyState === CONNECTING);
  }

  get bufferedAmount(): number {
    return this.socket.bufferedAmount;
  }

  send(frame: Frame): void {
    if (typeof frame === 'object' && !(frame instanceof Uint8Array)) {
      throw new CapsuleError(
        'AICC_INVALID_OPTION',
        'webSocketLink.send: a message object cannot cross a socket; use jsonCodec or binaryCodec on WebSocket links (objectCodec is for in-process links)',
      );
    }
    if (this.socket.readyState !== OPEN || this.closeReason !== undefined) return;
    if (this.socket.bufferedAmount > this.maxOutboundBytes) {
      this.close(`webSocketLink: the peer left more than ${this.maxOutboundBytes} bytes unread; closed`);
      return;
    }
    this.socket.send(frame);
  }

  close(reason = 'closed'): void {
    if (this.closeReason !== undefined) return;
    this.closeReason = reason;
    try {
      // 1000 is a normal closure. The reason is bounded in bytes, so a socket cannot refuse it; a
      // socket that throws anyway (one already torn down) must not stop the close.
      this.socket.close(1000, closeReason(reason));
    } catch {}
    this.inbox.closed(reason);
  }

  listen(handlers: LinkHandlers): void {
    this.inbox.listen(handlers);
  }

  private receive(frame: Frame): void {
    if (this.closeReason === undefined) this.inbox.receive(frame);
  }
}

function toFrame(data: unknown): Frame {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  // Anything else (a Blob when binaryType was changed) is not a frame this project sends.
  return String(data);
}
