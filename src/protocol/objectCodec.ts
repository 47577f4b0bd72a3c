// Messages passed as they are, for agents in the same process as the capsule (headless runs,
// scripted agents in a page): no text in between, so no encoding or parsing at all.
//
// The frame is the message itself, not a copy: both sides must treat a message as frozen once sent.
// The bridge may remove undeclared fields from a call's input in place (strict_input: false), and
// one event payload object reaches every subscribed session. The depth and key bounds still apply;
// the byte bound does not (an object has no size until it is encoded).

import { callOf, checkStructure } from './inbound.js';
import type { Codec } from './codec.js';

export const objectCodec: Codec = {
  name: 'object',
  encode: (message) => message,
  decode(frame, limits) {
    // An array is a batch (batchedFraming), or refused by the message check as not an object.
    if (typeof frame !== 'object' || frame === null || frame instanceof Uint8Array) {
      return { ok: false, kind: 'malformed_frame', message: 'objectCodec: expected a message object; both ends of the link must use objectCodec' };
    }
    return checkStructure(frame, limits.maxDepth);
  },
  decodeTrusted: (frame) => ({ ok: true, value: frame }),
  peekCall: callOf,
};
