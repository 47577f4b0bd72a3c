// How messages become frames and back. A link carries frames; a codec is chosen per link, and both
// ends of a link must use the same one.

import { oversizedFrame, parseJsonFrame, peekJsonCall, type FrameCall, type InboundLimits, type Verdict } from './inbound.js';
import type { Frame } from '../links/link.js';
import type { AiccMessage, EventMessage } from './messages.js';

export type { Frame } from '../links/link.js';

/**
 * Where the encodings of one event's payload are kept, by codec: the event object one emit makes,
 * which reaches every subscribed session. Written by codecs only.
 */
export interface SharedEncodings {
  encodings?: { json?: string };
}

export interface Codec {
  readonly name: string;
  encode(message: AiccMessage): Frame;
  /**
   * The same frame as `encode(message)` for an event whose payload reaches many sessions: the
   * payload is encoded once, kept on `shared`, and the frame built around it. `message` must be a
   * valid aicc/0.1 event built in envelope order (protocol, type, session_id, message_id, topic,
   * payload, meta), as sessions build events. Absent: `encode`.
   */
  encodeEvent?(message: EventMessage, shared: SharedEncodings): Frame;
  /** Never throws: a frame that is too large, malformed, too deep or hostile gets a verdict. */
  decode(frame: Frame, limits: InboundLimits): Verdict<unknown>;
  /**
   * Decodes a frame a bridge in this process built (an agent's trustBridge): no bounds and no
   * structure walk, only what turning it back into values takes. Never throws.
   */
  decodeTrusted(frame: Frame): Verdict<unknown>;
  /**
   * The call a frame `decode` refused is about (a tool_call, a tool_result), read shallowly from its
   * first PEEK_CHARS, so that the refusal can answer that call rather than leave it waiting. Never
   * throws. Absent: no call is read from refused frames.
   */
  peekCall?(frame: Frame): FrameCall | undefined;
}

/** JSON text frames: what a WebSocket text message or an NDJSON line carries. */
export const jsonCodec: Codec = {
  name: 'json',
  encode: (message) => JSON.stringify(message),
  encodeEvent(message, shared) {
    const encodings = (shared.encodings ??= {});
    const payload = (encodings.json ??= JSON.stringify(message.payload));
    // What JSON.stringify(message) makes, byte for byte, with the payload's text reused. The ids are
    // UUIDs and the topic a reserved name, as the schema has them: nothing in them needs escaping.
    const head = `{"protocol":"aicc/0.1","type":"event","session_id":"${message.session_id}","message_id":"${message.message_id}","topic":"${message.topic}","payload":`;
    return message.meta === undefined ? `${head}${payload}}` : `${head}${payload},"meta":${JSON.stringify(message.meta)}}`;
  },
  decode: (frame, limits) => parseJsonFrame(frame, limits, JSON_WORDING),
  decodeTrusted(frame) {
    if (typeof frame !== 'string') return parseJsonFrame(frame, { maxFrameBytes: Infinity, maxDepth: Infinity }, JSON_WORDING);
    try {
      return { ok: true, value: JSON.parse(frame) };
    } catch {
      return { ok: false, kind: 'malformed_frame', message: 'frame is not JSON' };
    }
  },
  peekCall: peekJsonCall,
};

const JSON_WORDING = { what: 'frame', notText: 'a JSON link got a message object; both ends must use jsonCodec' };

/** The refusal of a frame over `limits.maxFrameBytes`. */
export function oversized(limits: InboundLimits): Verdict<never> {
  return oversizedFrame(limits);
}
