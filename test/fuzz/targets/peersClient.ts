// PeersClient (pi-peers 1.0) under a hostile agent. The client talks to a PeersSimulator (the
// project's model of an honest agent) through a proxy that decides each request's fate: answered
// truly, not at all, late, twice, altered, made up (with the wrong id, broken, quoting the client's
// token), or the link dropped; between requests it sends records of every kind nobody asked for.
// Each batch ends with the clock run past every timeout: by then every call must have settled, a
// failure being a PeersError with a documented code. Then the proxy turns honest and a get_state and
// a delivery must be answered. A client the batch legitimately closed (its link dropped, reconnect
// given up) is replaced; one that closed for a reason the docs do not give is a problem.
//
// The first part (hostile values, the proxy's bookkeeping, call tracking) is shared with
// daemonClient.ts.

import fc from 'fast-check';
import peersSchema from '../../../schemas/pi-peers-1.0.schema.json';
import type { FuzzContext, FuzzTarget } from '../harness/context.js';
import type { Frame } from '../../../src/links/codec.js';
import type { Link } from '../../../src/links/link.js';
import { createMemoryLinkPair } from '../../../src/links/memory.js';
import { ManualClock } from '../../../src/runtime/clock.js';
import type { InboundLimits } from '../../../src/runtime/inbound.js';
import { validateRequest } from '../../../src/pi/generated/peers-validators.js';
import { DEFAULT_PEERS_LIMITS, PEERS_ERROR_CODES, PeersClient, PeersError, type DeliverOptions, type DeliveryKind, type PeersClientOptions, type PeersLocalErrorCode, type RecordProblemKind } from '../../../src/pi/index.js';
import { redactor } from '../../../src/pi/peersError.js';
import { isAbortRequest } from '../../../src/pi/peersRecords.js';
import { PeersSimulator } from '../../pi/peersSimulator.js';
import { draw } from './agentFrames.js';

// ── hostile values (shared with daemonClient.ts) ───────────────────────────────────────────────

/** A value only known when the record goes out: the request's own id, one still waiting, … */
export class Sym {
  constructor(
    readonly name: string,
    readonly n = 0,
  ) {}
}
/** A string quoting the secret: `before + secret + after`. */
export class Quote {
  constructor(
    readonly before: string,
    readonly after: string,
  ) {}
}
/** A number literal JSON.stringify cannot write (1e400, 2^64 + 1 exactly), put into the text as is. */
export class Raw {
  constructor(readonly text: string) {}
}
/** A key that becomes the secret when the record goes out (a key cannot hold a Quote). */
export const SECRET_KEY = '\u0001secret\u0001';
/** As a value: the field is removed. */
export const REMOVE = new Sym('remove');

/** `value` with every Sym, Quote and SECRET_KEY replaced; `__proto__` keys stay own keys. */
export function resolve(value: unknown, sym: (s: Sym) => unknown, secret: string): unknown {
  if (value instanceof Sym) return sym(value);
  if (value instanceof Quote) return `${value.before}${secret}${value.after}`;
  if (value === null || typeof value !== 'object' || value instanceof Raw) return value;
  if (Array.isArray(value)) return value.map((item) => resolve(item, sym, secret));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(out, key.split(SECRET_KEY).join(secret), { value: resolve(item, sym, secret), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** JSON text with each Raw written as its literal. */
export function stringify(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, item: unknown) => (item instanceof Raw ? `\u0001raw${raws.push(item.text) - 1}\u0001` : item)) ?? 'null';
  return raws.length === 0 ? text : text.replace(/"\\u0001raw(\d+)\\u0001"/g, (_match, i: string) => raws[Number(i)]!);
}

/** Sets `path` in `record` (making objects on the way); undefined removes the field. */
export function setPath(record: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = record;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) {
      const fresh: Record<string, unknown> = {};
      Object.defineProperty(node, key, { value: fresh, enumerable: true, writable: true, configurable: true });
      node = fresh;
    } else node = next as Record<string, unknown>;
  }
  const last = path.at(-1)!;
  if (value === undefined) delete node[last];
  else Object.defineProperty(node, last, { value, enumerable: true, writable: true, configurable: true });
}

/** Integers anywhere in the range and past it: negative, above 2^53, not integers, not numbers JSON keeps. */
export const anyNumber: fc.Arbitrary<number | Raw> = fc.oneof(
  { weight: 6, arbitrary: fc.nat(40) },
  fc.maxSafeNat(),
  fc.bigInt({ min: 2n ** 53n - 4n, max: 2n ** 53n + 4n }).map(Number),
  fc.bigInt({ min: 2n ** 53n, max: 2n ** 70n }).map(Number),
  fc.integer({ min: -1000, max: -1 }),
  fc.constantFrom(-0, 0.5, 1.5, -1.5, 1e21, 1e308, -1e308, 2 ** 63, 2 ** 64, Number.MAX_VALUE, Number.MIN_VALUE, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1),
  fc.double(),
  fc.constantFrom('1e400', '-1e400', '18446744073709551617', '9007199254740993', '1.0', '-0', '1E2', '0.0000001').map((text) => new Raw(text)),
);

/** Strings without the secret: odd, empty, non-BMP, lone surrogates, look-alikes of names, huge. */
export const plainText: fc.Arbitrary<string> = fc.oneof(
  { weight: 10, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }) },
  { weight: 4, arbitrary: fc.constantFrom('', ' ', '\u0000', '\n', '\r\n', '\u2028', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'response', 'hello', 'event', 'ж'.repeat(70), '😀'.repeat(40), '\u202e\u2066', '\ud800', 'a'.repeat(600)) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 60_000 }).map((n) => 'ж'.repeat(n)) },
);

/** Hostile strings: plain ones, and some quoting the secret. */
export const hostileText: fc.Arbitrary<string | Quote> = fc.oneof(
  { weight: 5, arbitrary: plainText },
  { weight: 1, arbitrary: fc.tuple(plainText, plainText).map(([a, b]) => new Quote(a.slice(0, 40), b.slice(0, 40))) },
);

