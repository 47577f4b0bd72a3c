// The bodies of a PixiJS stage that agents perceive and move: characters (what sessions play),
// objects (what they find) and obstacles (what blocks sight and walking), each a display object of
// the game's — or, for an obstacle, a plain rectangle. Positions are the display objects' own x and y:
// the bodies share one parent (the world container), whose space is the agents'.

import type { Container } from 'pixi.js';
import { CapsuleError } from '../../base/errors.js';
import type { Box, Point2 } from '../shared/plane.js';

export type BodyRole = 'character' | 'object' | 'obstacle';

export interface PixiBody {
  readonly id: string;
  readonly role: BodyRole;
  /** The game's word for what it is ('villager', 'apple', 'wall'); agents read it. */
  readonly kind: string;
  /** The display object, when the body has one (an obstacle may be a bare rectangle). */
  readonly node: Container | undefined;
  /** A bare obstacle's rectangle. */
  readonly box: Box | undefined;
  /** Walking speed when a move names none, px/s. */
  readonly speed: number;
  /** The direction it last walked, radians (Math.atan2(dy, dx)): what `in_view` looks along. */
  facing: number;
}

export interface BodyOptions {
  /** Default 'character', 'object' or 'obstacle', as added. */
  kind?: string;
  /** A character's walking speed when a move names none, px/s. Default 120. */
  speed?: number;
  /** The direction a character faces before its first walk, degrees (0: +x, 90: +y, down the screen). Default 0. */
  facing?: number;
}

/** What agents may call a body: the ids the other tools take. */
export const BODY_ID = /^[A-Za-z0-9_-]{1,64}$/;
const KIND = /^[A-Za-z0-9_ -]{1,32}$/;
export const DEFAULT_SPEED = 120;
/** Most bodies a binding holds, unless told otherwise: perception walks them all on every call. */
export const DEFAULT_MAX_BODIES = 1024;

/** The bodies by id, in the order they were added; a destroyed display object leaves on its own. */
export class BodyRegistry {
  private readonly byId = new Map<string, PixiBody & { unhook: () => void }>();

  constructor(
    private readonly maxBodies: number,
    /** Told when a body leaves (removed, or its display object destroyed). */
    private readonly onRemove: (body: PixiBody) => void,
  ) {}

  add(where: string, id: string, role: BodyRole, target: Container | Box, options: BodyOptions = {}): PixiBody {
    if (typeof id !== 'string' || !BODY_ID.test(id)) fail(where, `id must match ${BODY_ID} (agents name bodies by it), got ${JSON.stringify(id)}`);
    if (this.byId.has(id)) fail(where, `there is a body "${id}" already; remove it first or choose another id`);
    if (this.byId.size >= this.maxBodies) fail(where, `the binding holds ${this.maxBodies} bodies (maxBodies); remove some or raise maxBodies`);
    const kind = options.kind ?? role;
    if (typeof kind !== 'string' || !KIND.test(kind)) fail(where, `kind must be 1–32 letters, digits, spaces, _ or -, got ${JSON.stringify(kind)}`);
    const speed = options.speed ?? DEFAULT_SPEED;
    if (!(Number.isFinite(speed) && speed > 0)) fail(where, `speed must be a finite number > 0 (px/s), got ${speed}`);
    const facing = options.facing ?? 0;
    if (!Number.isFinite(facing)) fail(where, `facing must be a finite number of degrees, got ${facing}`);
    const node = isDisplayObject(target) ? target : undefined;
    if (node === undefined && (role !== 'obstacle' || !isBox(target)))
      fail(
        where,
        role === 'obstacle' ? 'expected a display object or a rectangle { x, y, width, height }' : 'expected a display object (a Container, Sprite, Graphics…)',
      );
    if (node?.destroyed === true) fail(where, `the display object for "${id}" is destroyed already`);
    // A destroyed display object can no longer be seen or moved: the body goes with it.
    const gone = () => this.remove(id);
    node?.once('destroyed', gone);
    const body = { id, role, kind, node, box: node === undefined ? { ...(target as Box) } : undefined, speed, facing: (facing * Math.PI) / 180 };
    this.byId.set(id, { ...body, unhook: () => node?.off('destroyed', gone) });
    return this.byId.get(id)!;
  }

  get(id: string): PixiBody | undefined {
    return this.byId.get(id);
  }

  get size(): number {
    return this.byId.size;
  }

  all(): IterableIterator<PixiBody> {
    return this.byId.values();
  }

  remove(id: string): boolean {
    const body = this.byId.get(id);
    if (body === undefined) return false;
    this.byId.delete(id);
    body.unhook();
    this.onRemove(body);
    return true;
  }

  clear(): void {
    for (const id of [...this.byId.keys()]) this.remove(id);
  }
}

/** Where a body is: its display object's x and y, or a bare rectangle's centre. */
export function positionOf(body: PixiBody): Point2 {
  if (body.node !== undefined) return { x: body.node.x, y: body.node.y };
  const box = body.box!;
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** The rectangle a body covers now: a bare rectangle, or its display object's bounds (which follow it). */
export function boxOf(body: PixiBody): Box {
  if (body.node === undefined) return body.box!;
  const bounds = body.node.getBounds();
  return { x: bounds.x, y: bounds.y, width: bounds.width, height: bounds.height };
}

function isDisplayObject(target: unknown): target is Container {
  return (
    typeof target === 'object' && target !== null && typeof (target as Container).getBounds === 'function' && typeof (target as Container).once === 'function'
  );
}

function isBox(target: unknown): target is Box {
  const box = target as Box;
  return (
    typeof target === 'object' &&
    target !== null &&
    [box.x, box.y, box.width, box.height].every((n) => typeof n === 'number' && Number.isFinite(n)) &&
    box.width >= 0 &&
    box.height >= 0
  );
}

function fail(where: string, problem: string): never {
  throw new CapsuleError('AICC_INVALID_OPTION', `PixiBinding.${where}: ${problem}`);
}
