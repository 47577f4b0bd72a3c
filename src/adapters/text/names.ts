// How agents name things and directions, and how the world writes names back. Agents say "the apple", "Apple" or
// "red_apple"; all of them should reach the same item, and an ambiguous name should be refused with
// the candidates listed rather than silently resolved to one of them.

import { ToolError } from '../../base/errors.js';

/** Ids of rooms, items and characters: lowercase snake_case, so an agent can type them back. */
export const ID_PATTERN = /^[a-z][a-z0-9_]*$/;

const ARTICLES = new Set(['the', 'a', 'an', 'some', 'my', 'your']);

/** Lowercase words with articles and punctuation removed: "The  Red_Apple!" → ["red", "apple"]. */
export function words(text: string): string[] {
  const all = text
    .toLowerCase()
    .replace(/[_-]/g, ' ')
    .replace(/[^\p{L}\p{N} ]/gu, ' ')
    .split(' ')
    .filter((word) => word.length > 0);
  // An article is dropped only in front, so "a" still matches in the middle of "note about a key".
  while (all.length > 1 && ARTICLES.has(all[0]!)) all.shift();
  return all;
}

export interface Nameable {
  readonly id: string;
  readonly name: string;
}

/** The outcome of resolving a name: one match, none, or several equally good ones. */
export type Match<T> = { kind: 'one'; found: T } | { kind: 'none' } | { kind: 'many'; candidates: T[] };

/**
 * Resolves what an agent typed against candidates, best tier first: the exact id, then the whole
 * name (or an alias such as a role), then every typed word appearing in the name. The first tier
 * with a match decides; several matches in it are ambiguous.
 */
export function resolve<T extends Nameable>(ref: string, candidates: readonly T[], aliases: (candidate: T) => readonly string[] = () => []): Match<T> {
  const typed = ref.trim().toLowerCase();
  const wanted = words(ref);
  if (wanted.length === 0) return { kind: 'none' };
  const joined = wanted.join(' ');
  const tiers: Array<(candidate: T) => boolean> = [
    (c) => c.id === typed || c.id === wanted.join('_'),
    (c) => [c.name, ...aliases(c)].some((name) => words(name).join(' ') === joined),
    (c) => [c.name, ...aliases(c)].some((name) => containsAll(words(name), wanted)),
  ];
  for (const tier of tiers) {
    const hits = candidates.filter(tier);
    if (hits.length === 1) return { kind: 'one', found: hits[0]! };
    if (hits.length > 1) return { kind: 'many', candidates: hits };
  }
  return { kind: 'none' };
}

/** The one match, undefined for none, or a ToolError listing the candidates for several. */
export function onlyMatch<T extends Nameable>(ref: string, match: Match<T>): T | undefined {
  if (match.kind === 'one') return match.found;
  if (match.kind === 'none') return undefined;
  throw new ToolError(`"${ref}" could mean ${listWithIds(match.candidates)}; name one by its id`);
}

/** Short forms agents often type; used only when the room has no exit by that literal name. */
const ABBREVIATIONS: Readonly<Record<string, string>> = {
  n: 'north',
  s: 'south',
  e: 'east',
  w: 'west',
  u: 'up',
  d: 'down',
  ne: 'northeast',
  nw: 'northwest',
  se: 'southeast',
  sw: 'southwest',
};

/** The exit an agent means by `typed` ("North", "the north", "n"), if the room has it. */
export function exitFor(typed: string, exits: ReadonlyMap<string, string>): string | undefined {
  const way = words(typed).join('_');
  if (exits.has(way)) return way;
  const long = ABBREVIATIONS[way];
  return long !== undefined && exits.has(long) ? long : undefined;
}

function containsAll(have: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((word) => have.includes(word));
}

/**
 * A name as it reads inside a sentence: "lantern" → "the lantern", "The Mill" → "the Mill", while
 * proper names ("Mira", "Old Mill") and names with their own article ("a note") stay as written.
 */
export function the(name: string): string {
  if (/^(the|a|an|some)\s/i.test(name)) return name.charAt(0).toLowerCase() + name.slice(1);
  if (/^\p{Lu}/u.test(name)) return name;
  return `the ${name}`;
}

/** "north, west", or "none" for an empty list: error messages always say what there is. */
export function listOf(names: readonly string[]): string {
  return names.length === 0 ? 'none' : names.join(', ');
}

/** "Red apple (red_apple), Green apple (green_apple)": lets an agent pick one by id. */
export function listWithIds(things: readonly Nameable[]): string {
  return things.map((thing) => `${thing.name} (${thing.id})`).join(', ');
}

/** "Mira (miller)", or just "Mira". */
export function withRole(character: { name: string; role?: string }): string {
  return character.role === undefined ? character.name : `${character.name} (${character.role})`;
}
