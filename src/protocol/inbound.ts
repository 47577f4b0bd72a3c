// The first gate for everything a peer sends: size and depth bounds, and keys that could pollute
// prototypes. Nothing here throws on bad input; every failure is a typed verdict.

import type { RefusalKind } from './refusals.js';

export interface InboundLimits {
  /** Largest accepted frame, in bytes (UTF-8 for text frames). Default 262,144 (256 KiB). */
  maxFrameBytes: number;
  /** Deepest accepted nesting of objects and arrays. Default 32. */
  maxDepth: number;
}

export const DEFAULT_INBOUND_LIMITS: InboundLimits = Object.freeze({ maxFrameBytes: 256 * 1024, maxDepth: 32 });

export type Verdict<T> = { ok: true; value: T } | { ok: false; kind: RefusalKind; message: string };

/** How a reader names what it reads, in its refusals. */
export interface FrameWording {
  /** "frame", "record"… */
  what: string;
  /** The refusal of something that is not text (a message object on a text link). */
  notText: string;
  /** Where the size bound is set, named after an oversized refusal, e.g. "options.limits.maxFrameBytes". */
  limitName?: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A JSON text frame — a string, or UTF-8 bytes — within the size bound, parsed, and walked by
 * checkStructure: what every JSON reader of the project (the AICC codec, the pi-peers and pi-daemon
 * clients) does first.
 */
export function parseJsonFrame(frame: unknown, limits: InboundLimits, wording: FrameWording): Verdict<unknown> {
  let text: string;
  if (typeof frame === 'string') {
    if (utf8Exceeds(frame, limits.maxFrameBytes)) return oversizedFrame(limits, wording);
    text = frame;
  } else if (frame instanceof Uint8Array) {
    if (frame.byteLength > limits.maxFrameBytes) return oversizedFrame(limits, wording);
    try {
      text = utf8.decode(frame);
    } catch {
      return { ok: false, kind: 'malformed_frame', message: `${wording.what} is not valid UTF-8` };
    }
  } else {
    return { ok: false, kind: 'malformed_frame', message: wording.notText };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text, which may hold anything: it is not repeated.
    return { ok: false, kind: 'malformed_frame', message: `${wording.what} is not JSON` };
  }
  return checkStructure(value, limits.maxDepth);
}

/** The refusal of a frame over `limits.maxFrameBytes`. */
export function oversizedFrame(limits: InboundLimits, wording: Pick<FrameWording, 'what' | 'limitName'> = { what: 'frame' }): Verdict<never> {
  const where = wording.limitName === undefined ? '' : ` (${wording.limitName})`;
  return { ok: false, kind: 'oversized_frame', message: `${wording.what} exceeds ${limits.maxFrameBytes} bytes${where}` };
}

/** UTF-8 length of a string, computed only as far as needed to compare with `max`. */
export function utf8Exceeds(text: string, max: number): boolean {
  if (text.length > max) return true;
  if (text.length * 3 <= max) return false;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c < 0xdc00 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4; // a surrogate pair
      i++;
    } else bytes += 3; // the rest of the BMP; a lone surrogate is encoded as U+FFFD
    if (bytes > max) return true;
  }
  return false;
}

/**
 * Walks a decoded value once: refuses nesting deeper than `maxDepth`, any `__proto__` key, and a
 * `constructor` key holding a `prototype` — the shapes that turn a later merge into prototype
 * pollution. Iterative, so no depth limit, however large, can exhaust the stack.
 */
export function checkStructure(value: unknown, maxDepth: number): Verdict<unknown> {
  if (value === null || typeof value !== 'object') return { ok: true, value };
  const verdict = walk(value, maxDepth);
  // Every message passes here: the stacks are kept for the next walk, unless this one stopped
  // early (a refusal) or grew them past what a message usually needs.
  if (nodes.length > 0 || widest > 1024) {
    nodes = [];
    depths = [];
    widest = 0;
  }
  return verdict ?? { ok: true, value };
}

// Two parallel stacks rather than [node, depth] pairs, kept between walks: no allocation per node,
// none per message.
let nodes: object[] = [];
let depths: number[] = [];
let widest = 0;

/** The refusal of the first bad shape in `value`, or undefined when there is none. */
function walk(value: object, maxDepth: number): Verdict<never> | undefined {
  nodes.push(value);
  depths.push(1);
  while (nodes.length > 0) {
    if (nodes.length > widest) widest = nodes.length;
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > maxDepth) return { ok: false, kind: 'too_deep', message: `message nests deeper than ${maxDepth} levels` };
    if (Array.isArray(node)) {
      for (const item of node) {
        if (item !== null && typeof item === 'object') {
          nodes.push(item);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    // for…in rather than Object.keys: no array per object. It also walks enumerable inherited keys,
    // which only ever adds checks.
    for (const key in node) {
      const inner = (node as Record<string, unknown>)[key];
      if (key === '__proto__') return { ok: false, kind: 'forbidden_key', message: 'message contains a "__proto__" key' };
      if (inner === null || typeof inner !== 'object') continue;
      if (key === 'constructor' && 'prototype' in inner) {
        return { ok: false, kind: 'forbidden_key', message: 'message contains a "constructor.prototype" key' };
      }
      nodes.push(inner);
      depths.push(depth + 1);
    }
  }
  return undefined;
}