const keyText = fc.oneof({ weight: 6, arbitrary: fc.string({ maxLength: 12 }) }, fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'token', 'id', 'type', SECRET_KEY));

/** Nested `n` deep, objects or arrays. */
export function nest(n: number, array: boolean): unknown {
  let value: unknown = 1;
  for (let i = 0; i < n; i++) value = array ? [value] : { a: value };
  return value;
}

/** Any JSON, with secrets, odd numbers, polluting keys and nesting past the limits. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 3, depthSize: 'small' },
    { weight: 4, arbitrary: hostileText },
    { weight: 2, arbitrary: anyNumber },
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    { weight: 2, arbitrary: fc.dictionary(keyText, tie('value'), { maxKeys: 5 }) },
    fc.tuple(fc.integer({ min: 2, max: 80 }), fc.boolean()).map(([n, array]) => nest(n, array)),
    fc.constantFrom('{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}', '{"a":{"__proto__":null}}').map((text) => JSON.parse(text) as unknown),
  ),
})).value;

/** Frames that are not readable records, or are records only just inside (or outside) the bounds. */
export type RawFrame =
  | { kind: 'text'; text: string }
  | { kind: 'bytes'; bytes: Uint8Array }
  /** Not text at all: a message object on a text link. */
  | { kind: 'object' }
  /** maxFrameBytes + over bytes of UTF-8, padded with `pad`; as bytes or as a string. */
  | { kind: 'big'; over: number; pad: string; quote: boolean; bytes: boolean }
  /** Nested maxDepth + over deep. */
  | { kind: 'deep'; over: number; array: boolean }
  /** A true-looking record cut short. */
  | { kind: 'cut'; at: number };

export const rawFrame: fc.Arbitrary<RawFrame> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .oneof(
        fc.string(),
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.constantFrom('', ' ', 'null', 'true', '0', '""', '[]', '{}', '{', '}', '\uFEFF{}', '{"a":1}{"b":2}', '{"type":1}', '{"type":null}', '[{"type":"response"}]', 'NaN', '{"type":"response",}', "{'type':'response'}", '\u0000', '1e400', '{"type":"response"}\n{"type":"response"}'),
      )
      .map((text) => ({ kind: 'text' as const, text })),
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(fc.uint8Array({ maxLength: 64 }), fc.constantFrom([0x7b, 0xff, 0x7d], [0xef, 0xbb, 0xbf, 0x7b, 0x7d], [0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x3a, 0x31, 0x7d], [0xc0, 0xaf], [0x7b, 0x7d]).map((bytes) => new Uint8Array(bytes)))
      .map((bytes) => ({ kind: 'bytes' as const, bytes })),
  },
  fc.constant({ kind: 'object' as const }),
  fc.record({ over: fc.integer({ min: -3, max: 3 }), pad: fc.constantFrom('x', 'é', '😀', '\u0000'), quote: fc.boolean(), bytes: fc.boolean() }).map((big) => ({ kind: 'big' as const, ...big })),
  fc.record({ over: fc.oneof(fc.integer({ min: -2, max: 3 }), fc.constant(20_000)), array: fc.boolean() }).map((deep) => ({ kind: 'deep' as const, ...deep })),
  fc.nat().map((at) => ({ kind: 'cut' as const, at })),
);

