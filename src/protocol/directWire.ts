// Two ends of an aicc/0.1 conversation in one process with nothing between them but a memory link:
// the wire of a trusted in-process agent (connectInProcess with objectCodec). Messages cross as the
// objects they are, with no codec, check or batch; and a capsule's broadcast events cross as the
// very objects of its event log, with no envelope or message id — the agent builds a whole `event`
// message only for a listener of whole messages, its id worked out from the stream (AgentClient).
// The memory link delivers a microtask later, in order, so neither end re-enters the other.
//
// Each end is given to its owner as its memory link, so it passes wherever a link does: the capsule
// and the AgentClient find the direct end behind it (directEndOf) and speak to it directly; a host
// that wraps the link (the Phaser plugin's frame meter) gets a plain link of message objects and the
// capsule a Wire over it, as before the direct pair.

import type { Frame, Link } from '../links/link.js';
import { createMemoryLinkPair } from '../links/memory.js';
import { checkOutbound, type InboundLimits, type Verdict } from './inbound.js';
import type { AiccMessage, EventMessage } from './messages.js';
import type { SharedEvent, Wire, WireHandlers } from './wire.js';

/** What a session or an agent speaks through: a Wire over a link, or a direct end. */
export type MessageWire = Wire | DirectEnd;

/** Each direct end, by the link it is handed out as. */
const ends = new WeakMap<Link, DirectEnd>();

/** The direct end behind `link` when it is one end's own link (unwrapped), else undefined. */
export function directEndOf(link: Link): DirectEnd | undefined {
  return ends.get(link);
}

/** Two ends on a memory link pair; `maxQueued`: messages one end may hold undelivered (the memory link's bound). */
export function createDirectPair(maxQueued?: number): [DirectEnd, DirectEnd] {
  const [linkA, linkB] = createMemoryLinkPair(maxQueued === undefined ? {} : { maxQueuedFrames: maxQueued });
  const a = new DirectEnd(linkA);
  const b = new DirectEnd(linkB);
  a.peer = b;
  b.peer = a;
  ends.set(linkA, a);
  ends.set(linkB, b);
  return [a, b];
}

export class DirectEnd {
  peer!: DirectEnd;
  private handlers: WireHandlers<DirectEnd> | undefined;

  constructor(readonly link: Link) {}

  get open(): boolean {
    return this.link.open;
  }

  /** Messages sent but not yet taken by the peer: how far behind it is. */
  get backlog(): number {
    return this.link.bufferedAmount;
  }

  /** Whether the peer takes shared events (sendShared): its owner listens for them. */
  get sharesEvents(): boolean {
    return this.peer.handlers?.sharedEvent !== undefined;
  }

  listen(handlers: WireHandlers<DirectEnd>): void {
    this.handlers = handlers;
    this.link.listen({
      message: (frame) => this.read(frame, handlers),
      close: (reason) => handlers.ended(reason, this),
    });
  }

  /**
   * What the peer sent: a shared event (it has no `type`), a message, or — from a Wire over this
   * end's link (a host wrapped it) — a batch of messages.
   */
  private read(frame: Frame, handlers: WireHandlers<DirectEnd>): void {
    if ((frame as AiccMessage).type !== undefined) {
      handlers.frame?.(this);
      handlers.message(frame as AiccMessage, this);
    } else if (Array.isArray(frame)) {
      handlers.frame?.(this);
      for (const message of frame) handlers.message(message as AiccMessage, this);
    } else handlers.sharedEvent!(frame as SharedEvent, this);
  }

  send(message: AiccMessage): void {
    this.link.send(message);
  }

  /** An event, whole: a tap saw it whole, or the peer takes no shared events. */
  sendEvent(message: EventMessage): void {
    this.link.send(message);
  }

  /** A broadcast event as the log holds it: it stands for the next message of the stream (its sequence number the peer works out). */
  sendShared(event: SharedEvent): void {
    this.link.send(event);
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
    this.link.send(frame);
  }

  /** A delivery's messages go in one drain of the link whether corked or not: nothing to hold. */
  cork(): void {}

  uncork(): void {}

  close(reason?: string): void {
    this.link.close(reason);
  }
}
