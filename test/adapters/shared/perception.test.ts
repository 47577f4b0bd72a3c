// The shared perception over a port of plain records: what every engine's nearby and in_view rely on.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type PerceptionPort, survey, within } from '../../../src/adapters/shared/perception.js';

type Body = { id: string; kind: string; x: number };

/** Bodies on a line: the distance is how far apart their x are. Fresh records each call, as a text world's are. */
function portOf(bodies: readonly Body[]): PerceptionPort<Body> {
  return {
    bodies: () => bodies.map((body) => ({ ...body })),
    idOf: (body) => body.id,
    kindOf: (body) => body.kind,
    distancesFrom: (from) => (to) => Math.abs(to.x - from.x),
  };
}

const me: Body = { id: 'me', kind: 'person', x: 0 };
const world = [me, { id: 'b', kind: 'apple', x: 3 }, { id: 'a', kind: 'apple', x: -3 }, { id: 'c', kind: 'rock', x: 1 }, { id: 'd', kind: 'apple', x: 9 }];

describe('within', () => {
  it('lists the others inside the radius, nearest first, ties by id, never the one who looks (by id)', () => {
    const { found, more } = within(portOf(world), { ...me }, 5, 10);
    expect(found.map(({ body, distance }) => [body.id, distance])).toEqual([
      ['c', 1],
      ['a', 3],
      ['b', 3],
    ]);
    expect(more).toBe(0);
  });

  it('keeps the nearest `limit`, counts the rest, and filters by kind', () => {
    expect(within(portOf(world), me, 100, 2)).toMatchObject({ found: [{ body: { id: 'c' } }, { body: { id: 'a' } }], more: 2 });
    expect(within(portOf(world), me, 100, 10, 'apple').found.map(({ body }) => body.id)).toEqual(['a', 'b', 'd']);
    expect(within(portOf(world), me, 100, 0)).toEqual({ found: [], more: 4 });
  });
});

describe('survey', () => {
  it('admits what the measure gives a distance, as a field of view would', () => {
    const ahead = survey(portOf(world), me, 10, undefined, (body) => (body.x > 0 ? body.x : undefined));
    expect(ahead.found.map(({ body }) => body.id)).toEqual(['c', 'b', 'd']);
  });

  it('returns what sorting everything and cutting would, for any bodies and limit', () => {
    const bodies = fc.uniqueArray(
      fc.record({ id: fc.string({ minLength: 1, maxLength: 3 }), kind: fc.constantFrom('x', 'y'), x: fc.integer({ min: -20, max: 20 }) }),
      {
        selector: (body) => body.id,
        maxLength: 30,
      },
    );
    fc.assert(
      fc.property(bodies, fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 25 }), (others, limit, radius) => {
        const all = [{ id: '', kind: 'x', x: 0 }, ...others.filter((body) => body.id !== '')];
        const expected = all
          .slice(1)
          .filter((body) => Math.abs(body.x) <= radius)
          .sort((p, q) => Math.abs(p.x) - Math.abs(q.x) || (p.id < q.id ? -1 : 1));
        const { found, more } = within(portOf(all), all[0]!, radius, limit);
        expect(found.map(({ body }) => body.id)).toEqual(expected.slice(0, limit).map((body) => body.id));
        expect(more).toBe(Math.max(0, expected.length - limit));
      }),
    );
  });
});
