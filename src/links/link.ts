// A Link is one open, two-way channel of frames: an in-memory pair, a WebSocket, a Node socket.
// It knows nothing of AICC; the Wire on top of it adds a codec and the inbound bounds.

/**
 * What a link carries: text, bytes, or — on in-process links only — an object handed across as it
 * is (the protocol's objectCodec passes messages this way). A link never looks inside.
 */
export type Frame = string | Uint8Array | object;

export interface LinkHandlers {
  message(frame: Frame): void;
  close(reason: string): void;
}

export interface Link {
  /** Queues a frame for the peer. Frames sent after close are dropped. */
  send(frame: Frame): void;
  /** Closes both directions; the close handler runs once, on both ends. */
  close(reason?: string): void;
  readonly open: boolean;
  /** Frames (or bytes) written but not yet taken by the peer: how far behind the peer is. */
  readonly bufferedAmount: number;
  /**
   * True when the peer lives in this process (both ends of createMemoryLinkPair): the one kind of
   * link on which an agent may trust its bridge's messages unchecked (AgentClientOptions.trustBridge).
   */
  readonly inProcess?: boolean;
  /**
   * Sets the receiver, replacing any earlier one. Frames arriving before the first receiver are
   * held and delivered after listen() returns, never from inside it.
   */
  listen(handlers: LinkHandlers): void;
}

/**
 * Hands a frame to a receiver. A receiver that throws must not cost the frames behind it or the
 * transport's own loop: its error is rethrown on its own, where the platform reports it.
 */
export function deliverFrame(handlers: LinkHandlers, frame: Frame): void {
  try {
    handlers.message(frame);
  } catch (error) {
    queueMicrotask(() => {
      throw error;
    });
  }
}
