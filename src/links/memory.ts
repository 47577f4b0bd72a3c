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
  private inbox: Frame[] = [];
  /** The array the next drain's arrivals go into (made at the first drain: an idle link holds none). */
  private spare: Frame[] | undefined;
  private draining = false;
  private closedWith: string | undefined;
  private closeDelivered = false;

  constructor(private readonly maxQueued: number) {}

  get open(): boolean {
    return this.closedWith === undefined;
  }

  get bufferedAmount(): number {
    return this.peer.inbox.length;
  }

  send(frame: Frame): void {
    if (!this.open) return;
    if (this.peer.inbox.length >= this.maxQueued) {
      this.close(`memory link: peer fell ${this.maxQueued} frames behind`);
      return;
    }
    this.peer.inbox.push(frame);
    this.peer.schedule();
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
    // Deliver what was queued before close; a closed end takes nothing after its close event. Two
    // arrays take turns (what arrives while a batch is delivered goes into the other): none is made per drain.
    while (this.inbox.length > 0 && !this.closeDelivered) {
      const batch = this.inbox;
      this.inbox = this.spare ?? [];
      for (let i = 0; i < batch.length; i++) {
        if (this.closeDelivered) break;
        deliverFrame(handlers, batch[i]!);
      }
      batch.length = 0;
      this.spare = batch;
    }
    if (this.closedWith !== undefined && !this.closeDelivered) {
      this.closeDelivered = true;
      this.inbox.length = 0;
      handlers.close(this.closedWith);
    }
  }
}
