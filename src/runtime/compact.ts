// A compact text notation for JSON values, for digests a model reads (the pilot) and panels a
// person reads (the inspector): bare keys, bare words, `{id, name}` references folded to one
// token, long strings and lists cut. It reads as easily as JSON in far fewer characters.

import { clip } from '../base/clip.js';

export interface CompactOptions {
  /** Longest string kept whole; longer ones end in "…". Default 240. */
  maxString?: number;
  /** Most array items shown; the rest are counted. Default 12. */
  maxItems?: number;
  /** Deeper values show as {…} or […]. Default 4. */
  maxDepth?: number;
  /** Longest result; longer ones are cut with "…". Default 800. */
  maxLength?: number;
  /** Replaces exact string values, e.g. the character's own id with "you". */
  alias?: ReadonlyMap<string, string>;
}

type Settings = Required<Omit<CompactOptions, 'alias'>> & { alias: ReadonlyMap<string, string> | undefined };

/** `value` in compact notation; a top-level object drops its braces. */
export function compact(value: unknown, options: CompactOptions = {}): string {
  const settings: Settings = {
    maxString: options.maxString ?? 240,
    maxItems: options.maxItems ?? 12,
    maxDepth: options.maxDepth ?? 4,
    maxLength: options.maxLength ?? 800,
    alias: options.alias,
  };
  return clip(render(value, settings, 0, true), settings.maxLength);
}

/** A string shown without quotes when that cannot be misread as structure or another type. */
const BARE = /^[^\s,;:{}[\]"'()=][^,;:{}[\]"()\n]*$/;
const NOT_BARE = /^(?:true|false|null|-?\d[\d.e+-]*)$|\s$/;

export function word(text: string, max = 240): string {
  const cut = clip(text, max);
  return BARE.test(cut) && !NOT_BARE.test(cut) ? cut : JSON.stringify(cut);
}

function render(value: unknown, settings: Settings, depth: number, top: boolean): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return word(settings.alias?.get(value) ?? value, settings.maxString);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (depth >= settings.maxDepth) return '[…]';
    const shown = value.slice(0, settings.maxItems).map((item) => render(item, settings, depth + 1, false));
    if (value.length > settings.maxItems) shown.push(`… +${value.length - settings.maxItems} more`);
    return `[${shown.join(', ')}]`;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    const reference = asReference(entries, settings);
    if (reference !== undefined) return reference;
    if (entries.length === 0) return '{}';
    if (depth >= settings.maxDepth) return '{…}';
    const body = entries.map(([key, v]) => `${word(key, 64)}: ${render(v, settings, depth + 1, false)}`).join(', ');
    return top ? body : `{${body}}`;
  }
  return word(String(value), settings.maxString);
}

/**
 * `{ id, name }` (plus at most two other plain fields) as one token: the id alone when the name
 * says the same (`red_apple`), else `name (id)`; other fields follow in the parentheses.
 */
function asReference(entries: Array<[string, unknown]>, settings: Settings): string | undefined {
  const fields = new Map(entries);
  const id = fields.get('id');
  const name = fields.get('name');
  if (typeof id !== 'string' || typeof name !== 'string') return undefined;
  const extras = entries.filter(([key]) => key !== 'id' && key !== 'name');
  if (extras.length > 2 || extras.some(([, v]) => typeof v === 'object' && v !== null)) return undefined;
  const shownId = settings.alias?.get(id) ?? id;
  const sameName = name.trim().toLowerCase().replace(/\s+/g, '_') === id.toLowerCase();
  const inside = [...(sameName ? [] : [word(shownId, 64)]), ...extras.map(([key, v]) => `${key}: ${render(v, settings, settings.maxDepth, false)}`)];
  const head = sameName ? word(shownId, 64) : word(name, 80);
  return inside.length === 0 ? head : `${head} (${inside.join(', ')})`;
}
