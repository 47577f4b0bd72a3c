// One accepted browser WebSocket, as both modes see it: text records in and out, a close with a
// code and a reason, and the facts for the connection's single log line.

import { WebSocket } from 'ws';
import { closeReason } from '../../links/closeReason.js';
import { CLOSE } from './access.js';

export interface BrowserHandlers {
  /** One WebSocket message: a string for a text frame, a Buffer for a binary one. */
  frame(data: string | Buffer): void;
  close(code: number, reason: string): void;
  /**
   * ws is about to close the connection itself over a message it will not take: 1009 (over the
   * gateway's WebSocket limit) or 1007 (text that is not UTF-8). Runs before ws's close frame
   * leaves — the last moment a record can still reach the page — and returns the close reason to
   * give, where ws would give none.
   */
  refused?(code: number): string;
}

/** The codes ws closes with on its own over a broken message that a page should hear about. */
const REFUSED_MESSAGE_CODES: ReadonlySet<number> = new Set([CLOSE.tooBig, 1007]);

/**
 * ws's WebSocket with one hook. ws closes a connection itself when a message breaks its rules, and
 * sends its close frame before it emits 'error' — after which nothing can be sent. Every close
 * passes through close(), so the hook sees ws's own one in time (the gateway's WebSocketServer is
 * made with this class).
 */
export class GatewayWebSocket extends WebSocket {
  /** Set by BrowserConnection: runs before each close; returns the reason to close with instead. */
  beforeClose: ((code: number | undefined) => string | undefined) | undefined;

  override close(code?: number, data?: string | Buffer): void {
    const reason = this.beforeClose?.(code);
    super.close(code, reason ?? data);
  }
}

/** The status ws closes with for each error of a broken frame (ws/lib/receiver.js); the others are 1002. */
const WS_ERROR_CLOSE: Readonly<Record<string, number>> = {
  WS_ERR_UNSUPPORTED_MESSAGE_LENGTH: CLOSE.tooBig,
  WS_ERR_UNSUPPORTED_DATA_PAYLOAD_LENGTH: CLOSE.tooBig,
  WS_ERR_INVALID_UTF8: 1007,
  WS_ERR_TOO_MANY_BUFFERED_PARTS: 1008,
};

/** Bytes queued toward a browser beyond which it is taken as not reading, and dropped. */
export const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

export class BrowserConnection {
  /** Records received and sent, for the log line. */
  recordsIn = 0;
  recordsOut = 0;
  /** What this connection is for ("relay to agent X", "pi host"), for the log line. */
  role = 'unassigned';
  private closing: { code: number; reason: string } | undefined;
  private handlers: BrowserHandlers | undefined;

  constructor(
    readonly socket: WebSocket,
    readonly number: number,
  ) {
    // Listened for from the start: an 'error' with no listener would crash the gateway, and a
    // refused socket (never listen()ed) can still get a bad frame before it is closed. ws has then
    // already closed with a status (1009 for a message over maxPayload, 1007 for text that is not
    // UTF-8) but its 'close' event reports 1006, so the status is kept here, for the log.
    socket.on('error', (error: Error & { code?: string }) => {
      this.closing ??= { code: WS_ERROR_CLOSE[error.code ?? ''] ?? 1002, reason: error.message };
    });
    if (socket instanceof GatewayWebSocket) {
      socket.beforeClose = (code) => {
        // Our own close() set `closing` first; the gateway's shutdown (1001) is not a refusal.
        const refused = this.handlers?.refused;
        if (this.closing !== undefined || refused === undefined || code === undefined || !REFUSED_MESSAGE_CODES.has(code)) return undefined;
        const reason = closeReason(refused(code));
        this.closing = { code, reason };
        return reason;
      };
    }
  }

  /** The code and reason this side closed with, if it did. */
  get closeCode(): number | undefined {
    return this.closing?.code;
  }

  get closeReason(): string | undefined {
    return this.closing?.reason;
  }

  get open(): boolean {
    return this.closing === undefined && this.socket.readyState === this.socket.OPEN;
  }

  listen(handlers: BrowserHandlers): void {
    this.handlers = handlers;
    this.socket.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
      if (this.closing !== undefined) return;
      this.recordsIn++;
      const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      handlers.frame(isBinary ? bytes : bytes.toString('utf8'));
    });
    this.socket.on('close', (code: number, reason: Buffer) => {
      // Our own close() recorded why; otherwise the browser (or ws, e.g. 1009) said why.
      const own = this.closing;
      handlers.close(own?.code ?? code, own?.reason ?? (reason.length > 0 ? reason.toString('utf8') : closeName(code)));
    });
  }

  /**
   * Sends one record: an object is serialized, a string is sent as is (already one JSON record).
   * `written` runs once the frame has left for the network (not if it is dropped): a relay that
   * paused its source resumes from there.
   */
  send(record: object | string, written?: () => void): void {
    if (!this.open) return;
    if (this.socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      this.close(CLOSE.tryAgainLater, `the browser did not read ${MAX_BUFFERED_BYTES} queued bytes; reconnect`);
      return;
    }
    this.recordsOut++;
    const text = typeof record === 'string' ? record : JSON.stringify(record);
    if (written === undefined) this.socket.send(text);
    else this.socket.send(text, (error) => (error === undefined || error === null ? written() : undefined));
  }

  close(code: number, reason: string): void {
    if (this.closing !== undefined) return;
    this.closing = { code, reason };
    this.socket.close(code, closeReason(reason));
  }
}

function closeName(code: number): string {
  if (code === CLOSE.tooBig) return 'frame too large';
  if (code === 1001) return 'browser went away';
  if (code === 1005 || code === CLOSE.normal) return 'closed by the browser';
  if (code === 1006) return 'connection dropped';
  return `closed with code ${code}`;
}
