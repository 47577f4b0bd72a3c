// A Wire is a Link seen as AICC messages: frames are encoded and decoded with the link's codec,
// inbound frames pass the size, depth and key bounds and the schema, and whatever fails is
// reported as a typed refusal instead of thrown.

import { CapsuleError } from '../base/errors.js';
import type { RefusalKind } from './refusals.js';
import { callOf, checkOutbound, DEFAULT_INBOUND_LIMITS, type FrameCall, type InboundLimits, type Verdict } from './inbound.js';
import type { MessageChecker } from './messageCheck.js';
import { newIdMemo, type IdMemo } from './messageShapes.js';
import type { AiccMessage, EventMessage } from './messages.js';
import { jsonCodec, type Codec, type Frame, type SharedEncodings } from './codec.js';
import type { Link, LinkHandlers } from '../links/link.js';

export interface WireOptions {
  /** Default: JSON text frames. */
  codec?: Codec;
  limits?: Partial<InboundLimits>;
  /**
   * How messages share frames, where both ends agreed: `batchedFraming` (a delivery of k events is
   * one frame; ./batchedFraming.ts). Default: one message a frame.
   */
  framing?: Framing;
}

/** Several messages to a frame, as both ends of a link agreed. */
export interface Framing {
  readonly name: string;
  /** The codecs it frames for, by name. */
  readonly codecs: readonly string[];
  /** The messages a decoded frame holds, or why it is refused. */
  split(value: unknown): readonly unknown[] | string;
  /** The encoded messages of one delivery, as frames to send. */
  join(frames: Frame[]): Frame[];
}

export interface InvalidFrame {
  kind: RefusalKind;
  message: string;
  /** The decoded value when decoding got that far. */
  value?: unknown;
  /**
   * The call the frame is about, so that its refusal ends that call: read from the decoded value's
   * top level, or, for a frame that could not be decoded, peeked from its start (Codec.peekCall).
   */
  call?: FrameCall | undefined;
}

/**
 * The bounds a Wire with `framing` decodes each frame with: a batch nests its messages one level
 * deeper than alone, so its frames may nest one level more. Both ends read the other's bounds here.
 */
export function frameBounds(limits: InboundLimits, framing: Framing | undefined): InboundLimits {
  return framing === undefined ? limits : { ...limits, maxDepth: limits.maxDepth + 1 };
}

/** A broadcast event as a capsule's event log holds it: shared by every session it reaches, never changed. */
export type SharedEvent = Pick<EventMessage, 'topic' | 'payload' | 'meta'>;

/** `W`: the wire that calls them (a Wire, or an in-process agent's DirectEnd: directWire.ts). */
export interface WireHandlers<W = Wire> {
  /** A frame arrived (before the messages it holds): a sign of life, once a frame rather than once a message. */
  frame?(wire: W): void;
  message(message: AiccMessage, wire: W): void;
  invalid(problem: InvalidFrame, wire: W): void;
  /** The link closed. */
  ended(reason: string, wire: W): void;
  /**
   * A broadcast event as the capsule's log holds it, standing for the next message of the stream
   * (no envelope or id): only on a direct wire (directWire.ts), only to an owner that listens for it.
   */
  sharedEvent?(event: SharedEvent, wire: W): void;
}

export class Wire {
  readonly codec: Codec;
  readonly limits: InboundLimits;
  readonly framing: Framing | undefined;
  /** The bounds a frame is decoded with: a batch nests its messages one level deeper than alone. */
  private readonly frameLimits: InboundLimits;
  /** What the message check remembers of this link's ids (messageShapes.ts, IdMemo). */
  private memo: IdMemo | undefined;
  /** Frames held between cork() and uncork(), to go out together (with a framing only). */
  private held: Frame[] | undefined;

  constructor(
    readonly link: Link,
    /**
     * Checks inbound messages as ones the other end sends (checkAgentMessage or checkBridgeMessage).
     * `'trusted'`: no message check, for a peer in this process on a memory link — an agent's bridge
     * (trustBridge), or a bridge's AgentClient (connectInProcess), which refuses at its own side what
     * the check would: what arrives was built from checked parts (with objectCodec, the very
     * objects). Frames are still decoded. Refused on any link that is not in-process.
     */
    private readonly check: MessageChecker | 'trusted',
    options: WireOptions = {},
  ) {
    this.codec = options.codec ?? jsonCodec;
    // Shared when not changed: a capsule holds a Wire per session.
    this.limits = options.limits === undefined ? DEFAULT_INBOUND_LIMITS : { ...DEFAULT_INBOUND_LIMITS, ...options.limits };
    this.framing = options.framing;
    this.frameLimits = frameBounds(this.limits, this.framing);
    if (this.framing !== undefined && !this.framing.codecs.includes(this.codec.name)) {
      throw new CapsuleError(
        'AICC_INVALID_OPTION',
        `framing '${this.framing.name}' frames ${this.framing.codecs.join(' or ')} frames: use such a codec, not ${this.codec.name}`,
      );
    }
    if (check === 'trusted' && link.inProcess !== true) {
      throw new CapsuleError(
        'AICC_INVALID_OPTION',
        'a trusted wire: only a peer in this process (on a memory link) may go unchecked (trustBridge, connectInProcess); across a socket both sides check',
      );
    }
  }

