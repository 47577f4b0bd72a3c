// Two ends of an aicc/0.1 conversation in one process with nothing between them: the wire of a
// trusted in-process agent (connectInProcess with objectCodec). Messages cross as the objects they
// are, with no link, frame, codec or batch in between; and a capsule's broadcast events cross as the
// very objects of its event log, with their sequence number but no envelope or message id — the
// agent builds a whole `event` message only for a listener of whole messages (AgentClient). What
// crosses is delivered a microtask later, in order, as on a memory link, so that neither end ever
// re-enters the other while it is handling a message.
//
// Each end is given to its owner as a Link (DirectEnd.link()), so it passes wherever a link does:
// the capsule and the AgentClient find the end behind it (directEndOf) and speak to it directly; a
// host that wraps the link (the Phaser plugin's frame meter) gets a working link of objects and the
// capsule a Wire over it, as with a memory link.

import { soon } from '../base/microtaskBatch.js';
import type { Frame, Link, LinkHandlers } from '../links/link.js';
import { checkOutbound, type InboundLimits, type Verdict } from './inbound.js';
import type { AiccMessage, EventMessage } from './messages.js';
import type { SharedEvent, Wire, WireHandlers } from './wire.js';

/** What a session or an agent speaks through: a Wire over a link, or a direct end. */
export type MessageWire = Wire | DirectEnd;

/** What a direct end carries: a whole message, or a shared event (which has no `type`). */
type Carried = AiccMessage | SharedEvent;

/** Most messages one end may hold undelivered before the pair closes (as a memory link's default). */
export const DEFAULT_DIRECT_QUEUE = 10_000;

const END = Symbol('aicc.directEnd');

/** The direct end behind `link` when it is one end's own link (unwrapped), else undefined. */
export function directEndOf(link: Link): DirectEnd | undefined {
  return (link as { [END]?: DirectEnd })[END];
}

/** Two ends, each delivering to the other; `maxQueued`: messages one end may hold undelivered. */
export function createDirectPair(maxQueued = DEFAULT_DIRECT_QUEUE): [DirectEnd, DirectEnd] {
  const a = new DirectEnd(maxQueued);
  const b = new DirectEnd(maxQueued);
  a.peer = b;
  b.peer = a;
  return [a, b];
}

export class DirectEnd {
  peer!: DirectEnd;
  private handlers: WireHandlers<DirectEnd> | undefined;
  /**
   * What arrived for this end's owner, in slots [head, size), and beside each shared event its
   * sequence number (0 for a message). The arrays are kept and refilled from slot 0 once drained:
   * emptying one (length = 0) would give up its storage, to be grown again at the next delivery.
   */
  private readonly inbox: Array<Carried | undefined> = [];
  private readonly sequences: number[] = [];
  private head = 0;
  private size = 0;
  private draining = false;
  private closedWith: string | undefined;
  private closeDelivered = false;

  constructor(private readonly maxQueued: number) {}

  /** This end as a Link, for an owner that takes links (capsule.connect, AgentClient.connect). */
  link(): Link {
    return new DirectLink(this);
  }

  get open(): boolean {
    return this.closedWith === undefined;
  }

  /** Messages sent but not yet taken by the peer: how far behind it is. */
  get backlog(): number {
    return this.peer.size - this.peer.head;
  }

  /** Whether the peer takes shared events (sendShared): its owner listens for them. */
  get sharesEvents(): boolean {
    return this.peer.handlers?.sharedEvent !== undefined;
  }

  listen(handlers: WireHandlers<DirectEnd>): void {
    this.handlers = handlers;
    this.schedule();
  }

  send(message: AiccMessage): void {
    this.peer.take(message, 0);
  }

  /** An event: whole, as its envelope (a tap saw it whole, or the peer takes no shared events). */
  sendEvent(message: EventMessage): void {
    this.peer.take(message, 0);
  }

  /** A broadcast event as the log holds it, and the sequence number its message would have had. */
  sendShared(event: SharedEvent, sequence: number): void {
    this.peer.take(event, sequence);
  }

