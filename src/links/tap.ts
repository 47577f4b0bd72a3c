import type { Frame } from './codec.js';
import type { Link } from './link.js';

/** The same link, with every inbound frame shown to `tap` before its receiver gets it (inspectors, tests). */
export function tapLink(link: Link, tap: (frame: Frame) => void): Link {
  return {
    send: (frame) => link.send(frame),
    close: (reason) => link.close(reason),
    get open() {
      return link.open;
    },
    get bufferedAmount() {
      return link.bufferedAmount;
    },
    listen: (handlers) =>
      link.listen({
        message: (frame) => {
          tap(frame);
          handlers.message(frame);
        },
        close: (reason) => handlers.close(reason),
      }),
  };
}
