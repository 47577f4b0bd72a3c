// `collision` events from the bounding volumes of registered objects. Each frame the volumes are
// measured and overlapping pairs found (sweep and prune along x, so spread-out worlds do not pay
// n² tests); a pair that starts touching is told once (`phase: 'begin'`), and once more when it
// parts (`phase: 'end'`), never every frame in between. Parting means more than `gap` apart: a
// resting contact under a physics engine (or a game that pushes a character back out of a crate)
// sits a hair in and a hair out frame after frame, and is still one contact.

import type { EventPayloads } from '../../runtime/events.js';
import { CapsuleError } from '../../base/errors.js';
import { gap, overlaps, type Volume } from './geometry.js';
import type { ObjectRegistry, Registered } from './objects.js';

export interface CollisionOptions {
  /** Also send `phase: 'end'` when a pair stops touching. Default true. */
  exits?: boolean;
  /** Who is told: `involved` — the sessions playing either object — or `all` subscribed sessions. Default 'involved'. */
  audience?: 'involved' | 'all';
  /**
   * A touching pair ends only once its volumes are more than this far apart (world units, a finite
   * number ≥ 0). Default 0.05: 5 cm in a scene in metres.
   */
  gap?: number;
}

const DEFAULT_CONTACT_GAP = 0.05;

export type CollisionPayload = EventPayloads['collision'] & { phase: 'begin' | 'end' };

/** Where a collision goes: the payload, and the characters to tell (undefined: everyone subscribed). */
export type CollisionSink = (payload: CollisionPayload, to: string[] | undefined) => void;

interface Measured {
  entry: Registered;
  volume: Volume;
  minX: number;
  maxX: number;
}

export class CollisionWatcher {
  /** Pairs touching as of the last step, by key; bounded by the registry (n(n-1)/2 at most). */
  private readonly touching = new Map<string, { a: string; b: string }>();
  private readonly exits: boolean;
  private readonly audience: 'involved' | 'all';
  private readonly contactGap: number;
  private readonly stopListening: () => void;

  constructor(
    private readonly objects: ObjectRegistry,
    private readonly sink: CollisionSink,
    options: CollisionOptions = {},
  ) {
    this.exits = options.exits ?? true;
    this.audience = options.audience ?? 'involved';
    this.contactGap = options.gap ?? DEFAULT_CONTACT_GAP;
    if (!(typeof this.contactGap === 'number' && Number.isFinite(this.contactGap) && this.contactGap >= 0)) {
      throw new CapsuleError(
        'AICC_INVALID_OPTION',
        `new CapsuleBinding: collisions.gap must be a finite number >= 0 (world units), got ${String(options.gap)}`,
      );
    }
    // A removed object's contacts are forgotten without an 'end': it left the world, it did not part.
    this.stopListening = objects.onRemove((entry) => {
      for (const [key, pair] of this.touching) if (pair.a === entry.id || pair.b === entry.id) this.touching.delete(key);
    });
  }

  /** The contacts under way (pairs touching, or not yet more than `gap` apart), each as [a, b] with a < b. */
  pairs(): Array<[string, string]> {
    return [...this.touching.values()].map(({ a, b }) => [a, b]);
  }

  /** Measures every colliding object and sends what began and ended since the last step. */
  step(): void {
    const measured: Measured[] = [];
    for (const entry of this.objects.entries()) {
      if (!entry.collides) continue;
      const volume = this.objects.volume(entry);
      const [minX, maxX] = volume.kind === 'box' ? [volume.box.min.x, volume.box.max.x] : [volume.center.x - volume.radius, volume.center.x + volume.radius];
      measured.push({ entry, volume, minX, maxX });
    }
    measured.sort((p, q) => p.minX - q.minX);

    const now = new Map<string, { a: string; b: string }>();
    for (let i = 0; i < measured.length; i++) {
      const first = measured[i]!;
      for (let j = i + 1; j < measured.length; j++) {
        const second = measured[j]!;
        // Sorted by minX: once one starts past first's end, every later one does too.
        if (second.minX > first.maxX) break;
        if (!overlaps(first.volume, second.volume)) continue;
        const [a, b] = first.entry.id < second.entry.id ? [first.entry.id, second.entry.id] : [second.entry.id, first.entry.id];
        now.set(`${a}\u0000${b}`, { a, b });
      }
    }

    this.keepClose(now, measured);

    const began: Array<{ a: string; b: string }> = [];
    const ended: Array<{ a: string; b: string }> = [];
    for (const [key, pair] of now) if (!this.touching.has(key)) began.push(pair);
    for (const [key, pair] of this.touching) if (!now.has(key)) ended.push(pair);
    this.touching.clear();
    for (const [key, pair] of now) this.touching.set(key, pair);

    for (const pair of began) this.tell(pair, 'begin');
    if (this.exits) for (const pair of ended) this.tell(pair, 'end');
  }

  dispose(): void {
    this.stopListening();
    this.touching.clear();
  }

  /** Pairs that touched last frame and no longer overlap go on while they are within `gap`. */
  private keepClose(now: Map<string, { a: string; b: string }>, measured: Measured[]): void {
    let byId: Map<string, Volume> | undefined;
    for (const [key, pair] of this.touching) {
      if (now.has(key)) continue;
      // Built only on frames where some contact is not overlapping; O(n), as measuring is anyway.
      byId ??= new Map(measured.map((m) => [m.entry.id, m.volume]));
      const a = byId.get(pair.a);
      const b = byId.get(pair.b);
      if (a !== undefined && b !== undefined && gap(a, b) <= this.contactGap) now.set(key, pair);
    }
  }

  private tell({ a, b }: { a: string; b: string }, phase: 'begin' | 'end'): void {
    this.sink({ a, b, phase }, this.audience === 'all' ? undefined : [a, b]);
  }
}