/** The frame a RawFrame stands for, around `shape(pad)` (a record that is otherwise a true answer). */
export function materialize(frame: RawFrame, limits: InboundLimits, secret: string, shape: (pad: string) => unknown): Frame {
  switch (frame.kind) {
    case 'text':
      return frame.text;
    case 'bytes':
      return frame.bytes;
    case 'object':
      return shape('') as Frame;
    case 'cut': {
      const text = stringify(shape(''));
      return text.slice(0, frame.at % text.length);
    }
    case 'deep': {
      // Written as text: JSON.stringify itself recurses, and would not get 20,000 levels deep.
      const n = Math.max(0, limits.maxDepth + frame.over);
      const deep = frame.array ? `${'['.repeat(n)}1${']'.repeat(n)}` : `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
      return stringify(shape('')).replace(/}$/, `,"deep":${deep}}`);
    }
    case 'big': {
      const quoted = frame.quote ? secret : '';
      const base = new TextEncoder().encode(stringify(shape(quoted))).byteLength;
      const room = limits.maxFrameBytes + frame.over - base;
      const unit = new TextEncoder().encode(JSON.stringify(frame.pad).slice(1, -1)).byteLength;
      const pad = frame.pad.repeat(Math.max(0, Math.floor(room / unit))) + 'x'.repeat(Math.max(0, room % unit));
      const text = stringify(shape(quoted + pad));
      return frame.bytes ? new TextEncoder().encode(text) : text;
    }
  }
}

/** Every string and key in `value` goes through context.seen (a JSON text would hide escaped ones). */
export function seenIn(context: FuzzContext, value: unknown, where: string): void {
  const stack: unknown[] = [value];
  for (let visited = 0; stack.length > 0 && visited < 5_000; visited++) {
    const item = stack.pop();
    if (typeof item === 'string') context.seen(item, where);
    else if (Array.isArray(item)) stack.push(...item);
    else if (item !== null && typeof item === 'object') {
      for (const [key, inner] of Object.entries(item)) {
        context.seen(key, where);
        stack.push(inner);
      }
    }
  }
}

/** Lets queued link deliveries and promise continuations run. */
export const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Moves the clock in steps until `done()`, at most `maxMs`: what time does on its own (timeouts,
 * backoff, polls). True when done.
 */
export async function runClock(clock: ManualClock, done: () => boolean, stepMs: number, maxMs: number): Promise<boolean> {
  for (let ran = 0; ran < maxMs; ran += stepMs) {
    await settle();
    if (done()) return true;
    clock.advance(stepMs);
  }
  await settle();
  return done();
}

/** The local codes both clients share; any other is tallied as the peer's own. */
const COMMON_CODES: ReadonlySet<string> = new Set(['timeout', 'closed', 'invalid_response', 'invalid_request', 'too_many_pending', 'unknown_error', 'aborted']);

/** Calls in flight: each settles, and what it settles with is checked. */
export class Calls {
  private next = 0;
  private readonly waiting = new Map<number, string>();

  constructor(private readonly context: FuzzContext) {}

  get pending(): number {
    return this.waiting.size;
  }

  /** `resolved` and `rejected` return a problem, or undefined when the outcome is one the docs allow. */
  track<T>(promise: Promise<T>, where: string, resolved: (value: T) => string | undefined, rejected: (error: unknown) => string | undefined): void {
    const n = this.next++;
    this.waiting.set(n, where);
    const done = (problem: string | undefined): void => {
      this.waiting.delete(n);
      if (problem !== undefined) this.context.problem(problem);
    };
    promise.then(
      (value) => {
        this.context.tally(`${where} ok`);
        done(resolved(value));
      },
      (error: unknown) => {
        // Few kinds, so that the report's table (64 rows at most) keeps them all.
        const code = codeOf(error);
        this.context.tally(`${where} failed`);
        this.context.tally(`failed: ${COMMON_CODES.has(code) ? code : error instanceof Error && (error.name === 'PeersError' || error.name === 'DaemonError') ? 'a code of the peer' : 'thrown'}`);
        done(rejected(error));
      },
    );
  }

  /** After the clock has run past every timeout: a call still waiting would wait for ever. */
  reportUnsettled(): void {
    for (const where of new Set(this.waiting.values())) this.context.problem(`${where} never settled, though the clock ran past every timeout`);
    this.waiting.clear();
  }
}

/** A promise's outcome, readable once it has settled. */
export interface Watched<T> {
  settled: boolean;
  value: T | undefined;
  error: unknown;
}

export function watch<T>(promise: Promise<T>): Watched<T> {
  const watched: Watched<T> = { settled: false, value: undefined, error: undefined };
  promise.then(
    (value) => Object.assign(watched, { settled: true, value }),
    (error: unknown) => Object.assign(watched, { settled: true, error }),
  );
  return watched;
}

/** What a thrown thing is, for a problem line. */
export function kindOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message.slice(0, 80)}` : typeof error;
}

/** A failure's code (or its class), for a problem line that repeats as one line, not one per request id. */
export function codeOf(error: unknown): string {
  const code = (error as { errorCode?: unknown; code?: unknown } | null)?.errorCode ?? (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : typeof error;
}

// ── what the docs allow PeersClient to say ─────────────────────────────────────────────────────

const LOCAL_CODES: Record<PeersLocalErrorCode, true> = { timeout: true, closed: true, invalid_response: true, too_many_pending: true, aborted: true, unknown_error: true };
/** The schema's ErrorCode enum and the client's own local codes. */
const PEERS_CODES: ReadonlySet<string> = new Set([...peersSchema.$defs.ErrorCode.enum, ...Object.keys(LOCAL_CODES)]);
const PROBLEM_KINDS: ReadonlySet<string> = new Set(Object.keys({ oversized_frame: true, malformed_frame: true, too_deep: true, forbidden_key: true, schema_violation: true } satisfies Record<RecordProblemKind, true>));
/** The close reasons a reconnecting client gives of its own (docs: reconnect.maxAttempts, a hello refused for good). */
const RECONNECT_REASON = /^PeersClient: (reconnect refused: |gave up reconnecting after \d+ attempts \(last: )/;

// ── the hostile agent ──────────────────────────────────────────────────────────────────────────

/** What becomes of one request. */
type Fate =
  | { kind: 'pass' }
  /** Never answered. */
  | { kind: 'swallow' }
  /** Answered after the batch, once the request has timed out. */
  | { kind: 'late' }
  /** The link drops: before the request reaches the agent, or with its answer lost or sent. */
  | { kind: 'drop'; when: 'before' | 'lost' | 'sent'; reason: string | Quote }
  /** Answered twice, the second copy maybe altered. */
  | { kind: 'twice'; change: Change | undefined }
  /** Records of an unknown type naming the request (progress), then the answer. */
  | { kind: 'progress'; count: number; type: string }
  /** The true answer, altered. */
  | { kind: 'change'; changes: Change[] }
  /** A made-up answer in place of the agent's. */
  | { kind: 'forge'; record: Record<string, unknown> }
  /** Something unreadable in place of the answer. */
  | { kind: 'garble'; frame: RawFrame };

interface Change {
  path: string[];
  value: unknown;
}

/** `flaky`: the link drops in the turn the hello is answered (an agent that dies as it accepts). */
type ConnectFate = { kind: 'ok' | 'throw' | 'never' | 'late' | 'closed' | 'flaky' } | { kind: 'reject'; message: string | Quote };

const PASS: Fate = { kind: 'pass' };
/** The answer goes out, and the link drops in the same turn. */
const DIES_AS_IT_ANSWERS: Fate = { kind: 'drop', when: 'sent', reason: 'died as it answered' };

/** Ids a hostile record may name: its request's, one waiting, one answered, the hello's, or none of ours. */
const idChoice: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.nat(7).map((n) => new Sym('pending', n)) },
  { weight: 2, arbitrary: fc.nat(15).map((n) => new Sym('previous', n)) },
  fc.constant(new Sym('hello')),
  fc.uuid(),
  hostileText,
  anyNumber,
  fc.constant(null),
);

const versionText = fc.oneof({ weight: 4, arbitrary: fc.constantFrom('1.0', '1.1', '1.9', '2.0', '0.9', '10.0', '1.10') }, fc.constantFrom('1', '1.0.0', '', ' 1.0', 'v1.0', '01.00', '1.0\n', '99999999999999999999.0'), hostileText);
const versionRange = fc.record({ version: versionText, minVersion: versionText }, { requiredKeys: [] });
/** Mostly `good`, sometimes anything. */
const mostly = <T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof({ weight: 9, arbitrary: good }, hostileJson);

/** get_state data close to an AgentState (and to the gateway's held answer), any field odd. */
const stateData = fc.record(
  {
    id: mostly(fc.constant('sim-agent')),
    label: mostly(plainText),
    host: mostly(fc.constant('sim-host')),
    cwd: mostly(fc.constant('/sim')),
    idle: mostly(fc.boolean()),
    settled: mostly(fc.nat(6)),
    status: hostileText,
    protocol: fc.oneof(versionRange, hostileJson),
    schemaVersion: versionText,
    pid: anyNumber,
    token: hostileText,
    held: mostly(fc.boolean()),
    lastAssistantText: fc.oneof(hostileText, fc.constant(null), anyNumber),
    [SECRET_KEY]: hostileJson,
  },
  { requiredKeys: ['id', 'label', 'host', 'cwd'] },
);
const responseData = fc.oneof(
  { weight: 3, arbitrary: stateData },
  fc.record({ protocol: fc.oneof({ weight: 3, arbitrary: versionRange }, hostileJson), id: plainText }, { requiredKeys: [] }),
  fc.record({ text: fc.oneof(hostileText, fc.constant(null), anyNumber) }, { requiredKeys: [] }),
  fc.record({ disposition: fc.oneof(fc.constantFrom('started', 'queued', 'handled'), hostileText) }, { requiredKeys: [] }),
  hostileJson,
);

/** A response: near-valid, any field odd, missing or added. Its id stands for the request it answers. */
const responseRecord: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    type: fc.oneof({ weight: 12, arbitrary: fc.constant('response') }, fc.constantFrom('Response', 'response ', 'event'), hostileText),
    id: fc.oneof({ weight: 6, arbitrary: fc.constant(new Sym('this')) }, idChoice),
    command: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('hello', 'get_state', 'get_last_assistant_text', 'prompt', 'follow_up', 'steer', 'abort', 'parse') }, hostileText, anyNumber),
    success: fc.oneof({ weight: 8, arbitrary: fc.boolean() }, fc.constantFrom('true', 1, null, 0)),
    data: responseData,
    error: fc.oneof({ weight: 6, arbitrary: hostileText }, anyNumber, fc.constant(null)),
    errorCode: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...PEERS_ERROR_CODES) }, fc.constantFrom('quota_exceeded', 'timeout', 'closed', 'unknown_error', 'invalid_response', 'aborted', ''), hostileText, anyNumber, fc.constant(null)),
    retryable: fc.oneof({ weight: 6, arbitrary: fc.boolean() }, fc.constantFrom('yes', 0, null)),
    [SECRET_KEY]: hostileJson,
  },
  { requiredKeys: ['type', 'id', 'command', 'success'] },
);

