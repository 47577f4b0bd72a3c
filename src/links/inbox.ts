// The receiving half that socket-backed links share: frames that arrive before anyone listens are
// held (bounded) and handed over after listen() returns, never from inside it, and the close reaches
// the receiver exactly once, after every frame that came before it.

import { deliverFrame, type LinkHandlers, type Frame } from './link.js';

/** Frames kept for a receiver that has not called listen() yet. */
export const MAX_HELD_FRAMES = 1024;

export class LinkInbox {
  private handlers: LinkHandlers | undefined;
  private held: Frame[] = [];
  private closedWith: string | undefined;
  private closeDelivered = false;

  /** `overflow` is told (and should close the link) when more than MAX_HELD_FRAMES wait. */
  constructor(private readonly overflow: (reason: string) => void) {}

  listen(handlers: LinkHandlers): void {
    this.handlers = handlers;
    if (this.held.length === 0 && this.closedWith === undefined) return;
    queueMicrotask(() => {
      const held = this.held;
      this.held = [];
      for (const frame of held) if (this.handlers) deliverFrame(this.handlers, frame);
      this.deliverClose();
    });
  }

  /** A frame from the transport. */
  receive(frame: Frame): void {
    if (this.closedWith !== undefined) return;
    if (this.handlers !== undefined && this.held.length === 0) {
      deliverFrame(this.handlers, frame);
      return;
    }
    if (this.held.length >= MAX_HELD_FRAMES) this.overflow(`more than ${MAX_HELD_FRAMES} frames arrived before listen()`);
    else this.held.push(frame);
  }

  /** The link closed: the receiver hears it once, now or as soon as it listens. */
  closed(reason: string): void {
    this.closedWith ??= reason;
    if (this.held.length === 0) this.deliverClose();
  }

  private deliverClose(): void {
    if (this.closeDelivered || this.handlers === undefined || this.closedWith === undefined) return;
    this.closeDelivered = true;
    this.handlers.close(this.closedWith);
  }
}
