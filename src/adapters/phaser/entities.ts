// What the agents of a scene can know about: the game objects the game registered, each under an id
// — characters (agents play them), objects (things to see and bump into) and obstacles (they block
// sight) — and the spawn templates. Perception queries (who is near, who can hear) read from here.

import type * as Phaser from 'phaser';
import { CapsuleError } from '../../base/errors.js';
import type { Box } from '../shared/plane.js';

/** A game object with a position: a Sprite, an Image, a Text, a Container, a Shape… */
export type Positioned = Phaser.GameObjects.GameObject & { x: number; y: number };

/** An axis-aligned rectangle in world coordinates: the plane's own (adapters/shared). */
export type { Box } from '../shared/plane.js';

export type EntityRole = 'character' | 'object' | 'obstacle';

export interface Entity {
  readonly id: string;
  readonly role: EntityRole;
  /** The game's word for what it is ('villager', 'apple', 'wall'); agents read it. */
  readonly kind: string;
  /** The game object, or undefined for an obstacle given as a plain rectangle. */
  readonly object: Positioned | undefined;
  /** Characters: default walking speed, px per second. */
  readonly speed: number;
  /** Obstacles given as a rectangle. */
  readonly box: Box | undefined;
}

export interface CharacterOptions {
  /** Default 'character'. */
  kind?: string;
  /** Walking speed when a move does not name one, px/s. Default 120. */
  speed?: number;
}

export interface ObjectOptions {
  /** Default 'object'. */
  kind?: string;
}

export interface ObstacleOptions {
  /** Default: `<kind>_<n>`. */
  id?: string;
  /** Default 'obstacle'. */
  kind?: string;
}

/** Makes one spawned game object at (x, y); the plugin registers it as an object under `id`. */
export type SpawnFactory = (scene: Phaser.Scene, x: number, y: number, id: string) => Positioned;

export interface TemplateOptions {
  /** The kind spawned objects get. Default: the template's name. */
  kind?: string;
  /** One line for agents: what this template makes. */
  description?: string;
}

export interface Template {
  readonly name: string;
  readonly kind: string;
  readonly description: string;
  readonly factory: SpawnFactory;
}

/** Ids as agents type them: 1–64 letters, digits, `_` or `-`. */
export const ENTITY_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Template names: lowercase snake_case, like tool ids. */
export const TEMPLATE_NAME = /^[a-z][a-z0-9_]{0,31}$/;
export const DEFAULT_SPEED = 120;

/** The entities and templates of one scene, bounded by `maxEntities`. */
export class EntityRegistry {
  private readonly byId = new Map<string, Entity>();
  private readonly byObject = new Map<Phaser.GameObjects.GameObject, Entity>();
  private readonly templatesByName = new Map<string, Template>();
  /** The obstacles apart: every sight line reads them, and they are few among many entities. */
  private readonly obstacleSet = new Set<Entity>();
  private obstacleCount = 0;

  constructor(
    private readonly maxEntities: number,
    /** Told of every entity added or removed, to hook or unhook its game object. */
    private readonly onChange: (entity: Entity, change: 'added' | 'removed') => void,
  ) {}

  get size(): number {
    return this.byId.size;
  }

  addCharacter(id: string, object: Positioned, options: CharacterOptions = {}): Entity {
    const speed = options.speed ?? DEFAULT_SPEED;
    if (!(Number.isFinite(speed) && speed > 0)) fail('addCharacter', `speed must be a number > 0 (px/s), got ${String(speed)}`);
    return this.add('addCharacter', {
      id,
      role: 'character',
      kind: kindOf(options.kind, 'character'),
      object: checkObject('addCharacter', object),
      speed,
      box: undefined,
    });
  }

  addObject(id: string, object: Positioned, options: ObjectOptions = {}): Entity {
    return this.add('addObject', {
      id,
      role: 'object',
      kind: kindOf(options.kind, 'object'),
      object: checkObject('addObject', object),
      speed: 0,
      box: undefined,
    });
  }

  addObstacle(target: Positioned | Box, options: ObstacleOptions = {}): Entity {
    const kind = kindOf(options.kind, 'obstacle');
    const id = options.id ?? `${kind}_${++this.obstacleCount}`;
    const isObject = typeof (target as Positioned).once === 'function';
    if (!isObject && !isBox(target)) fail('addObstacle', 'expected a game object or a rectangle { x, y, width, height }');
    return this.add('addObstacle', {
      id,
      role: 'obstacle',
      kind,
      object: isObject ? (target as Positioned) : undefined,
      speed: 0,
      box: isObject ? undefined : { ...(target as Box) },
    });
  }