  /** A Wire takes no shared events (DirectEnd.sendShared): every event goes out whole. (A getter: no field in each session's Wire.) */
  get sharesEvents(): false {
    return false;
  }

  listen(handlers: WireHandlers): void {
    // One small object rather than closures: a capsule holds a listening Wire per session.
    this.link.listen(new WireReader(this, handlers));
  }

  /** Decodes one inbound frame and hands what it holds to `handlers` (the Wire's own link listener calls it). */
  read(frame: Frame, handlers: WireHandlers): void {
    handlers.frame?.(this);
    const check = this.check;
    const framing = this.framing;
    if (check === 'trusted') {
      // What the bridge in this process built: decoded only (object frames are the messages themselves).
      let value: unknown = frame;
      if (this.codec.name !== 'object') {
        const decoded = this.codec.decodeTrusted(frame);
        if (!decoded.ok) return handlers.invalid({ kind: decoded.kind, message: decoded.message, call: this.codec.peekCall?.(frame) }, this);
        value = decoded.value;
      }
      if (framing !== undefined && Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) handlers.message(value[i] as AiccMessage, this);
      } else handlers.message(value as AiccMessage, this);
      return;
    }
    const decoded = this.codec.decode(frame, this.frameLimits);
    if (!decoded.ok) return handlers.invalid({ kind: decoded.kind, message: decoded.message, call: this.codec.peekCall?.(frame) }, this);
    // Made at the first checked message: a link that never speaks holds none.
    const memo = (this.memo ??= newIdMemo());
    if (framing === undefined || !Array.isArray(decoded.value)) return checkOne(this, check, decoded.value, memo, handlers);
    const values = framing.split(decoded.value);
    if (typeof values === 'string') return handlers.invalid({ kind: 'malformed_frame', message: values }, this);
    for (const value of values) checkOne(this, check, value, memo, handlers);
  }

  send(message: AiccMessage): void {
    this.out(this.codec.encode(message));
  }

  /**
   * `message` as this Wire's frame, or the refusal the other end would give it at its first gate when
   * it reads with `peerBounds` (its limits as frameBounds makes them): too large, too deep, a hostile
   * key — or a message the codec cannot encode. Send the frame with sendFrame().
   */
  encodeWithin(message: AiccMessage, peerBounds: InboundLimits): Verdict<Frame> {
    let frame: Frame;
    try {
      frame = this.codec.encode(message);
    } catch (error) {
      return { ok: false, kind: 'malformed_frame', message: `${this.codec.name} codec cannot encode it: ${(error as Error).message}` };
    }
    return checkOutbound(frame, message, peerBounds) ?? { ok: true, value: frame };
  }

  /** Sends a frame encodeWithin() made. */
  sendFrame(frame: Frame): void {
    this.out(frame);
  }

  /** Sends an event whose payload `shared` also goes to other sessions: encoded once, where the codec can. */
  sendEvent(message: EventMessage, shared: SharedEncodings): void {
    this.out(this.codec.encodeEvent === undefined ? this.codec.encode(message) : this.codec.encodeEvent(message, shared));
  }

  /** With a framing, holds what is sent until uncork(), to go out in as few frames as it allows (a delivery). */
  cork(): void {
    if (this.framing !== undefined) this.held ??= [];
  }

  uncork(): void {
    const held = this.held;
    this.held = undefined;
    if (held !== undefined && held.length > 0) for (const frame of this.framing!.join(held)) this.link.send(frame);
  }

  private out(frame: Frame): void {
    if (this.held === undefined) this.link.send(frame);
    else this.held.push(frame);
  }

  close(reason?: string): void {
    this.link.close(reason);
  }

  get open(): boolean {
    return this.link.open;
  }

  /** What the link holds unsent: how far behind the peer is. */
  get backlog(): number {
    return this.link.bufferedAmount;
  }
}

/** One decoded message, checked: handed on, or refused as invalid. */
function checkOne(wire: Wire, check: MessageChecker, value: unknown, memo: IdMemo, handlers: WireHandlers): void {
  const checked = check(value, memo);
  if (!checked.ok) return handlers.invalid({ kind: checked.kind, message: checked.message, value, call: callOf(value) }, wire);
  handlers.message(checked.value, wire);
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
    this.handlers.ended(reason, this.wire);
  }
}
