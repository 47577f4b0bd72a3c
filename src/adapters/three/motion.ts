// Smooth movement across frames: an object given a target position or heading approaches it at a
// speed, a little every frame (`step(dtMs)`), and the order's promise settles when it gets there —
// or says why it did not (replaced by a newer order, stopped, removed, the binding disposed).

import type { Vector3 } from 'three';
import { headingOf, wrapAngle } from './geometry.js';
import type { ObjectRegistry, Registered } from './objects.js';

/** How an order ended: `done` when the target was reached. */
export type MotionEnd = 'done' | 'replaced' | 'stopped' | 'removed' | 'disposed';

interface MoveOrder {
  /** In the parent's space: the object's `position` walks toward it. */
  target: Vector3;
  /** Units of the parent's space per second. */
  speed: number;
  finish: ((end: MotionEnd) => void) | undefined;
}

interface TurnOrder {
  /** `rotation.y` to reach, radians. */
  target: number;
  /** Radians per second. */
  speed: number;
  finish: ((end: MotionEnd) => void) | undefined;
}

interface Orders {
  move?: MoveOrder;
  turn?: TurnOrder;
}

/** Keeps one move and one turn per object (a newer order replaces the older), so it is bounded by the registry. */
export class Motion {
  private readonly orders = new Map<Registered, Orders>();
  private readonly stopListening: () => void;

  constructor(objects: ObjectRegistry) {
    this.stopListening = objects.onRemove((entry) => this.stop(entry, 'removed'));
  }

  /**
   * Walks `entry` to `worldTarget` at `speed` units/s. With `turnSpeed` (radians/s) it also turns to
   * face where it goes, at that speed; the move is done when the position is reached.
   */
  moveTo(entry: Registered, worldTarget: Vector3, speed: number, turnSpeed?: number, signal?: AbortSignal): Promise<MotionEnd> {
    const object = entry.object;
    const target = object.parent === null ? worldTarget.clone() : object.parent.worldToLocal(worldTarget.clone());
    const orders = this.ordersOf(entry);
    return new Promise((resolve) => {
      const move: MoveOrder = { target, speed, finish: undefined };
      move.finish = this.finisher(resolve, signal, () => {
        // The call gave up (timed out, its session closed): the walk ends where it is, unless a
        // newer order has taken over already.
        if (this.orders.get(entry)?.move === move) this.stop(entry, 'stopped');
      });
      orders.move?.finish?.('replaced');
      orders.move = move;
      if (turnSpeed === undefined) return;
      const dx = target.x - object.position.x;
      const dz = target.z - object.position.z;
      if (Math.hypot(dx, dz) < 1e-9) return;
      // The walk's own turn: replaces a pending turn_to, and has no promise of its own.
      orders.turn?.finish?.('replaced');
      orders.turn = { target: Math.atan2(dx, dz), speed: turnSpeed, finish: undefined };
    });
  }

  /** Turns `entry` to face `worldHeading` (radians) at `speed` radians/s, the shorter way round. */
  turnTo(entry: Registered, worldHeading: number, speed: number, signal?: AbortSignal): Promise<MotionEnd> {
    const parent = entry.object.parent;
    // Headings are about the world's up: subtract what the parent is turned by.
    const target = wrapAngle(worldHeading - (parent === null ? 0 : headingOf(parent)));
    const orders = this.ordersOf(entry);
    return new Promise((resolve) => {
      const turn: TurnOrder = { target, speed, finish: undefined };
      turn.finish = this.finisher(resolve, signal, () => {
        const current = this.orders.get(entry);
        if (current?.turn !== turn) return;
        delete current.turn;
        if (current.move === undefined) this.orders.delete(entry);
        turn.finish?.('stopped');
      });
      orders.turn?.finish?.('replaced');
      orders.turn = turn;
    });
  }

  /** Ends the object's move and turn where they are. False when it had neither. */
  stop(entry: Registered, end: MotionEnd = 'stopped'): boolean {
    const orders = this.orders.get(entry);
    if (orders === undefined) return false;
    this.orders.delete(entry);
    orders.move?.finish?.(end);
    orders.turn?.finish?.(end);
    return true;
  }

  isMoving(entry: Registered): boolean {
    return this.orders.get(entry)?.move !== undefined;
  }

  isTurning(entry: Registered): boolean {
    return this.orders.get(entry)?.turn !== undefined;
  }

  /** Objects with a move or turn under way. */
  get active(): number {
    return this.orders.size;
  }

  /** Advances every order by `dtMs` of game time. */
  step(dtMs: number): void {
    if (!(dtMs > 0) || this.orders.size === 0) return;
    const seconds = dtMs / 1000;
    for (const [entry, orders] of [...this.orders]) {
      const { move, turn } = orders;
      if (move !== undefined && advanceMove(entry, move, seconds)) {
        delete orders.move;
        move.finish?.('done');
      }
      if (turn !== undefined && orders.turn === turn && advanceTurn(entry, turn, seconds)) {
        delete orders.turn;
        turn.finish?.('done');
      }
      if (orders.move === undefined && orders.turn === undefined && this.orders.get(entry) === orders) this.orders.delete(entry);
    }
  }

  /** Ends every order with `disposed` and stops listening to the registry. */
  dispose(): void {
    this.stopListening();
    for (const entry of [...this.orders.keys()]) this.stop(entry, 'disposed');
  }

  /** Settles an order once; `abort` runs if the signal fires first, and the listener goes when it settles. */
  private finisher(resolve: (end: MotionEnd) => void, signal: AbortSignal | undefined, abort: () => void): (end: MotionEnd) => void {
    let settled = false;
    const finish = (end: MotionEnd): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', abort);
      resolve(end);
    };
    if (signal !== undefined) {
      if (signal.aborted) queueMicrotask(abort);
      else signal.addEventListener('abort', abort, { once: true });
    }
    return finish;
  }

  private ordersOf(entry: Registered): Orders {
    let orders = this.orders.get(entry);
    if (orders === undefined) this.orders.set(entry, (orders = {}));
    return orders;
  }
}

/** One frame of a move; true when it arrived. */
function advanceMove(entry: Registered, move: MoveOrder, seconds: number): boolean {
  const position = entry.object.position;
  const left = position.distanceTo(move.target);
  const stride = move.speed * seconds;
  if (left <= stride) {
    position.copy(move.target);
    return true;
  }
  position.lerp(move.target, stride / left);
  return false;
}

/** One frame of a turn; true when it faces its target. */
function advanceTurn(entry: Registered, turn: TurnOrder, seconds: number): boolean {
  const rotation = entry.object.rotation;
  const left = wrapAngle(turn.target - rotation.y);
  const stride = turn.speed * seconds;
  if (Math.abs(left) <= stride) {
    rotation.y = turn.target;
    return true;
  }
  rotation.y = wrapAngle(rotation.y + Math.sign(left) * stride);
  return false;
}
