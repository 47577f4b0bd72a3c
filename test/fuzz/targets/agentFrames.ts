// Hostile frames an agent could send a capsule: near-valid messages (which reach deep into the
// checks and the call pipeline), and text and bytes that are not messages at all.

import fc from 'fast-check';
import { binaryCodec } from '../../../src/protocol/binaryCodec.js';
import type { AiccMessage } from '../../../src/protocol/messages.js';

/** Tools the fuzzed capsule registers (see capsule.ts); the rest of the names are unknown. */
export const TOOL_NAMES = ['echo', 'step', 'slow', 'boom'];
/** Calls those tools accept, so that many calls reach a handler. */
const GOOD_USES: Array<[string, unknown]> = [
  ['echo', { text: 'hi' }],
  ['step', { dir: 'east' }],
  ['slow', { ms: 5 }],
  ['slow', { ms: 80 }],
  ['boom', {}],
  ['boom', { a: 1 }],
];

const uuid = fc.uuid();
const weirdText = fc.oneof(
  fc.string(),
  // Long and far from ASCII: a close reason or a refusal quoting it must still fit its bounds.
  fc.string({ unit: fc.constantFrom('ж', '中', '😀', 'é', '\u0301'), minLength: 30, maxLength: 120 }),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary', maxLength: 80 }), // lone surrogates included
  fc.constantFrom('', ' ', '\u0000', '__proto__', 'constructor', 'toString', 'ж'.repeat(70), '😀'.repeat(40), '\u202e\u2066', 'a'.repeat(5000)),
);
/** Message ids: random, sequenced-looking with any sequence, or not ids at all. */
const messageId = (prefixes: string[]) =>
  fc.oneof(
    { weight: 6, arbitrary: uuid },
    fc.tuple(fc.constantFrom(...prefixes), fc.bigInt({ min: 0n, max: (1n << 48n) - 1n })).map(([prefix, n]) => `${prefix}${n.toString(16).padStart(12, '0')}`),
    weirdText,
  );
const jsonish = fc.oneof({ weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }) }, fc.dictionary(weirdText, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }), {
  weight: 4,
  arbitrary: fc.constantFrom({ dir: 'east' }, { dir: 'west' }, { text: 'hi' }, { ms: 5 }, { ms: 80 }, {}, [], null, 1e308, -0),
});

/**
 * Adds a stray field one time in six and drops a field one time in six: most messages keep their
 * type's shape, so they pass the schema and reach the call pipeline; the rest test the checks.
 */
export function mutated(shape: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(shape, fc.nat(5), fc.nat(5), fc.nat(), fc.oneof(fc.string({ maxLength: 8 }), weirdText), fc.jsonValue({ maxDepth: 2 }))
    .map(([m, add, drop, which, key, value]) => {
      const out: Record<string, unknown> = { ...m };
      if (drop === 0) {
        const keys = Object.keys(out);
        delete out[keys[which % keys.length]!];
      }
      if (add === 0) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      return out;
    });
}

/** A message object close to what an agent sends, in the shape of its type, sometimes broken. */
export function nearValidMessage(sessionIds: () => string[], prefixes: string[] = ['00000000-0000-8000-8000-']): fc.Arbitrary<Record<string, unknown>> {
  const envelope = {
    protocol: fc.oneof({ weight: 30, arbitrary: fc.constant('aicc/0.1') }, fc.constantFrom('aicc/0.2', 'AICC/0.1', 1, null), weirdText),
    session_id: fc.oneof({ weight: 20, arbitrary: fc.constant(null).map(() => sessionIds()[0] ?? '') }, uuid, weirdText),
    message_id: messageId(prefixes),
  };
  // Mostly fresh ids (in hybrid mode, `!` asks for evaluation at once), some repeated, some odd.
  const callId = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(fc.boolean(), fc.nat(1_000_000)).map(([now, n]) => `${now ? '!' : ''}c${n}`) },
    { weight: 2, arbitrary: fc.constantFrom('c1', 'c2', '!c3') },
    fc.string({ maxLength: 12 }).map((s) => `!${s}`),
    weirdText,
  );
  const tool = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...TOOL_NAMES) }, weirdText);
  const manifest = fc.record({
    protocol: fc.constant('aicc/0.1'),
    type: fc.constant('session_init'),
    tick_rate_hz: fc.constantFrom(10, 0, -1, 1e9),
    tick_mode: fc.constantFrom('fixed', 'event', 'hybrid', 'warp'),
    world: fc.constant({ name: 'w', kind: 'abstract' }),
    capabilities: fc.constant({ sensors: [], actuators: ['legs'], generators: [] }),
    tools: fc.constant([]),
    agent_model: fc.record({ class: fc.constantFrom('edge_small', 'cloud_large', 'quantum') }),
    event_subscriptions: fc.array(fc.constantFrom('tick', 'audio', 'state_change', 'nope'), { maxLength: 4 }),
  });
  const shapes = fc.oneof(
    {
      weight: 8,
      arbitrary: fc
        .record({
          ...envelope,
          type: fc.constant('tool_call'),
          call_id: callId,
          use: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...GOOD_USES) }, fc.tuple(tool, jsonish)),
        })
        .map(({ use: [tool, input], ...m }) => ({ ...m, tool, input })),
    },
    { weight: 2, arbitrary: fc.record({ ...envelope, type: fc.constant('heartbeat') }) },
    { weight: 1, arbitrary: fc.record({ ...envelope, type: fc.constant('heartbeat'), manifest_update: fc.oneof(manifest, jsonish) }) },
    { weight: 1, arbitrary: fc.record({ ...envelope, type: fc.constant('manifest_request') }) },
    { weight: 1, arbitrary: fc.record({ ...envelope, type: fc.constant('session_resume') }) },
    {
      weight: 1,
      arbitrary: fc.record(
        { ...envelope, type: fc.constant('session_close'), reason: weirdText },
        { requiredKeys: ['protocol', 'type', 'session_id', 'message_id'] },
      ),
    },
    {
      weight: 1,
      arbitrary: fc.record(
        {
          ...envelope,
          type: fc.constantFrom('session_init', 'tool_result', 'event', 'error', 'nope', ''),
          call_id: callId,
          ok: fc.boolean(),
          topic: weirdText,
          payload: jsonish,
        },
        { requiredKeys: ['protocol', 'type'] },
      ),
    },
  );
  return (
    mutated(shapes)
      .chain((m) => fc.nat(19).map((die) => ({ m, die })))
      // A session_close that would end the session is kept one time in twenty: the rest of the run
      // should reach further than a fresh session.
      .filter(({ m, die }) => !(m['type'] === 'session_close' && m['session_id'] === sessionIds()[0] && die !== 0))
      .map(({ m }) => m)
  );
}

