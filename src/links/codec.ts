// How messages become frames and back. A link carries frames; a codec is chosen per link, and both
// ends of a link must use the same one.

import { checkStructure, utf8Exceeds, type InboundLimits, type Verdict } from '../runtime/inbound.js';
import type { AiccMessage } from '../runtime/protocol.js';

/**
 * What a link carries: text, bytes, or — on in-process links only, with `objectCodec` — the message
 * object itself.
 */
export type Frame = string | Uint8Array | AiccMessage;

export interface Codec {
  readonly name: string;
  encode(message: AiccMessage): Frame;
  /** Never throws: a frame that is too large, malformed, too deep or hostile gets a verdict. */
  decode(frame: Frame, limits: InboundLimits): Verdict<unknown>;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** JSON text frames: what a WebSocket text message or an NDJSON line carries. */
export const jsonCodec: Codec = {
  name: 'json',
  encode: (message) => JSON.stringify(message),
  decode(frame, limits) {
    let text: string;
    if (typeof frame === 'string') {
      if (utf8Exceeds(frame, limits.maxFrameBytes)) return oversized(limits);
      text = frame;
    } else if (frame instanceof Uint8Array) {
      if (frame.byteLength > limits.maxFrameBytes) return oversized(limits);
      try {
        text = utf8.decode(frame);
      } catch {
        return { ok: false, kind: 'malformed_frame', message: 'frame is not valid UTF-8' };
      }
    } else {
      return { ok: false, kind: 'malformed_frame', message: 'a JSON link got a message object; both ends must use jsonCodec' };
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return { ok: false, kind: 'malformed_frame', message: `frame is not JSON (${(error as Error).message})` };
    }
    return checkStructure(value, limits.maxDepth);
  },
};

export function oversized(limits: InboundLimits): Verdict<never> {
  return { ok: false, kind: 'oversized_frame', message: `frame exceeds ${limits.maxFrameBytes} bytes` };
}
