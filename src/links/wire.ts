// A Wire is a Link seen as AICC messages: frames are encoded and decoded with the link's codec,
// inbound frames pass the size, depth and key bounds and the schema, and whatever fails is
// reported as a typed refusal instead of thrown.

import type { RefusalKind } from '../runtime/errors.js';
import { DEFAULT_INBOUND_LIMITS, type InboundLimits } from '../runtime/inbound.js';
import type { MessageChecker } from '../runtime/messageCheck.js';
import type { AiccMessage } from '../runtime/protocol.js';
import { jsonCodec, type Codec } from './codec.js';
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
    /** Checks inbound messages as ones the other end sends (checkAgentMessage or checkBridgeMessage). */
    private readonly check: MessageChecker,
    options: WireOptions = {},
  ) {
    this.codec = options.codec ?? jsonCodec;
    this.limits = { ...DEFAULT_INBOUND_LIMITS, ...options.limits };
  }

  listen(handlers: WireHandlers): void {
    this.link.listen({
      message: (frame) => {
        const decoded = this.codec.decode(frame, this.limits);
        if (!decoded.ok) return handlers.invalid({ kind: decoded.kind, message: decoded.message });
        const checked = this.check(decoded.value);
        if (!checked.ok) return handlers.invalid({ kind: checked.kind, message: checked.message, value: decoded.value });
        handlers.message(checked.value);
      },
      close: (reason) => handlers.close(reason),
    });
  }

  send(message: AiccMessage): void {
    this.link.send(this.codec.encode(message));
  }

  close(reason?: string): void {
    this.link.close(reason);
  }

  get open(): boolean {
    return this.link.open;
  }
}
