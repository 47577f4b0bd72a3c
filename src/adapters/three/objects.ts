// The objects a binding knows by id: the characters agents play and the things they may sense or
// bump into. Only registered objects are named to agents, moved by actuators or checked for
// collisions; the rest of the scene still blocks rays as scenery.

import type { Camera, Object3D } from 'three';
import { CapsuleError } from '../../base/errors.js';
import { measure, type BoundsKind, type Volume } from './geometry.js';

/** Most objects one binding registers, by default: collisions test every pair each frame (n²/2). */
export const DEFAULT_MAX_OBJECTS = 512;

/** Ids as agents type them: short, no spaces. Characters' ids are their sessions' `character`. */
export const OBJECT_ID = /^[A-Za-z0-9_.:-]{1,64}$/;

export interface RegisterOptions {
  /** How its extent is measured (for `nearby` and collisions). Default 'box': `Box3.setFromObject`. */
  bounds?: BoundsKind;
  /** The sphere's radius when `bounds` is 'sphere'. Default: the sphere around its box. */
  radius?: number;
  /** Whether it takes part in collisions. Default true. */
  collides?: boolean;
  /** What it is, in a word agents read ("villager", "crate", "tree"). Default 'object'. */
  kind?: string;
  /** A character's own camera: `in_view` uses its frustum instead of the default view cone. */
  camera?: Camera;
  /** Where rays and the view cone start, above the object's origin. Default: the binding's `eyeHeight`. */
  eyeHeight?: number;
}

export interface Registered {
  readonly id: string;
  readonly object: Object3D;
  readonly bounds: BoundsKind;
  readonly radius: number | undefined;
  readonly collides: boolean;
  readonly kind: string;
  readonly camera: Camera | undefined;
  readonly eyeHeight: number | undefined;
}

export class ObjectRegistry {
  private readonly byId = new Map<string, Registered>();
  private readonly byObject = new Map<Object3D, Registered>();
  private readonly removed = new Set<(entry: Registered) => void>();

  constructor(readonly maxObjects = DEFAULT_MAX_OBJECTS) {}

  add(id: string, object: Object3D, options: RegisterOptions = {}): Registered {
    const where = `CapsuleBinding.add(${JSON.stringify(id)})`;
    if (typeof id !== 'string' || !OBJECT_ID.test(id))
      throw new CapsuleError('AICC_INVALID_OPTION', `${where}: the id must be 1–64 letters, digits or _.:- (no spaces)`);
    if (object === null || typeof object !== 'object' || (object as { isObject3D?: boolean }).isObject3D !== true) {
      throw new CapsuleError('AICC_INVALID_OPTION', `${where}: expected a THREE.Object3D (a Mesh, Group, …)`);
    }
    if (this.byId.has(id))
      throw new CapsuleError('AICC_INVALID_OPTION', `${where}: an object is already registered under this id; remove it first or pick another id`);
    const other = this.byObject.get(object);
    if (other !== undefined) throw new CapsuleError('AICC_INVALID_OPTION', `${where}: this Object3D is already registered as "${other.id}"`);
    if (this.byId.size >= this.maxObjects)
      throw new CapsuleError(
        'AICC_INVALID_OPTION',
        `${where}: ${this.maxObjects} objects are registered already (maxObjects); remove some or raise the option`,
      );
    const bounds = options.bounds ?? 'box';
    if (bounds !== 'box' && bounds !== 'sphere')
      throw new CapsuleError('AICC_INVALID_OPTION', `${where}: bounds must be 'box' or 'sphere', got ${JSON.stringify(bounds)}`);
    if (options.radius !== undefined && !(Number.isFinite(options.radius) && options.radius >= 0))
      throw new CapsuleError('AICC_INVALID_OPTION', `${where}: radius must be a finite number >= 0, got ${options.radius}`);
    if (options.eyeHeight !== undefined && !Number.isFinite(options.eyeHeight))
      throw new CapsuleError('AICC_INVALID_OPTION', `${where}: eyeHeight must be a finite number, got ${options.eyeHeight}`);
    const entry: Registered = {
      id,
      object,
      bounds,
      radius: options.radius,
      collides: options.collides ?? true,
      kind: options.kind ?? 'object',
      camera: options.camera,
      eyeHeight: options.eyeHeight,
    };
    this.byId.set(id, entry);
    this.byObject.set(object, entry);
    return entry;
  }

  /** Forgets the object; motions and collisions that involve it end. False when it was not registered. */
  remove(id: string): boolean {
    const entry = this.byId.get(id);
    if (entry === undefined) return false;
    this.byId.delete(id);
    this.byObject.delete(entry.object);
    for (const listener of [...this.removed]) listener(entry);
    return true;
  }

  get(id: string): Registered | undefined {
    return this.byId.get(id);
  }

  get size(): number {
    return this.byId.size;
  }

  entries(): IterableIterator<Registered> {
    return this.byId.values();
  }

  /** The registered object a scene node belongs to: itself or its nearest registered ancestor. */
  owner(node: Object3D | null): Registered | undefined {
    for (let at = node; at !== null; at = at.parent) {
      const entry = this.byObject.get(at);
      if (entry !== undefined) return entry;
    }
    return undefined;
  }

  volume(entry: Registered): Volume {
    return measure(entry.object, entry.bounds, entry.radius);
  }

  onRemove(listener: (entry: Registered) => void): () => void {
    this.removed.add(listener);
    return () => void this.removed.delete(listener);
  }

  clear(): void {
    for (const id of [...this.byId.keys()]) this.remove(id);
  }
}