const PI_EVENTS = ['agent_start', 'agent_end', 'agent_settled', 'turn_start', 'turn_end', 'message_start', 'message_update', 'message_end', 'tool_execution_start', 'tool_execution_update', 'tool_execution_end', 'queue_update', 'auto_compaction_start', 'auto_retry_start', 'extension_ui_request', 'extension_error', 'hello', 'get_state', 'prompt'];

/** Records nobody asked for: pi's events and unknown types (an id among them is progress), answers to nothing, types that are not strings. */
const unsolicited: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ type: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...PI_EVENTS) }, hostileText), id: idChoice, message: hostileJson, messages: hostileJson, data: hostileJson, method: hostileText }, { requiredKeys: ['type'] }) },
  { weight: 3, arbitrary: responseRecord },
  fc.record({ type: fc.oneof(anyNumber, fc.constant(null), fc.boolean(), fc.array(plainText, { maxLength: 2 })), id: idChoice }, { requiredKeys: [] }),
);

const change: fc.Arbitrary<Change> = fc.record({
  path: fc.constantFrom(['id'], ['command'], ['success'], ['error'], ['errorCode'], ['retryable'], ['type'], ['data'], ['data', 'settled'], ['data', 'idle'], ['data', 'id'], ['data', 'label'], ['data', 'cwd'], ['data', 'token'], ['data', 'held'], ['data', 'lastAssistantText'], ['data', 'protocol'], ['data', 'protocol', 'version'], ['data', 'protocol', 'minVersion'], ['data', 'text'], ['data', 'disposition'], [SECRET_KEY]),
  value: fc.oneof(fc.constant(REMOVE), idChoice, hostileJson),
});

const fate: fc.Arbitrary<Fate> = fc.oneof(
  { weight: 12, arbitrary: fc.constant(PASS) },
  { weight: 2, arbitrary: fc.constant({ kind: 'swallow' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'late' as const }) },
  { weight: 1, arbitrary: fc.record({ when: fc.constantFrom('before' as const, 'lost' as const, 'sent' as const), reason: hostileText }).map((drop) => ({ kind: 'drop' as const, ...drop })) },
  { weight: 2, arbitrary: fc.option(change, { nil: undefined }).map((second) => ({ kind: 'twice' as const, change: second })) },
  { weight: 2, arbitrary: fc.record({ count: fc.integer({ min: 1, max: 4 }), type: fc.oneof(fc.constantFrom(...PI_EVENTS), plainText) }).map((progress) => ({ kind: 'progress' as const, ...progress })) },
  { weight: 8, arbitrary: fc.array(change, { minLength: 1, maxLength: 3 }).map((changes) => ({ kind: 'change' as const, changes })) },
  { weight: 6, arbitrary: responseRecord.map((record) => ({ kind: 'forge' as const, record })) },
  { weight: 2, arbitrary: rawFrame.map((frame) => ({ kind: 'garble' as const, frame })) },
);

