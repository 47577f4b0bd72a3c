// Hostile JSON values both pi-client targets send (peersClient.ts, daemonClient.ts): odd numbers,
// odd strings, polluting keys, nesting past the limits, and placeholders a proxy fills in only as a
// record goes out (the request's own id, one still waiting, the secret), so that a value drawn
// before the run can still name what the run made.

import fc from 'fast-check';

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
  fc.constantFrom(
    -0,
    0.5,
    1.5,
    -1.5,
    1e21,
    1e308,
    -1e308,
    2 ** 63,
    2 ** 64,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 1,
  ),
  fc.double(),
  fc.constantFrom('1e400', '-1e400', '18446744073709551617', '9007199254740993', '1.0', '-0', '1E2', '0.0000001').map((text) => new Raw(text)),
);

/** Strings without the secret: odd, empty, non-BMP, lone surrogates, look-alikes of names, huge. */
export const plainText: fc.Arbitrary<string> = fc.oneof(
  { weight: 10, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '\u0000',
      '\n',
      '\r\n',
      '\u2028',
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'response',
      'hello',
      'event',
      'ж'.repeat(70),
      '😀'.repeat(40),
      '\u202e\u2066',
      '\ud800',
      'a'.repeat(600),
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 60_000 }).map((n) => 'ж'.repeat(n)) },
);

/** Hostile strings: plain ones, and some quoting the secret. */
export const hostileText: fc.Arbitrary<string | Quote> = fc.oneof(
  { weight: 5, arbitrary: plainText },
  { weight: 1, arbitrary: fc.tuple(plainText, plainText).map(([a, b]) => new Quote(a.slice(0, 40), b.slice(0, 40))) },
);

const keyText = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 12 }) },
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'token', 'id', 'type', SECRET_KEY),
);

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
    fc
      .constantFrom('{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}', '{"a":{"__proto__":null}}')
      .map((text) => JSON.parse(text) as unknown),
  ),
})).value;
