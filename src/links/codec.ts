// How messages become frames and back. A link carries frames; a codec is chosen per link, and both
// ends of a link must use the same one.

import { oversizedFrame, parseJsonFrame, type InboundLimits, type Verdict } from '../runtime/inbound.js';
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

/** JSON text frames: what a WebSocket text message or an NDJSON line carries. */
export const jsonCodec: Codec = {
  name: 'json',
  encode: (message) => JSON.stringify(message),
  decode: (frame, limits) => parseJsonFrame(frame, limits, { what: 'frame', notText: 'a JSON link got a message object; both ends must use jsonCodec' }),
};

/** The refusal of a frame over `limits.maxFrameBytes`. */
export function oversized(limits: InboundLimits): Verdict<never> {
  return oversizedFrame(limits);
}