const connectFate: fc.Arbitrary<ConnectFate> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom({ kind: 'ok' as const }, { kind: 'throw' as const }, { kind: 'never' as const }, { kind: 'late' as const }, { kind: 'closed' as const }, { kind: 'flaky' as const }) },
  hostileText.map((message) => ({ kind: 'reject' as const, message })),
);

/** One connection through the proxy: its end towards the client, and towards the simulator. */
interface Tap {
  client: Link;
  agent: Link;
  /** The hello's id, once it came. */
  hello: string | undefined;
  /** Answers still to be shaped, by request id. */
  fates: Map<string, Fate>;
}

/** The proxy, with everything the agent does wrong. */
class HostileAgent {
  honest = false;
  readonly fates: Fate[] = [];
  readonly connects: ConnectFate[] = [];
  /** Every reason a link of this agent was closed with (the client's close reason must be one). */
  readonly closeReasons = new Set<string>();
  private late: Array<() => void> = [];
  private tap: Tap | undefined;
  private readonly recent: string[] = [];
  private readonly open = new Set<string>();

  constructor(
    readonly sim: PeersSimulator,
    private readonly context: FuzzContext,
    private readonly clock: ManualClock,
    private readonly act: () => void,
    readonly token: string | undefined,
    readonly limits: InboundLimits,
  ) {}

  /** A new connection: the client's end. */
  link(): Link {
    const [clientEnd, proxyEnd] = createMemoryLinkPair();
    const [proxyToAgent, agentEnd] = createMemoryLinkPair();
    this.sim.serve(agentEnd);
    const tap: Tap = { client: proxyEnd, agent: proxyToAgent, hello: undefined, fates: new Map() };
    proxyEnd.listen({ message: (frame) => this.fromClient(tap, frame), close: (reason) => proxyToAgent.close(reason) });
    proxyToAgent.listen({
      message: (frame) => this.fromAgent(tap, frame),
      close: (reason) => {
        this.closeReasons.add(reason);
        proxyEnd.close(reason);
      },
    });
    this.tap = tap;
    return clientEnd;
  }

  /** What reconnect.connect() does: the next connect fate. */
  connect(): Promise<Link> {
    const next = this.honest ? { kind: 'ok' as const } : (this.connects.shift() ?? { kind: 'ok' as const });
    if (next.kind !== 'ok') this.act();
    switch (next.kind) {
      case 'ok':
        return Promise.resolve(this.link());
      case 'reject':
        return Promise.reject(new Error(String(this.resolve(next.message, undefined))));
      case 'throw':
        throw new TypeError('connect() threw');
      case 'never':
        return new Promise<Link>(() => {});
      case 'late':
        // After the deadline the reconnect loop gives each connect(): the loop must close it.
        return new Promise<Link>((resolve) => this.clock.setTimeout(() => resolve(this.link()), TIMEOUT_MS + 1));
      case 'closed': {
        const link = this.link();
        this.close(this.tap!, 'closed before the hello');
        return Promise.resolve(link);
      }
      case 'flaky':
        this.fates.unshift(DIES_AS_IT_ANSWERS);
        return Promise.resolve(this.link());
    }
  }

  /** A record (or frame) nobody asked for, on the newest connection. */
  unsolicited(frame: { record: Record<string, unknown>; bytes: boolean } | RawFrame): void {
    const tap = this.tap;
    if (tap === undefined || !tap.client.open) return; // a link that dropped takes nothing: not counted as sent
    this.act();
    if ('record' in frame) this.send(tap, frame.record, undefined, frame.bytes);
    else tap.client.send(this.raw(frame, undefined));
  }

  /** Late answers go out (their requests have timed out by now, or are still waiting). */
  flush(): void {
    const late = this.late;
    this.late = [];
    for (const send of late) send();
  }

  /** Honest from now on, until told otherwise; what was planned is forgotten. */
  calm(): void {
    this.fates.length = 0;
    this.connects.length = 0;
    this.flush();
  }

