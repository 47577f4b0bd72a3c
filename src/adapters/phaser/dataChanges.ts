// Data Manager changes as `state_change` events. Phaser emits `setdata` (a new key) and
// `changedata` (a new value for a key) on the game object itself, so listening needs no Data
// Manager to exist yet. Only JSON goes on the wire: values that are not plain data (a game object,
// a function, a cycle, a too-deep or too-large structure) are counted, not sent.

import type * as Phaser from 'phaser';
import type { Measure } from './meter.js';

export interface DataChange {
  entity: string;
  field: string;
  value: unknown;
  /** Absent for a key set for the first time. */
  previous?: unknown;
}

/** Bounds of a value forwarded from a Data Manager. */
export const DATA_VALUE_LIMITS = { maxDepth: 4, maxEntries: 64, maxStringLength: 1000 } as const;

/** Not JSON, or past DATA_VALUE_LIMITS. */
const UNFIT = Symbol('unfit');

/** A copy of `value` as plain JSON within DATA_VALUE_LIMITS, or undefined when it is not fit to send. */
export function jsonValue(value: unknown): { value: unknown } | undefined {
  const copy = toJson(value, 0);
  return copy === UNFIT ? undefined : { value: copy };
}

function toJson(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
      return value.length <= DATA_VALUE_LIMITS.maxStringLength ? value : UNFIT;
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : UNFIT;
    case 'object': {
      if (value === null) return null;
      if (depth >= DATA_VALUE_LIMITS.maxDepth) return UNFIT;
      if (Array.isArray(value)) {
        if (value.length > DATA_VALUE_LIMITS.maxEntries) return UNFIT;
        const out: unknown[] = [];
        for (const item of value) {
          const copy = toJson(item, depth + 1);
          if (copy === UNFIT) return UNFIT;
          out.push(copy);
        }
        return out;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return UNFIT;
      const entries = Object.entries(value);
      if (entries.length > DATA_VALUE_LIMITS.maxEntries) return UNFIT;
      const out: Record<string, unknown> = {};
      for (const [key, item] of entries) {
        if (key === '__proto__') return UNFIT;
        const copy = toJson(item, depth + 1);
        if (copy === UNFIT) return UNFIT;
        out[key] = copy;
      }
      return out;
    }
    default:
      return UNFIT;
  }
}

type Listener = (...args: unknown[]) => void;

/** Listens to the data events of game objects and hands each change, as JSON, to `forward`. */
export class DataChanges {
  private readonly hooked = new Map<Phaser.Events.EventEmitter, { set: Listener; change: Listener }>();
  /** Changes not forwarded because their value was not plain JSON within DATA_VALUE_LIMITS. */
  unfit = 0;

  constructor(
    private readonly forward: (change: DataChange) => void,
    private readonly measure: Measure = (work) => work(),
  ) {}

  get size(): number {
    return this.hooked.size;
  }

  /** Forwards the data changes of `emitter` (a game object, or a scene's events) as `entity`. */
  hook(emitter: Phaser.Events.EventEmitter, entity: string): void {
    if (this.hooked.has(emitter)) return;
    // setdata: (parent, key, value); changedata: (parent, key, value, previous).
    const set: Listener = (_parent, key, value) => this.measure(() => this.send(entity, key, value, undefined, false));
    const change: Listener = (_parent, key, value, previous) => this.measure(() => this.send(entity, key, value, previous, true));
    emitter.on('setdata', set);
    emitter.on('changedata', change);
    this.hooked.set(emitter, { set, change });
  }

  unhook(emitter: Phaser.Events.EventEmitter): void {
    const listeners = this.hooked.get(emitter);
    if (listeners === undefined) return;
    emitter.off('setdata', listeners.set);
    emitter.off('changedata', listeners.change);
    this.hooked.delete(emitter);
  }

  clear(): void {
    for (const emitter of [...this.hooked.keys()]) this.unhook(emitter);
  }

  private send(entity: string, key: unknown, value: unknown, previous: unknown, hasPrevious: boolean): void {
    const now = jsonValue(value);
    const before = hasPrevious ? jsonValue(previous) : undefined;
    if (typeof key !== 'string' || now === undefined) {
      this.unfit++;
      return;
    }
    const change: DataChange = { entity, field: key, value: now.value };
    // A previous value that is not fit to send is left out rather than costing the change.
    if (before !== undefined) change.previous = before.value;
    this.forward(change);
  }
}
