// Hostile WebSocket frames a page sends the gateway, shared by its three targets: odd strings and
// JSON, records nested past what a recursive serializer survives, frames that are not text (bytes,
// broken UTF-8, pings), and text around a size limit. Each protocol builds its own records from
// these (gatewayPeersFrames.ts, gatewayDaemon.ts).

import fc from 'fast-check';

/** One WebSocket message: text, binary, a "text" frame of bytes that are not UTF-8, or a ping. */
export type PageFrame = string | Uint8Array | { invalidUtf8: Uint8Array } | { ping: Uint8Array };

export const weird = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 40 }), // lone surrogates included
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '__proto__',
    'constructor',
    'toString',
    'hello',
    'token',
    'a\nb',
    'a\u2028b\u2029c',
    '\r\n',
    '\ud800',
    'ж'.repeat(60),
    '😀'.repeat(40),
    'x'.repeat(4000),
  ),
);
export const json = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(weird, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }));

/** `arbitrary` one time in `1 + rarity`, else undefined (a field left out: see dropUndefined). */
export function sometimes<T>(arbitrary: fc.Arbitrary<T>, rarity: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: rarity, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
}

export function dropUndefined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}

/** A record with `fields` and a value nested `depth` levels deep: deep enough, it breaks a recursive serializer. */
export function deepRecord(fields: string, depth: number, arrays: boolean): string {
  return arrays ? `{${fields},"deep":${'['.repeat(depth)}${']'.repeat(depth)}}` : `{${fields},"deep":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
}

/** Depths for deepRecord: shallow, about where a worker's stack gives out (~20,000), and far past it. */
export const depth = fc.oneof(fc.constantFrom(64, 1_000, 5_000, 20_000, 60_000, 150_000), fc.integer({ min: 10, max: 150_000 }));

/** Frames that are not records, shared by both protocols: bytes, broken UTF-8, pings. */
export const notText: fc.Arbitrary<PageFrame> = fc.oneof(
  fc.uint8Array({ maxLength: 64 }),
  fc.string({ maxLength: 80 }).map((text) => new TextEncoder().encode(text)), // text, in a binary frame
  fc
    .tuple(fc.uint8Array({ maxLength: 30 }), fc.integer({ min: 0x80, max: 0xff }))
    .map(([bytes, bad]) => ({ invalidUtf8: Uint8Array.from([...bytes.filter((b) => b < 0x80), bad, 0xff]) })),
  fc.uint8Array({ maxLength: 125 }).map((bytes) => ({ ping: bytes })),
);

/** Text frames of `size` bytes around `limit`: a record padded to size, or a run of letters. */
export function sizedFrame(limit: number, fields: string): fc.Arbitrary<string> {
  return fc.tuple(fc.integer({ min: limit - 300, max: limit + 300 }), fc.boolean()).map(([size, record]) => {
    if (!record) return 'x'.repeat(size);
    const head = `{${fields},"pad":"`;
    return `${head}${'p'.repeat(Math.max(0, size - head.length - 2))}"}`;
  });
}