  private fromClient(tap: Tap, frame: Frame): void {
    if (typeof frame !== 'string') return this.context.problem('PeersClient sent a frame that is not text');
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(frame) as Record<string, unknown>;
    } catch {
      return this.context.problem('PeersClient sent a record that is not JSON');
    }
    if (!validateRequest(record) && !isAbortRequest(record)) return this.context.problem('PeersClient sent a record its schema refuses');
    const id = record['id'] as string;
    if (record['type'] === 'hello') {
      if (tap.hello !== undefined) this.context.problem('PeersClient said hello twice on one link');
      tap.hello = id;
      if (record['token'] !== this.token) this.context.problem('PeersClient sent a hello without its token, or with another');
    } else {
      if (tap.hello === undefined) this.context.problem('PeersClient sent a request before its hello');
      seenIn(this.context, record, 'a record PeersClient sent after its hello');
    }
    this.recent.push(id);
    if (this.recent.length > 16) this.recent.shift();
    this.open.add(id);
    if (this.open.size > 64) this.open.delete(this.open.values().next().value!);
    const next = this.honest ? PASS : (this.fates.shift() ?? PASS);
    if (next.kind !== 'pass') this.act();
    switch (next.kind) {
      // The agent still gets the request (a hello it never saw would make every later answer hello_required);
      // what it answers is not passed on.
      case 'swallow':
        break;
      case 'forge':
        this.send(tap, next.record, id);
        break;
      case 'garble':
        tap.client.send(this.raw(next.frame, id));
        break;
      case 'drop':
        if (next.when === 'before') return this.close(tap, next.reason);
        break;
      case 'progress':
        for (let i = 0; i < next.count; i++) this.send(tap, { type: next.type, id }, id);
        break;
      default:
    }
    tap.fates.set(id, next);
    tap.agent.send(frame);
  }

  private fromAgent(tap: Tap, frame: Frame): void {
    const record = JSON.parse(frame as string) as Record<string, unknown>;
    const id = String(record['id']);
    const next = tap.fates.get(id) ?? PASS;
    tap.fates.delete(id);
    this.open.delete(id);
    switch (next.kind) {
      case 'change':
        for (const { path, value } of next.changes) setPath(record, path, this.resolve(value, id));
        return this.send(tap, record, id);
      case 'twice':
        tap.client.send(frame);
        if (next.change !== undefined) setPath(record, next.change.path, this.resolve(next.change.value, id));
        return this.send(tap, record, id);
      case 'late':
        this.late.push(() => tap.client.send(frame));
        if (this.late.length > 64) this.late.shift();
        return;
      case 'drop':
        if (next.when === 'sent') tap.client.send(frame);
        return this.close(tap, next.reason);
      case 'swallow':
      case 'forge':
      case 'garble':
        return;
      default:
        tap.client.send(frame);
    }
  }

  private close(tap: Tap, reason: string | Quote): void {
    const text = String(this.resolve(reason, undefined));
    this.closeReasons.add(text);
    tap.client.close(text);
    tap.agent.close(text);
  }

  private send(tap: Tap, record: Record<string, unknown>, self: string | undefined, bytes = false): void {
    const text = stringify(this.resolve(record, self));
    tap.client.send(bytes ? new TextEncoder().encode(text) : text);
  }

  private raw(frame: RawFrame, self: string | undefined): Frame {
    const shape = (pad: string): unknown => this.resolve({ type: 'response', id: self ?? new Sym('pending'), command: 'get_state', success: true, data: { id: 'sim-agent', label: pad, host: 'sim-host', cwd: '/sim' } }, self);
    return materialize(frame, this.limits, this.token ?? '', shape);
  }

  private resolve(value: unknown, self: string | undefined): unknown {
    return resolve(value, (sym) => this.symbol(sym, self), this.token ?? '');
  }

  private symbol(sym: Sym, self: string | undefined): unknown {
    const pick = (ids: readonly string[]): string => ids[sym.n % Math.max(1, ids.length)] ?? 'never-asked';
    switch (sym.name) {
      case 'this':
        return self ?? pick([...this.open]);
      case 'pending':
        return pick([...this.open]);
      case 'previous':
        return pick(this.recent);
      case 'hello':
        return this.tap?.hello ?? 'no-hello';
      default:
        return undefined;
    }
  }
}

// ── the caller ─────────────────────────────────────────────────────────────────────────────────

type PeersCall =
  | { kind: 'getState'; wait: { settledAbove: number; holdMs: number } | undefined }
  | { kind: 'lastText' }
  | { kind: 'deliver'; type: DeliveryKind; message: string; hops: number | undefined; awaitsReply: boolean | undefined; id: 'default' | 'explicit' | 'retry' }
  | { kind: 'abort' }
  | { kind: 'wait'; since: number; pollMs: number; holdMs: number; timeoutMs: number }
  /** The caller closes the client. */
  | { kind: 'close' };

type Step =
  | { kind: 'frame'; frame: { record: Record<string, unknown>; bytes: boolean } | RawFrame }
  | { kind: 'call'; call: PeersCall; fate: Fate }
  | { kind: 'connect'; fate: ConnectFate }
  | { kind: 'settle' }
  | { kind: 'tick'; ms: number }
  /** The agent's run ends (a waiting reply can come). */
  | { kind: 'finish'; text: string | null }
  | { kind: 'flush' };

const TIMEOUT_MS = 1_000;

const peersCall: fc.Arbitrary<PeersCall> = fc.oneof(
  { weight: 4, arbitrary: fc.option(fc.record({ settledAbove: fc.oneof(fc.nat(4), anyNumber.filter((n): n is number => typeof n === 'number')), holdMs: fc.integer({ min: 0, max: 2 * TIMEOUT_MS }) }), { nil: undefined }).map((wait) => ({ kind: 'getState' as const, wait })) },
  { weight: 2, arbitrary: fc.constant({ kind: 'lastText' as const }) },
  {
    weight: 5,
    arbitrary: fc
      .record({
        type: fc.constantFrom<DeliveryKind>('prompt', 'follow_up', 'steer'),
        message: fc.oneof({ weight: 9, arbitrary: plainText }, fc.constant('')),
        hops: fc.option(fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 5 }) }, fc.constantFrom(0, -1, 1.5)), { nil: undefined }),
        awaitsReply: fc.option(fc.boolean(), { nil: undefined }),
        id: fc.constantFrom('default' as const, 'explicit' as const, 'retry' as const),
      })
      .map((deliver) => ({ kind: 'deliver' as const, ...deliver })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'abort' as const }) },
  { weight: 1, arbitrary: fc.record({ since: fc.integer({ min: -1, max: 1 }), pollMs: fc.integer({ min: 1, max: 300 }), holdMs: fc.integer({ min: 0, max: 800 }), timeoutMs: fc.integer({ min: 1, max: 3 * TIMEOUT_MS }) }).map((wait) => ({ kind: 'wait' as const, ...wait })) },
);

// Weighted so that a batch of 60 steps closes its client itself about one time in four.
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 80, arbitrary: fc.oneof({ weight: 4, arbitrary: fc.record({ record: unsolicited, bytes: fc.boolean() }) }, rawFrame).map((frame) => ({ kind: 'frame' as const, frame })) },
  { weight: 80, arbitrary: fc.record({ call: peersCall.filter((call) => call.kind !== 'close'), fate }).map((call) => ({ kind: 'call' as const, ...call })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'call' as const, call: { kind: 'close' as const }, fate: PASS }) },
  { weight: 8, arbitrary: connectFate.map((next) => ({ kind: 'connect' as const, fate: next })) },
  { weight: 32, arbitrary: fc.constant({ kind: 'settle' as const }) },
  { weight: 16, arbitrary: fc.integer({ min: 1, max: 2 * TIMEOUT_MS }).map((ms) => ({ kind: 'tick' as const, ms })) },
  { weight: 8, arbitrary: fc.oneof(plainText, fc.constant(null)).map((text) => ({ kind: 'finish' as const, text })) },
  { weight: 8, arbitrary: fc.constant({ kind: 'flush' as const }) },
);

