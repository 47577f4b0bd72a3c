// A Wire is a Link seen as AICC messages: frames are encoded and decoded with the link's codec,
// inbound frames pass the size, depth and key bounds and the schema, and whatever fails is
// reported as a typed refusal instead of thrown.

import { CapsuleError, type RefusalKind } from '../runtime/errors.js';
import { DEFAULT_INBOUND_LIMITS, type InboundLimits } from '../runtime/inbound.js';
import type { MessageChecker } from '../runtime/messageCheck.js';
import type { AiccMessage, EventMessage } from '../runtime/protocol.js';
import { jsonCodec, type Codec, type SharedEncodings } from './codec.js';
import type { Link } from './link.js';

export interface WireOptions {
  /** Default: JSON text frames. */
  codec?: Codec;
  limits?: Partial<InboundLimits>;
}

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
    if (check === 'trusted' && link.inProcess !== true) {
      throw new CapsuleError('AICC_INVALID_OPTION', 'trustBridge: only a bridge in this process (on a memory link) may go unchecked; across a socket both sides check');
    }
  }

  listen(handlers: WireHandlers): void {
    const check = this.check;
    if (check === 'trusted') {
      const objects = this.codec.name === 'object';
      this.link.listen({
        message: (frame) => {
          if (objects) return handlers.message(frame as AiccMessage);
          const decoded = this.codec.decode(frame, this.limits);
          if (!decoded.ok) return handlers.invalid({ kind: decoded.kind, message: decoded.message });
          handlers.message(decoded.value as AiccMessage);
        },
        close: (reason) => handlers.close(reason),
      });
      return;
    }
    this.link.listen({
      message: (frame) => {
        const decoded = this.codec.decode(frame, this.limits);
        if (!decoded.ok) return handlers.invalid({ kind: decoded.kind, message: decoded.message });
        const checked = check(decoded.value);
        if (!checked.ok) return handlers.invalid({ kind: checked.kind, message: checked.message, value: decoded.value });
        handlers.message(checked.value);
      },
      close: (reason) => handlers.close(reason),
    });
  }

  send(message: AiccMessage): void {
    this.link.send(this.codec.encode(message));
  }

  /** Sends an event whose payload `shared` also goes to other sessions: encoded once, where the codec can. */
  sendEvent(message: EventMessage, shared: SharedEncodings): void {
    this.link.send(this.codec.encodeEvent === undefined ? this.codec.encode(message) : this.codec.encodeEvent(message, shared));
  }

  close(reason?: string): void {
    this.link.close(reason);
  }

  get open(): boolean {
    return this.link.open;
  }
}
