// Where the inspector keeps tool calls: the newest calls of everyone in one list (what the unfiltered
// panel shows), and each character's own recent calls in a ring of its own (what the character
// filter shows), so a character of a crowd keeps its history when the others' calls push it out of
// the shared list. A row can sit in both; it is forgotten once it has left both. Everything is
// bounded: the shared list at maxRows, each ring at callsPerCharacter, and the rings at maxRows
// characters, the least recently active dropped first.

import type { CallRow } from './rows.js';

/** A call row as the store holds it: the key its result is awaited under, and how many lists hold it. */
export interface HeldCall extends CallRow {
  readonly key: string;
  /** The lists holding it: 2 when added (the shared list and its character's ring), 0 when forgotten. */
  holders: number;
}

/** One character's recent calls, oldest first, and how many it made while the inspector watched. */
export interface CharacterCalls {
  readonly rows: readonly CallRow[];
  readonly total: number;
}

interface Ring {
  rows: HeldCall[];
  total: number;
}

export class CallStore {
  /** The newest calls of every character, oldest first. */
  readonly recent: HeldCall[] = [];
  /** By character, the least recently active first (a call moves its character to the end). */
  private readonly rings = new Map<string, Ring>();

  constructor(
    private readonly maxRows: number,
    private readonly perCharacter: number,
    /** Called with each row no list holds any more. */
    private readonly forgotten: (row: HeldCall) => void,
  ) {}

  add(row: HeldCall): void {
    row.holders = 2;
    this.recent.push(row);
    if (this.recent.length > this.maxRows) this.release(this.recent.shift()!);
    let ring = this.rings.get(row.character);
    if (ring === undefined) ring = { rows: [], total: 0 };
    else this.rings.delete(row.character);
    this.rings.set(row.character, ring);
    ring.rows.push(row);
    ring.total++;
    if (ring.rows.length > this.perCharacter) this.release(ring.rows.shift()!);
    if (this.rings.size > this.maxRows) {
      const [name, oldest] = this.rings.entries().next().value!;
      this.rings.delete(name);
      for (const dropped of oldest.rows) this.release(dropped);
    }
  }

  /** `character`'s calls kept, oldest first; undefined when none are. */
  of(character: string): CharacterCalls | undefined {
    return this.rings.get(character);
  }

  /** The characters whose calls are kept. */
  characters(): IterableIterator<string> {
    return this.rings.keys();
  }

  private release(row: HeldCall): void {
    if (--row.holders === 0) this.forgotten(row);
  }
}
