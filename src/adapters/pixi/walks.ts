// Movement across frames: `move_to` sets a target and a speed, and every update takes each walker a
// stride toward it. A walk ends arrived, blocked (its next stride would enter an obstacle),
// replaced by a newer move, or stopped — and says where, so the walker's agent hears how it ended.

import { type Blocker, type Box, type Point2, segmentEntersBox } from '../shared/plane.js';
import type { PixiBody } from './bodies.js';

export type WalkEnd = 'arrived' | 'blocked' | 'replaced' | 'stopped';

export interface Walk {
  readonly id: string;
  readonly to: Point2;
  readonly speed: number;
}

interface ActiveWalk extends Walk {
  body: PixiBody;
}

export class Walks {
  private readonly active = new Map<string, ActiveWalk>();

  constructor(
    /** The obstacles' rectangles now: a stride into one ends the walk as blocked. */
    private readonly obstacles: () => readonly Blocker[],
    /** `blockedBy`: the obstacle a blocked walk ran into. */
    private readonly onEnd: (walk: Walk, reason: WalkEnd, at: Point2, blockedBy?: string) => void,
  ) {}

  get(id: string): Walk | undefined {
    return this.active.get(id);
  }

  /** Starts walking `body` (a character with a display object) to `to`; a walk under way ends as replaced. */
  start(body: PixiBody, to: Point2, speed: number): void {
    this.stop(body.id, 'replaced');
    const node = body.node!;
    if (to.x !== node.x || to.y !== node.y) body.facing = Math.atan2(to.y - node.y, to.x - node.x);
    this.active.set(body.id, { id: body.id, body, to: { x: to.x, y: to.y }, speed });
  }

  /** Ends a walk (if any) where the walker stands; false when there was none. */
  stop(id: string, reason: WalkEnd = 'stopped'): boolean {
    const walk = this.active.get(id);
    if (walk === undefined) return false;
    this.active.delete(id);
    this.onEnd(walk, reason, { x: walk.body.node!.x, y: walk.body.node!.y });
    return true;
  }

  /** Drops a walk without a word (its walker left the stage). */
  forget(id: string): void {
    this.active.delete(id);
  }

  clear(): void {
    this.active.clear();
  }

  /** One frame of `deltaMs`: every walker strides toward its target. */
  update(deltaMs: number): void {
    if (this.active.size === 0) return;
    const boxes = this.obstacles();
    for (const walk of [...this.active.values()]) {
      const node = walk.body.node!;
      const dx = walk.to.x - node.x;
      const dy = walk.to.y - node.y;
      const distance = Math.sqrt(dx * dx + dy * dy);
      const stride = (walk.speed * deltaMs) / 1000;
      const next = distance <= stride ? walk.to : { x: node.x + (dx / distance) * stride, y: node.y + (dy / distance) * stride };
      // The whole stride is tested, so a long frame cannot step over a thin wall; a walker already
      // inside an obstacle (placed there by the game) may walk out of it.
      let wall: { id: string; t: number } | undefined;
      for (const { id, box } of boxes) {
        const t = inside(node, box) ? undefined : segmentEntersBox(node, next, box);
        if (t !== undefined && (wall === undefined || t < wall.t)) wall = { id, t };
      }
      if (wall !== undefined) {
        // Up to the first wall's face, half a pixel short of it: flush, yet outside, so a walk away is free.
        const length = Math.min(distance, stride);
        const reach = length > 0 ? Math.max(0, wall.t * length - 0.5) / length : 0;
        node.x += (next.x - node.x) * reach;
        node.y += (next.y - node.y) * reach;
        this.active.delete(walk.id);
        this.onEnd(walk, 'blocked', { x: node.x, y: node.y }, wall.id);
        continue;
      }
      node.x = next.x;
      node.y = next.y;
      if (next === walk.to) {
        this.active.delete(walk.id);
        this.onEnd(walk, 'arrived', { x: node.x, y: node.y });
      }
    }
  }
}

function inside(p: Point2, box: Box): boolean {
  return p.x >= box.x && p.x <= box.x + box.width && p.y >= box.y && p.y <= box.y + box.height;
}