  remove(id: string): boolean {
    const entity = this.byId.get(id);
    if (entity === undefined) return false;
    this.byId.delete(id);
    this.obstacleSet.delete(entity);
    if (entity.object !== undefined) this.byObject.delete(entity.object);
    this.onChange(entity, 'removed');
    return true;
  }

  /** Forgets everything (scene shutdown); each entity is reported removed. */
  clear(): void {
    for (const id of [...this.byId.keys()]) this.remove(id);
    this.templatesByName.clear();
    this.obstacleCount = 0;
  }

  get(id: string): Entity | undefined {
    return this.byId.get(id);
  }

  of(object: unknown): Entity | undefined {
    return this.byObject.get(object as Phaser.GameObjects.GameObject);
  }

  all(): IterableIterator<Entity> {
    return this.byId.values();
  }

  /** The obstacles, in the order they were added. */
  obstacles(): IterableIterator<Entity> {
    return this.obstacleSet.values();
  }

  addTemplate(name: string, factory: SpawnFactory, options: TemplateOptions = {}): void {
    if (typeof name !== 'string' || !TEMPLATE_NAME.test(name))
      fail('addTemplate', `name ${JSON.stringify(name)} must be lowercase snake_case (^[a-z][a-z0-9_]{0,31}$)`);
    if (typeof factory !== 'function') fail('addTemplate', `"${name}": factory must be a function (scene, x, y, id) => GameObject`);
    if (this.templatesByName.has(name)) fail('addTemplate', `a template "${name}" is already registered; pick another name`);
    this.templatesByName.set(name, { name, kind: kindOf(options.kind, name), description: options.description ?? name, factory });
  }

  template(name: string): Template | undefined {
    return this.templatesByName.get(name);
  }

  templates(): Template[] {
    return [...this.templatesByName.values()];
  }

  private add(method: string, entity: Entity): Entity {
    if (typeof entity.id !== 'string' || !ENTITY_ID.test(entity.id)) fail(method, `id ${JSON.stringify(entity.id)} must be 1–64 letters, digits, _ or -`);
    if (this.byId.has(entity.id)) fail(method, `id "${entity.id}" is already registered; remove it first or pick another id`);
    if (entity.object !== undefined && this.byObject.has(entity.object))
      fail(method, `this game object is already registered as "${this.byObject.get(entity.object)!.id}"`);
    if (this.byId.size >= this.maxEntities) fail(method, `${this.maxEntities} entities are registered already (maxEntities); remove some or raise the option`);
    this.byId.set(entity.id, entity);
    if (entity.role === 'obstacle') this.obstacleSet.add(entity);
    if (entity.object !== undefined) this.byObject.set(entity.object, entity);
    this.onChange(entity, 'added');
    return entity;
  }
}

/** Where an entity is: its object's position, or the centre of its rectangle. */
export function positionOf(entity: Entity): { x: number; y: number } {
  if (entity.object !== undefined) return { x: entity.object.x, y: entity.object.y };
  const box = entity.box!;
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** The rectangle an obstacle covers now (a game object's bounds follow it as it moves). */
export function boxOf(entity: Entity): Box | undefined {
  if (entity.box !== undefined) return entity.box;
  const object = entity.object as (Positioned & { getBounds?: () => Box }) | undefined;
  if (object?.getBounds === undefined) return undefined;
  const bounds = object.getBounds();
  return { x: bounds.x, y: bounds.y, width: bounds.width, height: bounds.height };
}

function fail(method: string, what: string): never {
  throw new CapsuleError('AICC_INVALID_OPTION', `AiccScenePlugin.${method}: ${what}`);
}

function kindOf(kind: string | undefined, fallback: string): string {
  if (kind === undefined) return fallback;
  if (typeof kind !== 'string' || kind.length === 0 || kind.length > 32)
    throw new CapsuleError('AICC_INVALID_OPTION', `AiccScenePlugin: kind must be a string of 1–32 characters, got ${JSON.stringify(kind)}`);
  return kind;
}

function checkObject(method: string, object: Positioned): Positioned {
  if (object === null || typeof object !== 'object' || typeof object.once !== 'function' || typeof object.x !== 'number') {
    fail(method, 'expected a Phaser game object with a position (a Sprite, Image, Container…)');
  }
  return object;
}

function isBox(value: unknown): value is Box {
  const box = value as Box;
  return (
    typeof value === 'object' && value !== null && [box.x, box.y, box.width, box.height].every((n) => Number.isFinite(n)) && box.width >= 0 && box.height >= 0
  );
}
