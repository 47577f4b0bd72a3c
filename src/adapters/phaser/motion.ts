// Movement across frames: a move tool sets a target and a speed, and every scene update takes each
// walker a step toward it — through its Arcade body's velocity when it has one (so colliders stop
// it), else by moving the object. A walk ends arrived, blocked (no progress for a while),
// replaced by a newer move, or stopped.

import type { Entity } from './entities.js';

export type StopReason = 'arrived' | 'blocked' | 'replaced' | 'stopped';

export interface Walk {
  readonly id: string;
  readonly toX: number;
  readonly toY: number;
  readonly speed: number;
}

interface ActiveWalk extends Walk {
  entity: Entity;
  /** Closest the walker has come to the target, and when (scene ms) it last got closer. */
  best: number;
  progressAt: number;
  /** A walker with a body is left to physics until then (scene ms): see update. */
  checkAt: number;
}

/** An Arcade body as movement uses it (Phaser 3.60+ and 4 share these). */
interface ArcadeBodyLike {
  setVelocity(x: number, y: number): unknown;
  readonly velocity?: { x: number; y: number };
  reset(x: number, y: number): unknown;
  moves?: boolean;
  enable?: boolean;
}

/** How close counts as there, px. */
const ARRIVE_PX = 1;
/** Longest a walker with a body goes unchecked while far from its target, ms. */
const CHECK_EVERY_MS = 100;
/** Frames of margin before the earliest arrival, when checks resume every frame. */
const ARRIVAL_MARGIN_FRAMES = 3;

export class Walks {
  private readonly active = new Map<string, ActiveWalk>();
  private time = 0;

  constructor(
    /** A walk that gets no closer for this long (scene ms) ends as blocked. */
    private readonly stuckAfterMs: number,
    private readonly onStop: (walk: Walk, reason: StopReason, at: { x: number; y: number }) => void,
  ) {}

  get size(): number {
    return this.active.size;
  }

  get(id: string): Walk | undefined {
    return this.active.get(id);
  }

  /** Starts walking `entity` to (x, y); a walk already under way ends as replaced. */
  start(entity: Entity, toX: number, toY: number, speed: number): void {
    this.stop(entity.id, 'replaced');
    const object = entity.object!;
    this.active.set(entity.id, {
      id: entity.id,
      entity,
      toX,
      toY,
      speed,
      best: distanceBetween(object.x, object.y, toX, toY),
      progressAt: this.time,
      checkAt: this.time,
    });
  }

  /** Ends a walk (if any) where the walker stands. */
  stop(id: string, reason: StopReason = 'stopped'): void {
    const walk = this.active.get(id);
    if (walk === undefined) return;
    this.active.delete(id);
    const object = walk.entity.object!;
    const body = bodyOf(walk.entity);
    if (body !== undefined) body.setVelocity(0, 0);
    this.onStop(walk, reason, { x: object.x, y: object.y });
  }

  /** Drops one walk without reporting it (its walker left the scene). */
  forget(id: string): void {
    const walk = this.active.get(id);
    if (walk === undefined) return;
    this.active.delete(id);
    bodyOf(walk.entity)?.setVelocity(0, 0);
  }

  /** Drops every walk without reporting it (the scene is going away). */
  clear(): void {
    for (const walk of this.active.values()) bodyOf(walk.entity)?.setVelocity(0, 0);
    this.active.clear();
  }

  /** One frame of `deltaMs`: every walker steps toward its target. */
  update(deltaMs: number): void {
    this.time += deltaMs;
    for (const walk of [...this.active.values()]) {
      if (walk.checkAt > this.time) continue;
      const object = walk.entity.object!;
      const dx = walk.toX - object.x;
      const dy = walk.toY - object.y;
      // Math.hypot guards against overflow nobody's scene reaches, at several times sqrt's cost per walker per frame.
      const distance = Math.sqrt(dx * dx + dy * dy);
      const stride = (walk.speed * deltaMs) / 1000;
      const body = bodyOf(walk.entity);
      // Without a body the last stride lands exactly; a body snaps the last half stride (invisible)
      // rather than risk overshooting when physics runs several steps in one frame.
      if (distance <= Math.max(ARRIVE_PX, body === undefined ? stride : stride / 2)) {
        if (body !== undefined) {
          body.reset(walk.toX, walk.toY);
        } else {
          object.x = walk.toX;
          object.y = walk.toY;
        }
        this.stop(walk.id, 'arrived');
        continue;
      }
      if (distance < walk.best - 0.5) {
        walk.best = distance;
        walk.progressAt = this.time;
      } else if (this.time - walk.progressAt >= this.stuckAfterMs) {
        this.stop(walk.id, 'blocked');
        continue;
      }
      if (body !== undefined) {
        // Slow down on the last stride so the body does not overshoot and orbit the target.
        const speed = Math.min(walk.speed, (distance * 1000) / Math.max(deltaMs, 1));
        const vx = (dx / distance) * speed;
        const vy = (dy / distance) * speed;
        // Set only when it changed (by more than 1 px/s): most frames of a walk it has not.
        const now = body.velocity;
        if (now === undefined || Math.abs(now.x - vx) > 1 || Math.abs(now.y - vy) > 1) body.setVelocity(vx, vy);
        // Physics carries it from here at its speed (a push from another body aside): look again a few
        // frames before it could first arrive, or after CHECK_EVERY_MS, whichever is sooner. Reading
        // every walker every frame was a seventh of the capsule's time in the 50-villager demo.
        const untilNear = (distance / walk.speed) * 1000 - ARRIVAL_MARGIN_FRAMES * Math.max(deltaMs, 1);
        walk.checkAt = this.time + Math.min(CHECK_EVERY_MS, Math.max(0, untilNear));
      } else {
        object.x += (dx / distance) * stride;
        object.y += (dy / distance) * stride;
      }
    }
  }
}

function distanceBetween(x1: number, y1: number, x2: number, y2: number): number {
  return Math.sqrt((x2 - x1) * (x2 - x1) + (y2 - y1) * (y2 - y1));
}

/** The walker's Arcade body, if it has a moving one. */
function bodyOf(entity: Entity): ArcadeBodyLike | undefined {
  const body = (entity.object as { body?: ArcadeBodyLike | null } | undefined)?.body;
  if (body == null || typeof body.setVelocity !== 'function' || body.moves === false || body.enable === false) return undefined;
  return body;
}