  /**
   * `message` as it would cross, or the refusal the peer's wire would give it when it reads with
   * `peerBounds`: its depth and hostile keys (an object has no size in bytes).
   */
  encodeWithin(message: AiccMessage, peerBounds: InboundLimits): Verdict<Frame> {
    return checkOutbound(message, message, peerBounds) ?? { ok: true, value: message };
  }

  /** Sends what encodeWithin() gave. */
  sendFrame(frame: Frame): void {
    this.peer.take(frame as AiccMessage, 0);
  }

  /** A delivery's messages go in one drain whether corked or not: nothing to hold. */
  cork(): void {}

  uncork(): void {}

  close(reason = 'closed'): void {
    if (!this.open) return;
    this.closedWith = reason;
    this.peer.closedWith ??= reason;
    this.schedule();
    this.peer.schedule();
  }

  private take(item: Carried, sequence: number): void {
    if (!this.peer.open) return;
    if (this.size - this.head >= this.maxQueued) {
      this.peer.close(`direct link: peer fell ${this.maxQueued} messages behind`);
      return;
    }
    this.inbox[this.size] = item;
    this.sequences[this.size] = sequence;
    this.size++;
    this.schedule();
  }

  private schedule(): void {
    if (this.draining || this.handlers === undefined) return;
    this.draining = true;
    soon(this);
  }

  /** @internal The drain (a soon() task): delivers what waits, then the close. */
  run(): void {
    this.draining = false;
    const handlers = this.handlers;
    if (handlers === undefined) return;
    if (this.head < this.size && !this.closeDelivered) handlers.frame?.(this);
    // What arrives while the inbox is delivered goes behind it and is delivered in the same drain.
    while (this.head < this.size && !this.closeDelivered) {
      const at = this.head++;
      const item = this.inbox[at]!;
      this.inbox[at] = undefined; // held no longer than delivered
      deliver(handlers, this, item, this.sequences[at]!);
    }
    if (this.head === this.size) {
      // Kept once two messages have waited together (the slots used so far are the array's length);
      // a link that has only ever held one at a time (an idle session's) keeps none.
      if (this.inbox.length === 1) this.inbox.length = this.sequences.length = 0;
      this.head = this.size = 0;
    }
    if (this.closedWith !== undefined && !this.closeDelivered) {
      this.closeDelivered = true;
      this.inbox.length = this.sequences.length = 0;
      this.head = this.size = 0;
      handlers.ended(this.closedWith, this);
    }
  }
}

/**
 * Hands one item to its owner. An owner that throws must not cost the items behind it: its error is
 * rethrown on its own, where the platform reports it (as deliverFrame does for links).
 */
function deliver(handlers: WireHandlers<DirectEnd>, end: DirectEnd, item: Carried, sequence: number): void {
  try {
    if ((item as AiccMessage).type === undefined) handlers.sharedEvent!(item as SharedEvent, sequence, end);
    else handlers.message(item as AiccMessage, end);
  } catch (error) {
    queueMicrotask(() => {
      throw error;
    });
  }
}

/** A direct end as a Link of message objects: a host wrapping it gets one, a batch being several messages. */
class DirectLink implements Link {
  readonly inProcess = true;
  readonly [END]: DirectEnd;

  constructor(end: DirectEnd) {
    this[END] = end;
  }

  get open(): boolean {
    return this[END].open;
  }

  get bufferedAmount(): number {
    return this[END].backlog;
  }

  send(frame: Frame): void {
    if (Array.isArray(frame)) for (const message of frame) this[END].send(message as AiccMessage);
    else this[END].send(frame as AiccMessage);
  }

  close(reason?: string): void {
    this[END].close(reason);
  }

  listen(handlers: LinkHandlers): void {
    this[END].listen({
      message: (message) => handlers.message(message),
      invalid: () => {},
      ended: (reason) => handlers.close(reason),
    });
  }
}
