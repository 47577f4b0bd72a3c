// Batched framing: a frame may carry several aicc/0.1 messages as an array of them, so that a
// delivery of k events is one frame — with jsonCodec a JSON array, with objectCodec (in-process
// links) the array itself. Only where both ends agreed (over a WebSocket, by the subprotocol
// BATCHED_SUBPROTOCOL; in one process, by the code that makes both ends). Every message inside is a
// valid aicc/0.1 message, checked as if it came alone. A module of its own, so that a bundle which
// does not batch does not carry it.

import type { Frame } from '../links/link.js';
import type { Framing } from './wire.js';

/** The WebSocket subprotocol by which both ends agree on batched framing. */
export const BATCHED_SUBPROTOCOL = 'aicc.batched.v1';
/** Most messages one batched frame carries; a larger delivery goes out as several frames. */
export const MAX_BATCH_MESSAGES = 512;
/** Most characters of JSON one batched frame carries (under every side's default frame bound). */
export const MAX_BATCH_CHARS = 64 * 1024;

export const batchedFraming: Framing = {
  name: 'batched',
  codecs: ['json', 'object'],
  split(value) {
    if (!Array.isArray(value)) return [value];
    if (value.length === 0 || value.length > MAX_BATCH_MESSAGES) return `a batched frame carries 1 to ${MAX_BATCH_MESSAGES} messages, not ${value.length}`;
    return value;
  },
  join(frames) {
    return typeof frames[0] === 'string' ? joinTexts(frames as string[]) : joinObjects(frames);
  },
};

/** JSON texts as JSON array texts, bounded in messages and characters; one message goes alone. */
function joinTexts(texts: string[]): string[] {
  const frames: string[] = [];
  let batch: string[] = [];
  let chars = 0;
  const flush = (): void => {
    if (batch.length > 0) frames.push(batch.length === 1 ? batch[0]! : `[${batch.join(',')}]`);
    batch = [];
    chars = 0;
  };
  for (const text of texts) {
    if (batch.length >= MAX_BATCH_MESSAGES || (batch.length > 0 && chars + text.length > MAX_BATCH_CHARS)) flush();
    batch.push(text);
    chars += text.length + 1;
  }
  flush();
  return frames;
}

/** Message objects as arrays of at most MAX_BATCH_MESSAGES; one message goes alone. */
function joinObjects(messages: Frame[]): Frame[] {
  if (messages.length === 1) return messages;
  if (messages.length <= MAX_BATCH_MESSAGES) return [messages];
  const frames: Frame[] = [];
  for (let at = 0; at < messages.length; at += MAX_BATCH_MESSAGES) {
    const batch = messages.slice(at, at + MAX_BATCH_MESSAGES);
    frames.push(batch.length === 1 ? batch[0]! : batch);
  }
  return frames;
}
