// The first gate for everything a peer sends: size and depth bounds, and keys that could pollute
// prototypes. Nothing here throws on bad input; every failure is a typed verdict. The same gate is
// checked on the way out (checkOutbound: what the other end would refuse is not sent), and a frame
// refused here still says which call it is about (peekJsonCall, callOf), so that call can be answered.

import { PROTOCOL } from './messages.js';
import type { RefusalKind } from './refusals.js';

export interface InboundLimits {
  /** Largest accepted frame, in bytes (UTF-8 for text frames). Default 262,144 (256 KiB). */
  maxFrameBytes: number;
  /** Deepest accepted nesting of objects and arrays. Default 32. */
  maxDepth: number;
}

export const DEFAULT_INBOUND_LIMITS: InboundLimits = Object.freeze({ maxFrameBytes: 256 * 1024, maxDepth: 32 });

export type Verdict<T> = { ok: true; value: T } | { ok: false; kind: RefusalKind; message: string };

/** A verdict's refusal. */
export type Refused = Extract<Verdict<never>, { ok: false }>;

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
export function oversizedFrame(limits: InboundLimits, wording: Pick<FrameWording, 'what' | 'limitName'> = { what: 'frame' }): Refused {
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

/**
 * What the other end's first gate (parseJsonFrame, or its codec's decode) would refuse in a frame this
 * end built from `message`, read with that end's `limits`: its size in bytes (a text or byte frame;
 * an object frame has none), its depth and its hostile keys. The structure is walked on the message
 * rather than parsed back from the frame: for JSON values it is the same tree. Undefined: it passes.
 */
export function checkOutbound(frame: unknown, message: object, limits: InboundLimits): Refused | undefined {
  if (typeof frame === 'string' ? utf8Exceeds(frame, limits.maxFrameBytes) : frame instanceof Uint8Array && frame.byteLength > limits.maxFrameBytes) {
    return oversizedFrame(limits);
  }
  const verdict = checkStructure(message, limits.maxDepth);
  return verdict.ok ? undefined : verdict;
}

// ── the call a refused frame belongs to ──────────────────────────────────────────────────────

/** The call a frame is about, read from its top level only: a tool_call the bridge can answer, or a tool_result an agent waits for. */
export interface FrameCall {
  type: 'tool_call' | 'tool_result';
  callId: string;
  /** Its `session_id`, when one was read. */
  sessionId?: string;
}

/**
 * How much of a refused frame a peek reads (characters of text, or bytes): enough for an envelope
 * and a call_id, which the messages of this project put before any input or output.
 */
export const PEEK_CHARS = 4096;

/**
 * The call a decoded value (or an object frame) is about, from its own top-level `type`, `call_id`,
 * `session_id` and `protocol` only: a non-empty call_id of a tool_call or tool_result, under this
 * protocol (or none named). Reads data properties alone, so nothing the value holds runs.
 */
export function callOf(value: unknown): FrameCall | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  try {
    const type = own(value, 'type');
    const callId = own(value, 'call_id');
    const protocol = own(value, 'protocol');
    if ((type !== 'tool_call' && type !== 'tool_result') || typeof callId !== 'string' || callId === '') return undefined;
    if (protocol !== undefined && protocol !== PROTOCOL) return undefined;
    const sessionId = own(value, 'session_id');
    return typeof sessionId === 'string' ? { type, callId, sessionId } : { type, callId };
  } catch {
    return undefined; // a proxy, say: no call
  }
}

function own(value: object, key: string): unknown {
  return Object.getOwnPropertyDescriptor(value, key)?.value;
}

const lenientUtf8 = new TextDecoder('utf-8');

/**
 * The call a JSON text frame (a string, or UTF-8 bytes) is about, read from its first PEEK_CHARS
 * without parsing it: the top-level members before the window ends or the text stops being JSON,
 * nested values skipped unread. For a frame the first gate refused (too large, too deep, hostile,
 * not JSON) so that a call in it can still be answered.
 */
export function peekJsonCall(frame: unknown): FrameCall | undefined {
  let text: string;
  if (typeof frame === 'string') text = frame.length > PEEK_CHARS ? frame.slice(0, PEEK_CHARS) : frame;
  else if (frame instanceof Uint8Array) text = lenientUtf8.decode(frame.subarray(0, PEEK_CHARS));
  else return undefined;
  return callOf(topLevelStrings(text));
}

/** The keys a peek keeps. */
const PEEKED = new Set(['protocol', 'type', 'session_id', 'call_id']);

/** The string members among PEEKED at the top level of a JSON object text, as far as it can be read. */
function topLevelStrings(text: string): Record<string, string> | undefined {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== 0x7b) return undefined; // {
  const found: Record<string, string> = Object.create(null);
  i++;
  for (;;) {
    i = skipSpace(text, i);
    const keyEnd = stringEnd(text, i);
    if (keyEnd < 0) return found;
    const key = stringAt(text, i, keyEnd);
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== 0x3a) return found; // :
    i = skipSpace(text, i + 1);
    const end = text.charCodeAt(i) === 0x22 ? stringEnd(text, i) : valueEnd(text, i);
    if (end < 0) return found;
    if (key !== undefined && PEEKED.has(key) && text.charCodeAt(i) === 0x22) {
      const value = stringAt(text, i, end);
      if (value !== undefined) found[key] = value; // a repeated key: the last one, as JSON.parse has it
    }
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== 0x2c) return found; // ,
    i++;
  }
}

const SPACE = new Set([0x20, 0x0a, 0x0d, 0x09]);

function skipSpace(text: string, i: number): number {
  while (SPACE.has(text.charCodeAt(i))) i++;
  return i;
}

/** Just past the string that opens at `i`, or -1 (no string there, or it does not end in the text). */
function stringEnd(text: string, i: number): number {
  if (text.charCodeAt(i) !== 0x22) return -1;
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x5c)
      j++; // a backslash escapes the next character
    else if (c === 0x22) return j + 1;
  }
  return -1;
}

/** The string between `start` and `end` decoded, or undefined when it is not a JSON string. */
function stringAt(text: string, start: number, end: number): string | undefined {
  try {
    return JSON.parse(text.slice(start, end)) as string;
  } catch {
    return undefined;
  }
}

const LITERAL_ENDS = new Set([0x2c, 0x7d, 0x5d, ...SPACE]);

/** Just past the value (not a string) that starts at `i`, or -1: objects and arrays by their brackets, strings inside skipped. */
function valueEnd(text: string, i: number): number {
  const first = text.charCodeAt(i);
  if (first !== 0x7b && first !== 0x5b) {
    // A number, true, false or null: it runs to the next comma, brace or space.
    let j = i;
    while (j < text.length && !LITERAL_ENDS.has(text.charCodeAt(j))) j++;
    return j === i || j >= text.length ? -1 : j;
  }
  let open = 0;
  for (let j = i; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x22) {
      const end = stringEnd(text, j);
      if (end < 0) return -1;
      j = end - 1;
    } else if (c === 0x7b || c === 0x5b) open++;
    else if (c === 0x7d || c === 0x5d) {
      open--;
      if (open === 0) return j + 1;
    }
  }
  return -1;
}
