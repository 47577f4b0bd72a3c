// The suite's agent: a raw aicc/0.1 peer on one link. It sends anything — messages, broken frames —
// and keeps every message the bridge sends, each checked against the schema as it arrives.

import { jsonCodec, type Codec, type Frame } from '../protocol/codec.js';
import type { Link } from '../links/link.js';
import { randomUuid } from '../protocol/ids.js';
import { checkBridgeMessage } from '../protocol/messageCheck.js';
import { PROTOCOL, type AiccMessage } from '../protocol/messages.js';

/** Bridge frames are read generously: the suite checks the bridge, not its own limits. */
const READ_LIMITS = { maxFrameBytes: 64 * 1024 * 1024, maxDepth: 256 };

/** A line of the transcript shown with a failing check. */
export interface Exchange {
  dir: 'sent' | 'received';
  text: string;
}

export class RawAgent {
  readonly received: AiccMessage[] = [];
  /** Frames from the bridge that were not valid aicc/0.1 bridge messages, with why. */
  readonly invalid: string[] = [];
  readonly transcript: Exchange[] = [];
  closedWith: string | undefined;
  sessionId = '';
  private readonly watchers = new Set<() => void>();

  constructor(
    readonly link: Link,
    readonly codec: Codec = jsonCodec,
    /** How long an expected answer may take, in ms of wall time. */
    readonly waitMs = 2000,
  ) {
    link.listen({
      message: (frame) => this.take(frame),
      close: (reason) => {
        this.closedWith = reason;
        this.wake();
      },
    });
  }

  private take(frame: Frame): void {
    const decoded = this.codec.decode(frame, READ_LIMITS);
    const checked = decoded.ok ? checkBridgeMessage(decoded.value) : decoded;
    if (!checked.ok) {
      this.invalid.push(checked.message);
      this.note('received', `(invalid: ${checked.message}) ${describe(frame)}`);
    } else {
      const message = checked.value;
      if (message.type === 'session_init' && this.sessionId === '') this.sessionId = message.session_id;
      this.received.push(message);
      this.note('received', describe(message));
    }
    this.wake();
  }

  /** Sends a message: the envelope (protocol, this session, a fresh message_id) filled in unless given. */
  send(body: Record<string, unknown>): void {
    const message = { protocol: PROTOCOL, session_id: this.sessionId, message_id: randomUuid(), ...body };
    this.note('sent', describe(message));
    let frame: Frame;
    try {
      frame = this.codec.encode(message as AiccMessage);
    } catch {
      // A codec with a fixed layout (binary) cannot carry a message that breaks the schema: it goes
      // as JSON text, which such a link refuses just the same.
      frame = JSON.stringify(message);
    }
    this.link.send(frame);
  }

  /** Sends a frame as it is (text or bytes): how broken input is sent. */
  sendFrame(frame: string | Uint8Array): void {
    this.note('sent', describe(frame));
    this.link.send(frame);
  }

  /**
   * The first message from `from` on that matches, once it has arrived; undefined if none has within
   * `ms` of wall time (default waitMs), or the link closed first.
   */
  async next(from: number, match: (message: AiccMessage) => boolean, ms = this.waitMs): Promise<AiccMessage | undefined> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.received.slice(from).find(match);
      if (found !== undefined) return found;
      if (this.closedWith !== undefined || Date.now() >= deadline) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.max(1, deadline - Date.now()));
        function done(): void {
          clearTimeout(timer);
          resolve();
        }
        this.watchers.add(done);
      });
    }
  }

  /**
   * Everything the bridge sent in answer to what came before: a manifest_request goes last, and the
   * bridge answers in order, so once its manifest is here everything sent before it has its answers.
   */
  async fence(ms = this.waitMs): Promise<boolean> {
    const from = this.received.length;
    this.send({ type: 'manifest_request' });
    return (await this.next(from, (m) => m.type === 'heartbeat' && m.manifest_update !== undefined, ms)) !== undefined;
  }

  close(): void {
    this.link.close('conformance check done');
  }

  private note(dir: Exchange['dir'], text: string): void {
    this.transcript.push({ dir, text });
    if (this.transcript.length > 40) this.transcript.splice(0, 20);
  }

  private wake(): void {
    const watchers = [...this.watchers];
    this.watchers.clear();
    for (const watcher of watchers) watcher();
  }
}

function describe(value: unknown): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (value instanceof Uint8Array) text = `<${value.byteLength} bytes>`;
  else text = JSON.stringify(value) ?? String(value);
  return text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text;
}