/** How each client is made: its token, bounds, reconnection, ids, and the fate of its first hello. */
const clientPlan = fc.record({
  token: fc.constantFrom('hex', 'hex', 'base64', 'prefixed', 'escaped', 'none'),
  secret: fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 32, maxLength: 32 }),
  from: fc.option(fc.record({ id: plainText, label: plainText, host: plainText }), { nil: undefined }),
  reconnect: fc.option(fc.record({ maxAttempts: fc.integer({ min: 1, max: 4 }), baseDelayMs: fc.integer({ min: 1, max: 100 }), maxDelayMs: fc.integer({ min: 50, max: 400 }) }), { nil: undefined, freq: 3 }),
  maxPending: fc.constantFrom(2, 8, 64),
  limits: fc.option(fc.record({ maxFrameBytes: fc.integer({ min: 1_024, max: 65_536 }), maxDepth: fc.integer({ min: 4, max: 40 }) }), { nil: undefined, freq: 2 }),
  ids: fc.constantFrom('counter', 'uuid', 'default'),
  hello: fc.oneof({ weight: 6, arbitrary: fc.constant(PASS) }, { weight: 3, arbitrary: fate }, fc.constant(DIES_AS_IT_ANSWERS)),
});
type ClientPlan = typeof clientPlan extends fc.Arbitrary<infer T> ? T : never;

function tokenFor(plan: ClientPlan): string | undefined {
  switch (plan.token) {
    case 'none':
      return undefined;
    case 'hex':
      return plan.secret;
    case 'base64':
      return `${Buffer.from(plan.secret, 'hex').toString('base64')}+/=`;
    case 'prefixed':
      return `pi-peers_${plan.secret}`;
    default:
      // Any string can sit in a discovery file: one with characters JSON escapes.
      return `tok"\\\n${plan.secret}`;
  }
}

/** One client and the agent behind it, with what the checks need to know. */
interface Session {
  client: PeersClient;
  agent: HostileAgent;
  plan: ClientPlan;
  /** The id the client made last (its newId is ours): a default delivery id. */
  lastId: () => string | undefined;
  lastDelivery: string | undefined;
  closedByUs: boolean;
  closed: boolean;
}

