import { soon } from '../base/microtaskBatch.js';
import { deliverFrame, type Link, type LinkHandlers, type Frame } from './link.js';

export interface MemoryLinkOptions {
  /** Largest number of frames one end may hold undelivered before the link closes. Default 10,000. */
  maxQueuedFrames?: number;
}

/**
 * Two linked ends in one process. Frames are delivered asynchronously (a microtask), in order, as a
 * network would, so neither side re-enters the other while it is handling a message.
 */
export function createMemoryLinkPair(options: MemoryLinkOptions = {}): [Link, Link] {
  const maxQueued = options.maxQueuedFrames ?? 10_000;
  const a = new MemoryEnd(maxQueued);
  const b = new MemoryEnd(maxQueued);
  a.peer = b;
  b.peer = a;
  return [a, b];
}

class MemoryEnd implements Link {
  peer!: MemoryEnd;
  readonly inProcess = true;
  private handlers: LinkHandlers | undefined;
  /**
   * Frames waiting, in slots [head, size). The array is kept and refilled from slot 0 once drained:
   * emptying it (length = 0) would give up its storage, to be grown again at the next delivery.
   */
  private readonly inbox: Array<Frame | undefined> = [];
  private head = 0;
  private size = 0;
  private draining = false;
  private closedWith: string | undefined;
  private closeDelivered = false;

  constructor(private readonly maxQueued: number) {}

  get open(): boolean {
    return this.closedWith === undefined;
  }

  get bufferedAmount(): number {
    return this.peer.size - this.peer.head;
  }

  send(frame: Frame): void {
    if (!this.open) return;
    const peer = this.peer;
    if (peer.size - peer.head >= this.maxQueued) {
      this.close(`memory link: peer fell ${this.maxQueued} frames behind`);
      return;
    }
    peer.inbox[peer.size++] = frame;
    peer.schedule();
  }

  close(reason = 'closed'): void {
    if (!this.open) return;
    this.closedWith = reason;
    this.peer.closedWith ??= reason;
    this.schedule();
    this.peer.schedule();
  }

  listen(handlers: LinkHandlers): void {
    this.handlers = handlers;
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
    // Deliver what was queued before close; a closed end takes nothing after its close event. What
    // arrives while the inbox is delivered goes behind it and is delivered in the same drain.
    while (this.head < this.size && !this.closeDelivered) {
      const at = this.head++;
      const frame = this.inbox[at]!;
      this.inbox[at] = undefined; // held no longer than delivered
      deliverFrame(handlers, frame);
    }
    if (this.head === this.size) {
      // Kept once two messages have waited together (the slots used so far are the array's length);
      // a link that has only ever held one at a time (an idle session's) keeps none.
      if (this.inbox.length === 1) this.inbox.length = 0;
      this.head = this.size = 0;
    }
    if (this.closedWith !== undefined && !this.closeDelivered) {
      this.closeDelivered = true;
      this.inbox.length = 0;
      this.head = this.size = 0;
      handlers.close(this.closedWith);
    }
  }
}