/** Structures that attack the parser: depth, prototypes, size. */
const hostileText = fc.oneof(
  fc.integer({ min: 30, max: 20_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
  fc.integer({ min: 30, max: 5_000 }).map((n) => `{"protocol":"aicc/0.1","type":"tool_call","input":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`),
  fc.constantFrom(
    '{"protocol":"aicc/0.1","type":"tool_call","__proto__":{"polluted":1}}',
    '{"protocol":"aicc/0.1","type":"tool_call","input":{"constructor":{"prototype":{"polluted":1}}}}',
    '{"protocol":"aicc/0.1","type":"tool_call","input":{"__proto__":{"x":1}}}',
    '{"protocol":"aicc/0.1","type":"heartbeat","manifest_update":{"__proto__":null}}',
    'null',
    'true',
    '0',
    '""',
    '[]',
    '{}',
    '{',
    '\uFEFF{}',
    '{"a":1}{"b":2}',
    '\u0000',
  ),
  fc.integer({ min: 256 * 1024 - 64, max: 256 * 1024 + 64 }).map((n) => `{"protocol":"aicc/0.1","type":"heartbeat","pad":"${'x'.repeat(n)}"}`),
);

/** JSON text frames: near-valid messages as JSON, cut or corrupted, or text that attacks the parser. */
export function jsonFrames(sessionIds: () => string[], prefixes?: string[]): fc.Arbitrary<string | Uint8Array> {
  const message = nearValidMessage(sessionIds, prefixes).map((m) => JSON.stringify(m));
  return fc.oneof(
    { weight: 12, arbitrary: message },
    { weight: 2, arbitrary: fc.tuple(message, fc.nat()).map(([text, n]) => text.slice(0, n % (text.length + 1))) },
    {
      weight: 2,
      arbitrary: fc.tuple(message, fc.nat(), fc.string({ minLength: 1, maxLength: 3 })).map(([text, n, junk]) => {
        const at = n % (text.length + 1);
        return text.slice(0, at) + junk + text.slice(at + 1);
      }),
    },
    { weight: 1, arbitrary: hostileText },
    { weight: 1, arbitrary: fc.string({ unit: 'binary' }) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }) },
  );
}

/** Binary frames: near-valid messages encoded, with bytes flipped, cut or appended, and garbage. */
export function binaryFrames(sessionIds: () => string[], prefixes?: string[]): fc.Arbitrary<string | Uint8Array> {
  const encoded = nearValidMessage(sessionIds, prefixes).map((m) => {
    try {
      return binaryCodec.encode(m as unknown as AiccMessage) as Uint8Array;
    } catch {
      return new TextEncoder().encode(JSON.stringify(m)); // not encodable: garbage to a binary link
    }
  });
  return fc.oneof(
    { weight: 10, arbitrary: encoded },
    {
      weight: 4,
      arbitrary: fc.tuple(encoded, fc.nat(), fc.integer({ min: 0, max: 255 })).map(([bytes, n, b]) => {
        const copy = new Uint8Array(bytes);
        if (copy.length > 0) copy[n % copy.length] = b;
        return copy;
      }),
    },
    { weight: 2, arbitrary: fc.tuple(encoded, fc.nat()).map(([bytes, n]) => bytes.slice(0, n % (bytes.length + 1))) },
    {
      weight: 1,
      arbitrary: fc.tuple(encoded, fc.uint8Array({ minLength: 1, maxLength: 8 })).map(([bytes, tail]) => {
        const out = new Uint8Array(bytes.length + tail.length);
        out.set(bytes);
        out.set(tail, bytes.length);
        return out;
      }),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }) },
    { weight: 1, arbitrary: fc.string() },
  );
}

/** Draws `count` values from `arbitrary`, reproducibly from `seed` and the batch number. */
export function draw<T>(arbitrary: fc.Arbitrary<T>, seed: number, batch: number, count: number): T[] {
  return fc.sample(arbitrary, { seed: (seed * 7919 + batch) | 0, numRuns: count });
}
