import type { Frame, Link } from './link.js';

/** How wrapLink passes a link's traffic on: each wrapper gets the frame and the step it wraps. */
export interface LinkWrappers {
  /** Around each send; call `send(frame)` to pass it on. */
  send?: (frame: Frame, send: (frame: Frame) => void) => void;
  /** Around each inbound frame; call `deliver(frame)` to hand it to the receiver. */
  message?: (frame: Frame, deliver: (frame: Frame) => void) => void;
}

/** The same link, its sends and inbound frames passed through `wrappers` (meters, taps, tests). */
export function wrapLink(link: Link, wrappers: LinkWrappers): Link {
  const send = (frame: Frame): void => link.send(frame);
  return {
    send: wrappers.send === undefined ? send : (frame) => wrappers.send!(frame, send),
    close: (reason) => link.close(reason),
    get open() {
      return link.open;
    },
    get bufferedAmount() {
      return link.bufferedAmount;
    },
    get inProcess() {
      return link.inProcess === true;
    },
    listen: (handlers) => {
      const deliver = (frame: Frame): void => handlers.message(frame);
      link.listen({
        message: wrappers.message === undefined ? deliver : (frame) => wrappers.message!(frame, deliver),
        close: (reason) => handlers.close(reason),
      });
    },
  };
}

/** The same link, with every inbound frame shown to `tap` before its receiver gets it (inspectors, tests). */
export function tapLink(link: Link, tap: (frame: Frame) => void): Link {
  return wrapLink(link, {
    message: (frame, deliver) => {
      tap(frame);
      deliver(frame);
    },
  });
}
