// A Wire is a Link seen as AICC messages: frames are encoded and decoded with the link's codec,
// inbound frames pass the size, depth and key bounds and the schema, and whatever fails is
// reported as a typed refusal instead of thrown.

import { CapsuleError, type RefusalKind } from '../runtime/errors.js';
import { DEFAULT_INBOUND_LIMITS, type InboundLimits } from '../runtime/inbound.js';
import type { MessageChecker } from '../runtime/messageCheck.js';
import type { AiccMessage, EventMessage } from '../runtime/protocol.js';
import { jsonCodec, type Codec, type Frame, type SharedEncodings } from './codec.js';
import type { Link, LinkHandlers } from './link.js';

export interface WireOptions {
  /** Default: JSON text frames. */
  codec?: Codec;
  limits?: Partial<InboundLimits>;
  /**
   * `'batched'`: a frame may carry several aicc/0.1 messages, as a JSON array of them, and a
   * delivery of k events goes out as one frame. Only where both ends agreed — over a WebSocket,
   * by the subprotocol BATCHED_SUBPROTOCOL — and only with jsonCodec. Every message inside is a
   * valid aicc/0.1 message, checked as if it came alone. Default `'single'`: one message a frame.
   */
  framing?: 'single' | 'batched';
}

/** The WebSocket subprotocol by which both ends agree on batched framing (WireOptions.framing). */
export const BATCHED_SUBPROTOCOL = 'aicc.batched.v1';
/** Most messages one batched frame carries; a larger batch goes out as several frames. */
export const MAX_BATCH_MESSAGES = 512;
/** Most characters of JSON one batched frame carries (under every side's default frame bound). */
export const MAX_BATCH_CHARS = 64 * 1024;

export interface InvalidFrame {
  kind: RefusalKind;
  message: string;
  /** The decoded value when decoding got that far (for a `call_id` to answer). */
  value?: unknown;
}

export interface WireHandlers {
  message(message: AiccMessage): void;
  invalid(problem: InvalidFrame): void;
  close(reason: string): void;
}

export class Wire {
  readonly codec: Codec;
  readonly limits: InboundLimits;
  readonly batched: boolean;
  /** Frames held between cork() and uncork(), to go out as one (batched framing only). */
  private held: string[] | undefined;
  private heldChars = 0;

  constructor(
    readonly link: Link,
    /**
     * Checks inbound messages as ones the other end sends (checkAgentMessage or checkBridgeMessage).
     * `'trusted'`: no message check, for an agent whose bridge is in this process on a memory link —
     * what arrives is what that bridge built from checked parts (with objectCodec, the very
     * objects). Frames are still decoded. Refused on any link that is not in-process.
     */
    private readonly check: MessageChecker | 'trusted',
    options: WireOptions = {},
  ) {
    this.codec = options.codec ?? jsonCodec;
    // Shared when not changed: a capsule holds a Wire per session.
    this.limits = options.limits === undefined ? DEFAULT_INBOUND_LIMITS : { ...DEFAULT_INBOUND_LIMITS, ...options.limits };
    this.batched = options.framing === 'batched';
    if (options.framing !== undefined && options.framing !== 'single' && options.framing !== 'batched') {
      throw new CapsuleError('AICC_INVALID_OPTION', `framing must be 'single' or 'batched', got ${JSON.stringify(options.framing)}`);
    }
    if (this.batched && this.codec.name !== 'json') {
      throw new CapsuleError('AICC_INVALID_OPTION', `framing 'batched' carries JSON text: use jsonCodec, not ${this.codec.name}`);
    }
    if (check === 'trusted' && link.inProcess !== true) {
      throw new CapsuleError('AICC_INVALID_OPTION', 'trustBridge: only a bridge in this process (on a memory link) may go unchecked; across a socket both sides check');
    }
  }

  listen(handlers: WireHandlers): void {
    // One small object rather than closures: a capsule holds a listening Wire per session.
    this.link.listen(new WireReader(this, handlers));
  }

  /** Decodes one inbound frame and hands what it holds to `handlers` (the Wire's own link listener calls it). */
  read(frame: Frame, handlers: WireHandlers): void {
    const check = this.check;
    if (check === 'trusted') {
      if (this.codec.name === 'object') return handlers.message(frame as AiccMessage);
      const decoded = this.codec.decode(frame, this.limits);
      if (!decoded.ok) return handlers.invalid({ kind: decoded.kind, message: decoded.message });
      return handlers.message(decoded.value as AiccMessage);
    }
    const decoded = this.codec.decode(frame, this.batched ? { ...this.limits, maxDepth: this.limits.maxDepth + 1 } : this.limits);
    if (!decoded.ok) return handlers.invalid({ kind: decoded.kind, message: decoded.message });
    if (!this.batched || !Array.isArray(decoded.value)) return checkOne(check, decoded.value, handlers);
    const batch = decoded.value;
    if (batch.length === 0 || batch.length > MAX_BATCH_MESSAGES) {
      return handlers.invalid({ kind: 'malformed_frame', message: `a batched frame carries 1 to ${MAX_BATCH_MESSAGES} messages, not ${batch.length}` });
    }
    for (const value of batch) checkOne(check, value, handlers);
  }

  send(message: AiccMessage): void {
    this.out(this.codec.encode(message));
  }

  /** Sends an event whose payload `shared` also goes to other sessions: encoded once, where the codec can. */
  sendEvent(message: EventMessage, shared: SharedEncodings): void {
    this.out(this.codec.encodeEvent === undefined ? this.codec.encode(message) : this.codec.encodeEvent(message, shared));
  }

  /** With batched framing, holds what is sent until uncork(), to go out as one frame (a delivery). */
  cork(): void {
    if (this.batched) this.held ??= [];
  }

  uncork(): void {
    const held = this.held;
    this.held = undefined;
    this.heldChars = 0;
    if (held !== undefined && held.length > 0) this.flush(held);
  }

  private out(frame: Frame): void {
    const held = this.held;
    if (held === undefined) return this.link.send(frame);
    const text = frame as string; // batched framing is JSON text
    if (held.length > 0 && (held.length >= MAX_BATCH_MESSAGES || this.heldChars + text.length > MAX_BATCH_CHARS)) {
      this.flush(held.splice(0));
      this.heldChars = 0;
    }
    held.push(text);
    this.heldChars += text.length + 1;
  }

  private flush(frames: string[]): void {
    this.link.send(frames.length === 1 ? frames[0]! : `[${frames.join(',')}]`);
  }

  close(reason?: string): void {
    this.link.close(reason);
  }

  get open(): boolean {
    return this.link.open;
  }
}

/** One decoded message, checked: handed on, or refused as invalid. */
function checkOne(check: MessageChecker, value: unknown, handlers: WireHandlers): void {
  const checked = check(value);
  if (!checked.ok) return handlers.invalid({ kind: checked.kind, message: checked.message, value });
  handlers.message(checked.value);
}

/** What a Wire gives its link to listen with. */
class WireReader implements LinkHandlers {
  constructor(
    private readonly wire: Wire,
    private readonly handlers: WireHandlers,
  ) {}

  message(frame: Frame): void {
    this.wire.read(frame, this.handlers);
  }

  close(reason: string): void {
    this.handlers.close(reason);
  }
}
