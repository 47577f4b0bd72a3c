import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SequencedIds, randomUuid, sequenceOfId } from '../../src/protocol/ids.js';

const schema = JSON.parse(readFileSync(new URL('../../schemas/aicc.schema.json', import.meta.url), 'utf8')) as {
  $defs: { uuid: { pattern: string } };
};
const SCHEMA_UUID = new RegExp(schema.$defs.uuid.pattern);
const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UUID_8_4_4_4_12 = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('randomUuid', () => {
  it('is a lowercase version 4 UUID with the RFC 4122 variant', () => {
    for (let i = 0; i < 200; i++) expect(randomUuid()).toMatch(V4);
  });

  it("matches the schema's uuid pattern", () => {
    for (let i = 0; i < 200; i++) expect(randomUuid()).toMatch(SCHEMA_UUID);
  });

  it('is unique over 1000 draws', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => randomUuid()));
    expect(ids.size).toBe(1000);
  });
});

describe('SequencedIds', () => {
  it('reads back the sequence number of each id it made', () => {
    const ids = new SequencedIds();
    for (const sequence of [0, 1, 2, 15, 16, 255, 4096, 1_000_000, 2 ** 32, 2 ** 48 - 1]) {
      expect(ids.sequenceOf(ids.idOf(sequence))).toBe(sequence);
    }
  });

  it('makes ids that are UUIDs (8-4-4-4-12 lowercase hex) matching the schema pattern', () => {
    const ids = new SequencedIds();
    for (const sequence of [0, 1, 99, 2 ** 48 - 1]) {
      const id = ids.idOf(sequence);
      expect(id).toMatch(UUID_8_4_4_4_12);
      expect(id).toMatch(SCHEMA_UUID);
    }
  });

  it('makes the same id for a sequence whatever it made before (across runs of 4,096, and back)', () => {
    const ids = new SequencedIds();
    const spelled = (sequence: number) => ids.prefix + sequence.toString(16).padStart(12, '0');
    for (const sequence of [4095, 4096, 4097, 1, 8191, 8192, 4096, 2 ** 31, 2 ** 31 + 4095, 2 ** 40 + 7, 5, 2 ** 48 - 1]) {
      expect(ids.idOf(sequence), String(sequence)).toBe(spelled(sequence));
    }
  });

  it('puts the sequence in the last 12 hex digits, after a fixed prefix', () => {
    const ids = new SequencedIds();
    expect(ids.prefix).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-$/);
    expect(ids.idOf(1)).toBe(`${ids.prefix}000000000001`);
    expect(ids.idOf(0xabc)).toBe(`${ids.prefix}000000000abc`);
  });

  it('marks its ids as version 8 UUIDs with the RFC 4122 variant', () => {
    const id = new SequencedIds().idOf(7);
    expect(id[14]).toBe('8');
    expect('89ab').toContain(id[19]);
  });

  it('uses a different random prefix for each stream', () => {
    const prefixes = new Set(Array.from({ length: 100 }, () => new SequencedIds().prefix));
    expect(prefixes.size).toBe(100);
  });

  it('draws its prefix from the random source it is given, as a version 8 UUID', () => {
    const ids = new SequencedIds((target) => target.fill(0xab));
    expect(ids.idOf(5)).toBe('abababab-abab-8bab-abab-000000000005');
    expect(ids.sequenceOf('abababab-abab-8bab-abab-000000000005')).toBe(5);
  });

  it('makes reproducible uuids from a seeded source', () => {
    let n = 0;
    const counting = (target: Uint8Array) => target.forEach((_, i) => (target[i] = n++ & 0xff));
    expect(randomUuid(counting)).toBe('00010203-0405-4607-8809-0a0b0c0d0e0f');
  });

  it('gives undefined for a foreign id', () => {
    const ids = new SequencedIds();
    expect(ids.sequenceOf(randomUuid())).toBeUndefined();
    expect(ids.sequenceOf('')).toBeUndefined();
    expect(ids.sequenceOf('not an id')).toBeUndefined();
  });

  it("gives undefined for another stream's id", () => {
    const mine = new SequencedIds();
    const theirs = new SequencedIds();
    expect(mine.sequenceOf(theirs.idOf(3))).toBeUndefined();
  });

  it('gives undefined for an id of its stream with a digit too many or too few', () => {
    const ids = new SequencedIds();
    expect(ids.sequenceOf(`${ids.idOf(3)}0`)).toBeUndefined();
    expect(ids.sequenceOf(ids.idOf(3).slice(0, -1))).toBeUndefined();
  });

  it('gives undefined when the last 12 characters are not hex', () => {
    const ids = new SequencedIds();
    expect(ids.sequenceOf(`${ids.prefix}zzzzzzzzzzzz`)).toBeUndefined();
  });

  it('reads its ids case-insensitively', () => {
    const ids = new SequencedIds();
    expect(ids.sequenceOf(ids.idOf(0xbeef).toUpperCase())).toBe(0xbeef);
  });
});

describe('sequenceOfId', () => {
  it('reads the sequence number from the last 12 hex digits of any sequenced id', () => {
    const ids = new SequencedIds();
    expect(sequenceOfId(ids.idOf(0))).toBe(0);
    expect(sequenceOfId(ids.idOf(42))).toBe(42);
    expect(sequenceOfId(ids.idOf(2 ** 48 - 1))).toBe(2 ** 48 - 1);
  });

  it('reads uppercase ids too', () => {
    expect(sequenceOfId('01234567-89AB-8CDE-8F01-0000000000FF')).toBe(255);
  });
});
