// Arcade physics contacts as `collision` events. Arcade calls a collider back on every physics step
// while two bodies touch; agents want to hear when a contact begins and when it ends. So contacts
// are tracked per pair: `begin` the first step a pair touches, `end` once it has not touched for
// `graceSteps` steps AND its bodies are then more than `gapPx` apart. Steps alone do not tell a
// resting contact from a parting: Arcade separates a body pushed against a crate and stops it, and
// it touches again only when pushed again — a walk re-aims every ~100 ms, so a push into a static
// crate flapped begin/end seven times before it gave up. Bodies still within the gap are still in
// contact, however long since Arcade last reported them.

import type * as Phaser from 'phaser';
import type { Measure } from './meter.js';

export type ContactKind = 'collide' | 'overlap';

export interface Contact {
  a: string;
  b: string;
  kind: ContactKind;
  phase: 'begin' | 'end';
  /** Midpoint of the two objects when the contact began, or where they were last seen touching. */
  x: number;
  y: number;
}

interface Touching {
  a: string;
  b: string;
  kind: ContactKind;
  /** The step it last touched, or was last found within the gap. */
  lastStep: number;
  x: number;
  y: number;
  /** The two game objects, to measure the gap between their bodies once touches stop. */
  one: unknown;
  two: unknown;
}

type Named = (object: unknown) => string | undefined;
type Callback = Phaser.Types.Physics.Arcade.ArcadePhysicsCallback;

export class Contacts {
  private readonly touching = new Map<string, Touching>();
  private readonly colliders = new Set<Phaser.Physics.Arcade.Collider>();
  private world: Phaser.Physics.Arcade.World | undefined;
  private step = 0;
  /** Contacts not tracked because `maxPairs` were already touching. */
  dropped = 0;

  private readonly onCollide = (a: unknown, b: unknown): void => this.measure(() => this.touch('collide', a, b));
  private readonly onOverlap = (a: unknown, b: unknown): void => this.measure(() => this.touch('overlap', a, b));
  private readonly onStep = (): void => this.measure(() => this.stepped());

  constructor(
    private readonly name: Named,
    private readonly emit: (contact: Contact) => void,
    private readonly graceSteps: number,
    private readonly maxPairs: number,
    private readonly gapPx: number,
    private readonly measure: Measure = (work) => work(),
  ) {}

  get size(): number {
    return this.touching.size;
  }

  /**
   * Listens to the world: its steps, and the `collide` / `overlap` events it fires for bodies with
   * `onCollide` / `onOverlap` set (colliders the game made itself).
   */
  attach(world: Phaser.Physics.Arcade.World): void {
    this.world = world;
    world.on('collide', this.onCollide);
    world.on('overlap', this.onOverlap);
    world.on('worldstep', this.onStep);
  }

  /** A collider whose contacts are forwarded; `callback` (the game's own) runs after. */
  collider(
    physics: Phaser.Physics.Arcade.ArcadePhysics,
    kind: ContactKind,
    a: Phaser.Types.Physics.Arcade.ArcadeColliderType,
    b: Phaser.Types.Physics.Arcade.ArcadeColliderType,
    callback?: Callback,
  ): Phaser.Physics.Arcade.Collider {
    const forward: Callback = (one, two) => {
      this.measure(() => this.touch(kind, one, two));
      callback?.(one, two);
    };
    const collider = kind === 'collide' ? physics.add.collider(a, b, forward) : physics.add.overlap(a, b, forward);
    this.colliders.add(collider);
    return collider;
  }

  /** Unhooks from the world and destroys the colliders made here; forgets every contact, silently. */
  detach(): void {
    const world = this.world;
    if (world !== undefined) {
      world.off('collide', this.onCollide);
      world.off('overlap', this.onOverlap);
      world.off('worldstep', this.onStep);
    }
    for (const collider of this.colliders) {
      // The world may have gone first (scene shutdown order); a collider knows its world.
      if ((collider as { world?: unknown }).world != null) collider.destroy();
    }
    this.colliders.clear();
    this.touching.clear();
    this.world = undefined;
  }

  touch(kind: ContactKind, one: unknown, two: unknown): void {
    const first = this.name(one);
    const second = this.name(two);
    // Unregistered objects have no id an agent could use: their contacts are not forwarded.
    if (first === undefined || second === undefined || first === second) return;
    const [a, b] = first < second ? [first, second] : [second, first];
    const key = `${kind}\u0000${a}\u0000${b}`;
    const at = midpoint(one, two);
    const known = this.touching.get(key);
    if (known !== undefined) {
      known.lastStep = this.step;
      known.x = at.x;
      known.y = at.y;
      known.one = one;
      known.two = two;
      return;
    }
    if (this.touching.size >= this.maxPairs) {
      this.dropped++;
      return;
    }
    this.touching.set(key, { a, b, kind, lastStep: this.step, ...at, one, two });
    this.emit({ a, b, kind, phase: 'begin', ...at });
  }

  /**
   * After a physics step: a contact not renewed for `graceSteps` steps has ended if its bodies are
   * more than `gapPx` apart; within it, it goes on and is looked at again `graceSteps` steps later
   * (so a resting contact costs one measurement per `graceSteps` steps).
   */
  stepped(): void {
    for (const [key, contact] of this.touching) {
      if (this.step - contact.lastStep < this.graceSteps) continue;
      // Still close, and both still registered (one the game removed has no contacts to keep).
      if (bodyGap(contact.one, contact.two) <= this.gapPx && this.name(contact.one) !== undefined && this.name(contact.two) !== undefined) {
        contact.lastStep = this.step;
        continue;
      }
      this.touching.delete(key);
      this.emit({ a: contact.a, b: contact.b, kind: contact.kind, phase: 'end', x: contact.x, y: contact.y });
    }
    this.step++;
  }
}

/** An Arcade body (dynamic or static) as the gap reads it; Phaser 3.60+ and 4 share these. */
interface BodyLike {
  enable?: boolean;
  x: number;
  y: number;
  width: number;
  height: number;
  isCircle?: boolean;
  radius?: number;
  center?: { x: number; y: number };
}

/**
 * The empty space between two game objects' bodies, px: circles as circles, anything else by its
 * box; 0 when they touch or overlap. Infinity when either has no enabled body (destroyed, disabled).
 */
export function bodyGap(one: unknown, two: unknown): number {
  const p = (one as { body?: BodyLike | null } | null)?.body;
  const q = (two as { body?: BodyLike | null } | null)?.body;
  if (p == null || q == null || p.enable === false || q.enable === false) return Infinity;
  if (p.isCircle === true && q.isCircle === true && p.center !== undefined && q.center !== undefined) {
    return Math.max(0, Math.hypot(p.center.x - q.center.x, p.center.y - q.center.y) - (p.radius ?? 0) - (q.radius ?? 0));
  }
  const dx = Math.max(0, p.x - (q.x + q.width), q.x - (p.x + p.width));
  const dy = Math.max(0, p.y - (q.y + q.height), q.y - (p.y + p.height));
  return Math.hypot(dx, dy);
}

function midpoint(one: unknown, two: unknown): { x: number; y: number } {
  const p = one as { x?: number; y?: number };
  const q = two as { x?: number; y?: number };
  return { x: Math.round(((p.x ?? 0) + (q.x ?? 0)) / 2), y: Math.round(((p.y ?? 0) + (q.y ?? 0)) / 2) };
}