export const target: FuzzTarget = async (context) => {
  const clock = new ManualClock();
  const calls = new Calls(context);
  let acts = 0;
  const act = (): void => {
    acts++;
    context.sent();
  };

  const failed =
    (where: string, requestId?: string) =>
    (error: unknown): string | undefined => {
      if (!(error instanceof PeersError)) return `${where} rejected with ${kindOf(error)}, not a PeersError`;
      context.code(error.errorCode, PEERS_CODES, `${where} PeersError`);
      context.seen(error.message, `${where} error message`);
      seenIn(context, error.details, `${where} error details`);
      if (typeof error.retryable !== 'boolean') return `${where}: a PeersError without a boolean retryable`;
      if (requestId !== undefined && error.details?.requestId !== requestId) return `${where}: a failed delivery does not name its id in details.requestId`;
      return undefined;
    };

  /** A fresh client and agent, its first hello sometimes hostile. */
  const fresh = async (n: number): Promise<Session> => {
    const plan = draw(clientPlan, context.seed + 2, n, 1)[0]!;
    const token = tokenFor(plan);
    if (token !== undefined) context.secret(token);
    const limits = { ...DEFAULT_PEERS_LIMITS, ...plan.limits };
    const sim = new PeersSimulator(token === undefined ? { clock } : { clock, token });
    const agent = new HostileAgent(sim, context, clock, act, token, limits);
    let made = 0;
    let last: string | undefined;
    const options: PeersClientOptions = { clock, requestTimeoutMs: TIMEOUT_MS, maxPendingRequests: plan.maxPending, limits };
    if (token !== undefined) options.token = token;
    if (plan.from !== undefined) options.from = plan.from;
    if (plan.reconnect !== undefined) options.reconnect = { ...plan.reconnect, connect: () => agent.connect() };
    if (plan.ids !== 'default') options.newId = () => (last = plan.ids === 'counter' ? `q${++made}` : `00000000-0000-4000-8000-${(++made).toString(16).padStart(12, '0')}`);

    // A hostile first hello: refused with a documented code (the link closed), or accepted, and
    // then the client it gave must work like any other.
    let client: PeersClient | undefined;
    if (plan.hello.kind !== 'pass') {
      agent.fates.push(plan.hello);
      const link = agent.link();
      const hostile = watch(PeersClient.connect(link, options));
      if (!(await runClock(clock, () => hostile.settled, TIMEOUT_MS / 4, 3 * TIMEOUT_MS))) context.problem('PeersClient.connect never settled after a hostile hello');
      client = hostile.value;
      if (hostile.settled && client === undefined) {
        const problem = failed('PeersClient.connect')(hostile.error);
        if (problem !== undefined) context.problem(problem);
        if (link.open) context.problem('PeersClient.connect rejected and left its link open');
      }
      agent.calm();
    }
    if (client === undefined) {
      const connected = watch(PeersClient.connect(agent.link(), options));
      await runClock(clock, () => connected.settled, TIMEOUT_MS / 4, 2 * TIMEOUT_MS);
      client = connected.value;
      if (client === undefined) throw new Error(`PeersClient.connect to an honest agent did not resolve: ${kindOf(connected.error)}`);
    }
    const session: Session = { client, agent, plan, lastId: () => last, lastDelivery: undefined, closedByUs: false, closed: false };
    const redact = redactor(token);
    client.on('error', (problem) => {
      context.tally(`error event ${problem.kind}`);
      context.code(problem.kind, PROBLEM_KINDS, 'PeersClient error event');
      context.seen(problem.message, 'error event message');
      if (problem.requestId !== undefined) context.seen(problem.requestId, 'error event requestId');
    });
    client.on('disconnect', ({ reason }) => {
      context.tally('disconnect');
      context.seen(reason, 'disconnect reason');
    });
    client.on('reconnect', ({ protocolVersion, attempt }) => {
      context.tally('reconnect');
      if (protocolVersion !== '1.0' || !(attempt >= 1)) context.problem('a reconnect event with an odd version or attempt');
    });
    client.on('close', ({ reason }) => {
      context.tally('close');
      context.seen(reason, 'close reason');
      session.closed = true;
      const legit = (session.closedByUs && reason === 'PeersClient.close()') || [...agent.closeReasons].some((r) => redact(r) === reason) || (plan.reconnect !== undefined && RECONNECT_REASON.test(reason));
      if (!legit) context.problem(`PeersClient closed for a reason the docs do not give: ${reason.slice(0, 60)}`);
      context.tally(session.closedByUs && reason === 'PeersClient.close()' ? 'close: by the caller' : RECONNECT_REASON.test(reason) ? 'close: reconnect ended' : 'close: link dropped');
    });
    return session;
  };

  const call = (session: Session, spec: PeersCall): void => {
    const { client } = session;
    switch (spec.kind) {
      case 'getState':
        return calls.track(client.getState(spec.wait), 'getState', (state) => (typeof state.id === 'string' && typeof state.label === 'string' && typeof state.cwd === 'string' && !Object.hasOwn(state, 'token') ? undefined : 'getState resolved with data that is not an AgentState'), failed('getState'));
      case 'lastText':
        return calls.track(client.getLastAssistantText(), 'getLastAssistantText', (text) => (text === null || typeof text === 'string' ? undefined : 'getLastAssistantText resolved with neither a string nor null'), failed('getLastAssistantText'));
      case 'abort':
        return calls.track(client.abort(), 'abort', () => undefined, failed('abort'));
      case 'deliver': {
        const options: DeliverOptions = {};
        if (spec.id === 'explicit' || (spec.id === 'retry' && session.lastDelivery === undefined)) options.id = client.newDeliveryId();
        if (spec.id === 'retry' && session.lastDelivery !== undefined) options.id = session.lastDelivery;
        if (spec.hops !== undefined) options.hops = spec.hops;
        if (spec.awaitsReply !== undefined) options.awaitsReply = spec.awaitsReply;
        const answer = client.deliver(spec.type, spec.message, options);
        const id = options.id ?? (session.plan.ids === 'default' ? undefined : session.lastId());
        session.lastDelivery = id;
        return calls.track(answer, 'deliver', (response) => (response.type === 'response' && response.success === true && (id === undefined || response.id === id) ? undefined : 'deliver resolved with something other than the success answer to its own id'), failed('deliver', id));
      }
      case 'wait':
        return calls.track(client.waitForReply(session.agent.sim.settled + spec.since, { pollMs: spec.pollMs, holdMs: spec.holdMs, timeoutMs: spec.timeoutMs }), 'waitForReply', (text) => (text === null || typeof text === 'string' ? undefined : 'waitForReply resolved with neither a string nor null'), failed('waitForReply'));
      case 'close':
        session.closedByUs = true;
        return client.close();
    }
  };

  /** The client still works: a get_state and a delivery are answered, within the request timeout. */
  const probe = async (session: Session, batch: number): Promise<void> => {
    const { client } = session;
    const id = `probe-${batch}`;
    const state = watch(client.getState());
    const delivered = watch(client.deliver('follow_up', 'still there?', { id }));
    await runClock(clock, () => state.settled && delivered.settled, TIMEOUT_MS / 2, 2 * TIMEOUT_MS);
    const why = (w: Watched<unknown>): string => (w.settled ? codeOf(w.error) : 'no answer');
    if (state.value?.id !== 'sim-agent') context.problem(`a get_state after hostile records was not answered (${why(state)})`);
    if (delivered.value?.id !== id || delivered.value.success !== true) context.problem(`a delivery after hostile records was not answered (${why(delivered)})`);
  };

  let clients = 0;
  let session = await fresh(clients++);
  for (let batch = 0; acts < context.frames; batch++) {
    for (const next of draw(step, context.seed, batch, 60)) {
      if (session.closed) break; // a closed client refuses everything at once: the next one learns more
      switch (next.kind) {
        case 'frame':
          session.agent.unsolicited(next.frame);
          break;
        case 'call':
          session.agent.fates.push(next.fate);
          call(session, next.call);
          break;
        case 'connect':
          session.agent.connects.push(next.fate);
          break;
        case 'settle':
          await settle();
          break;
        case 'tick':
          clock.advance(next.ms);
          break;
        case 'finish':
          session.agent.sim.finishRun(next.text);
          break;
        case 'flush':
          session.agent.flush();
      }
    }
    // Time runs out for everything the batch left waiting; answers from now on are true.
    session.agent.calm();
    await runClock(clock, () => calls.pending === 0 && session.client.state !== 'reconnecting', TIMEOUT_MS / 4, 20 * TIMEOUT_MS);
    calls.reportUnsettled();
    if (session.client.state === 'reconnecting') context.problem('PeersClient still reconnecting to an honest agent after every backoff');
    // A poll that waitForReply left in flight when it gave up holds a place until its own timeout.
    clock.advance(TIMEOUT_MS + 1);
    await settle();
    session.agent.honest = true;
    // Rotating clients keeps what each agent and simulator remembers bounded.
    if (session.client.state === 'closed' || batch % 25 === 24) {
      session.closedByUs = true;
      session.client.close();
      session = await fresh(clients++);
      session.agent.honest = true;
    }
    await probe(session, batch);
    session.agent.honest = false;
    const sim = session.agent.sim;
    sim.received.length = 0;
    sim.receivedFrames.length = 0;
    sim.deliveries.length = 0;
    if (batch % 10 === 0) await context.breathe();
  }
  session.closedByUs = true;
  session.client.close();
};
