// Contacts on a PixiJS stage as `collision` events: a character's bounds overlapping another
// character's or an object's. Tracked per pair, so agents hear `begin` the frame a pair starts to
// overlap and `end` the frame it stops — not a report every frame they touch.

import type { Box } from '../shared/plane.js';
import { type BodyRegistry, boxOf, type PixiBody } from './bodies.js';

export interface Contact {
  /** The pair, a < b. */
  a: string;
  b: string;
  phase: 'begin' | 'end';
  /** Where: the middle of the pair's overlap when it began, or of the two bodies when it ended. */
  x: number;
  y: number;
}

export class Contacts {
  /** Pairs overlapping as of the last frame, by "a\nb". */
  private readonly touching = new Map<string, { a: string; b: string }>();

  constructor(
    private readonly bodies: BodyRegistry,
    private readonly onContact: (contact: Contact) => void,
  ) {}

  /** The pairs overlapping as of the last update, each [a, b] with a < b, in order. */
  pairs(): Array<[string, string]> {
    return [...this.touching.values()]
      .map(({ a, b }): [string, string] => [a, b])
      .sort(([a1, b1], [a2, b2]) => (a1 < a2 ? -1 : a1 > a2 ? 1 : b1 < b2 ? -1 : 1));
  }

  /** One frame: compares every character with every other character and object. */
  update(): void {
    const boxes = new Map<PixiBody, Box>();
    for (const body of this.bodies.all()) if (body.role !== 'obstacle' && body.node !== undefined) boxes.set(body, boxOf(body));
    const now = new Map<string, { a: string; b: string; x: number; y: number }>();
    const entries = [...boxes];
    for (let i = 0; i < entries.length; i++) {
      const [one, first] = entries[i]!;
      for (let j = i + 1; j < entries.length; j++) {
        const [two, second] = entries[j]!;
        // Objects lying on objects are scenery's business: a contact needs a character in it.
        if (one.role !== 'character' && two.role !== 'character') continue;
        const overlap = intersection(first, second);
        if (overlap === undefined) continue;
        const [a, b] = one.id < two.id ? [one.id, two.id] : [two.id, one.id];
        now.set(`${a}\n${b}`, { a, b, ...overlap });
      }
    }
    for (const [key, pair] of now)
      if (!this.touching.has(key)) {
        this.touching.set(key, { a: pair.a, b: pair.b });
        this.onContact({ ...pair, phase: 'begin' });
      }
    for (const [key, { a, b }] of [...this.touching])
      if (!now.has(key)) {
        this.touching.delete(key);
        const [p, q] = [this.bodies.get(a), this.bodies.get(b)];
        const mid = p?.node !== undefined && q?.node !== undefined ? { x: (p.node.x + q.node.x) / 2, y: (p.node.y + q.node.y) / 2 } : { x: 0, y: 0 };
        this.onContact({ a, b, phase: 'end', x: Math.round(mid.x), y: Math.round(mid.y) });
      }
  }

  /** Forgets a body's contacts without a word (it left the stage). */
  forget(id: string): void {
    for (const [key, { a, b }] of [...this.touching]) if (a === id || b === id) this.touching.delete(key);
  }

  clear(): void {
    this.touching.clear();
  }
}

/** The centre of two rectangles' overlap, rounded, or undefined when they do not overlap (touching edges do not count). */
function intersection(p: Box, q: Box): { x: number; y: number } | undefined {
  const left = Math.max(p.x, q.x);
  const right = Math.min(p.x + p.width, q.x + q.width);
  const top = Math.max(p.y, q.y);
  const bottom = Math.min(p.y + p.height, q.y + q.height);
  if (left >= right || top >= bottom) return undefined;
  return { x: Math.round((left + right) / 2), y: Math.round((top + bottom) / 2) };
}
