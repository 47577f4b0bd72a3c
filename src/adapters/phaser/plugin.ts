// The Scene plugin: installed from the game config, it gives a scene a capsule driven by the
// scene's updates, a registry of the game objects agents may know about, the tools to act on them,
// and forwards Arcade contacts and Data Manager changes as events. It hooks everything at the
// scene's START and unhooks everything at SHUTDOWN (and DESTROY), so a scene can restart.
//
// Phaser builds scene plugins with `new plugin(scene, pluginManager, key)` and never asks for a base
// class, so this one extends none: no Phaser value is imported, only types, and the same class works
// with Phaser 3.60+ and 4, from an ES import or from the `Phaser` global of a <script> page.

import type * as Phaser from 'phaser';
import type { Capsule } from '../../runtime/capsule.js';
import type { Clock } from '../../base/clock.js';
import { CapsuleError, ToolError } from '../../base/errors.js';
import type { EventPayloads } from '../../runtime/events.js';
import type { ConnectOptions } from '../../runtime/options.js';
import type { Topic } from '../../protocol/messages.js';
import type { SessionView } from '../../runtime/sessionTypes.js';
import { jsonCodec } from '../../protocol/codec.js';
import type { Link } from '../../links/link.js';
import { bindTools, type ToolBinding } from '../shared/toolBinding.js';
import { Contacts } from './contacts.js';
import { DataChanges } from './dataChanges.js';
import {
  EntityRegistry,
  type Box,
  type CharacterOptions,
  type Entity,
  type ObjectOptions,
  type ObstacleOptions,
  type Positioned,
  type SpawnFactory,
  type TemplateOptions,
} from './entities.js';
import { FrameMeter, type FrameStats } from './meter.js';
import { Hearing } from './hearing.js';
import { Walks } from './motion.js';
import { checkInside, type SceneWorld } from './phaserTool.js';
import { resolveOptions, sceneCapsule, type AiccPluginOptions, type ResolvedOptions } from './pluginOptions.js';
import { Bubbles } from './speech.js';
import { phaserTools, type PhaserToolsOptions } from './tools.js';

type ArcadeCollidable = Phaser.Types.Physics.Arcade.ArcadeColliderType;
type ArcadeCallback = Phaser.Types.Physics.Arcade.ArcadePhysicsCallback;

/** How many of each thing the plugin holds now; all zero after shutdown. */
export interface PluginCounts {
  entities: number;
  walks: number;
  bubbles: number;
  contacts: number;
  hookedEmitters: number;
  tools: number;
  sessions: number;
  /** Contacts not forwarded because maxContacts were tracked already. */
  droppedContacts: number;
  /** Data changes not forwarded because their value was not plain JSON. */
  unfitData: number;
}

export class AiccScenePlugin implements SceneWorld {
  /** The options every instance of this class uses; `aiccScenePlugin(options)` makes a class with others. */
  static options: AiccPluginOptions = {};

  readonly scene: Phaser.Scene;
  readonly systems: Phaser.Scenes.Systems;
  readonly pluginManager: Phaser.Plugins.PluginManager;
  readonly pluginKey: string;
  readonly entities: EntityRegistry;
  readonly walks: Walks;
  readonly bubbles: Bubbles;
  readonly perceptionRadius: number;

  private readonly config: AiccPluginOptions;
  private readonly settings: ResolvedOptions;
  private readonly meter = new FrameMeter();
  private readonly contacts: Contacts;
  private readonly data: DataChanges;
  private readonly destroyHooks = new Map<Positioned, () => void>();
  private readonly spawned = new Set<string>();
  private readonly opened = new Set<SessionView>();
  private readonly hearing: Hearing;
  /** What registerTools bound, each disposed at shutdown. */
  private tools: ToolBinding[] = [];
  private current: Capsule | undefined;
  private owned = false;
  private spawnCount = 0;
  private running = false;
  private readonly capsuleListeners = new Set<(capsule: Capsule) => void>();

  constructor(scene: Phaser.Scene, pluginManager: Phaser.Plugins.PluginManager, pluginKey: string) {
    this.scene = scene;
    this.systems = scene.sys;
    this.pluginManager = pluginManager;
    this.pluginKey = pluginKey;
    this.config = (this.constructor as typeof AiccScenePlugin).options;
    this.settings = resolveOptions(this.config);
    this.perceptionRadius = this.settings.perceptionRadius;
    this.entities = new EntityRegistry(this.settings.maxEntities, (entity, change) =>
      change === 'added' ? this.hookEntity(entity) : this.unhookEntity(entity),
    );
    this.hearing = new Hearing(this.entities, this.perceptionRadius, (topic, payload, to) => this.emit(topic, payload, to));
    this.walks = new Walks(this.settings.stuckAfterMs, (walk, reason, at) => this.hearing.walkEnded(walk, reason, at));
    this.bubbles = new Bubbles(scene, this.config.bubbles);
    // The hooks' own work (tracking contacts, copying data values) is timed as the capsule's too.
    const measure = (work: () => void): void => this.meter.measure(work);
    this.contacts = new Contacts(
      (object) => this.entities.of(object)?.id,
      (contact) => this.hearing.contact(contact),
      this.settings.contactGraceSteps,
      this.settings.maxContacts,
      this.settings.contactGap,
      measure,
    );
    this.data = new DataChanges((change) => this.hearing.data(change), measure);
    scene.sys.events.once('boot', this.boot, this);
    scene.sys.events.on('start', this.start, this);
  }

  // ── lifecycle (called by Phaser) ───────────────────────────────────────────────────────────

  boot(): void {
    this.systems.events.once('destroy', this.destroy, this);
    // Installed into a scene that is already running: start now, as its START has passed.
    if (this.systems.isActive() || this.systems.isPaused() || this.systems.isSleeping()) this.start();
  }

  start(): void {
    if (this.running) return;
    // The capsule first: bad capsuleOptions throw here, before anything is hooked.
    const { capsule, owned } = sceneCapsule(this.config, this.systems.settings.key, (work) => this.meter.measure(work));
    this.current = capsule;
    this.owned = owned;
    this.running = true;
    const events = this.systems.events;
    events.on('update', this.update, this);
    events.once('shutdown', this.shutdown, this);
    const world = this.arcade()?.world;
    if (world !== undefined) this.contacts.attach(world);
    if (this.config.sceneDataEntity !== undefined) this.data.hook(events, this.config.sceneDataEntity);
    for (const listener of [...this.capsuleListeners]) listener(this.current);
  }

  /** One scene update: walks and bubbles advance, the capsule steps by the frame's delta, bubbles are drawn. */
  update(_time: number, delta: number): void {
    this.meter.frames++;
    this.meter.measure(() => {
      this.walks.update(delta);
      this.bubbles.update(delta);
      const capsule = this.current;
      if (!this.settings.driveClock || capsule === undefined) return;
      try {
        capsule.step(delta);
      } catch (error) {
        // The game disposed its own capsule: nothing left to drive.
        if (!isDisposed(error)) throw error;
        this.current = undefined;
      }
    });
    this.meter.draw(() => this.bubbles.draw());
  }

  /** Unhooks everything the scene start hooked; disposes the capsule if the plugin made it. */
  shutdown(): void {
    if (!this.running) return;
    this.running = false;
    const events = this.systems.events;
    events.off('update', this.update, this);
    events.off('shutdown', this.shutdown, this);
    this.contacts.detach();
    this.walks.clear();
    this.bubbles.clear();
    this.entities.clear();
    this.data.clear();
    for (const binding of this.tools.splice(0)) binding.dispose();
    const reason = `scene "${this.systems.settings.key}" shut down`;
    if (this.owned) this.current?.dispose(reason);
    else for (const session of this.opened) if (session.state !== 'closed') session.close(reason);
    this.opened.clear();
    this.spawned.clear();
    this.current = undefined;
  }

  destroy(): void {
    this.shutdown();
    this.systems.events.off('start', this.start, this);
    this.systems.events.off('boot', this.boot, this);
    this.systems.events.off('destroy', this.destroy, this);
  }

  // ── the game's API ─────────────────────────────────────────────────────────────────────────

  /**
   * Calls `listener` with the capsule now (if the scene is running) and with each new one at every
   * start; returns the unsubscribe. `mountInspector(this.aicc)` follows a restarting scene with it.
   */
  onCapsule(listener: (capsule: Capsule) => void): () => void {
    this.capsuleListeners.add(listener);
    if (this.current !== undefined) listener(this.current);
    return () => void this.capsuleListeners.delete(listener);
  }

  /** The capsule of this scene, from its START to its SHUTDOWN. */
  get capsule(): Capsule {
    if (this.current === undefined)
      throw new CapsuleError(
        'AICC_NOT_CONNECTED',
        `AiccScenePlugin.capsule: scene "${this.systems.settings.key}" is not running; the capsule exists from the scene's start to its shutdown`,
      );
    return this.current;
  }

  /** The capsule's clock (the scene's time): what agents in the page do best to share (connectInProcess does). */
  get clock(): Clock {
    return this.capsule.clock;
  }

  /** A game object an agent plays: it can move, speak and sense, and hears what happens near it. */
  addCharacter(id: string, object: Positioned, options?: CharacterOptions): Entity {
    return this.entities.addCharacter(id, object, options);
  }

  /** A thing agents can see, bump into and read data changes of. */
  addObject(id: string, object: Positioned, options?: ObjectOptions): Entity {
    return this.entities.addObject(id, object, options);
  }

  /** Something that blocks line of sight: a game object (its bounds) or a fixed rectangle. */
  addObstacle(target: Positioned | Box, options?: ObstacleOptions): Entity {
    return this.entities.addObstacle(target, options);
  }

  /** What `spawn` can make; register templates before registerTools so the manifest lists them. */
  addTemplate(name: string, factory: SpawnFactory, options?: TemplateOptions): void {
    this.entities.addTemplate(name, factory, options);
  }

  /** Forgets an entity (its game object stays in the scene). */
  remove(id: string): boolean {
    return this.entities.remove(id);
  }

  /**
   * Registers the Phaser tools on the capsule, all or none (AICC_DUPLICATE_TOOL: rename through
   * `overrides`): `{ handles, dispose }`, disposed at shutdown if the game has not done it before.
   */
  registerTools(options?: PhaserToolsOptions): ToolBinding {
    const binding = bindTools(this.capsule, phaserTools(this, options));
    // Bindings the game disposed hold no tools: no need to keep them until shutdown.
    this.tools = [...this.tools.filter((held) => held.handles.length > 0), binding];
    return binding;
  }

  /** An Arcade collider whose contacts are forwarded as `collision` events (kind 'collide'). */
  collider(a: ArcadeCollidable, b: ArcadeCollidable, callback?: ArcadeCallback): Phaser.Physics.Arcade.Collider {
    return this.contacts.collider(this.requireArcade('collider'), 'collide', a, b, callback);
  }

  /** An Arcade overlap whose contacts are forwarded as `collision` events (kind 'overlap'). */
  overlap(a: ArcadeCollidable, b: ArcadeCollidable, callback?: ArcadeCallback): Phaser.Physics.Arcade.Collider {
    return this.contacts.collider(this.requireArcade('overlap'), 'overlap', a, b, callback);
  }

  /**
   * Opens a session for an agent on `link`, like `capsule.connect`, with the capsule's side of the
   * link counted in frameStats. Sessions opened here close when the scene shuts down.
   */
  connect(link: Link, options: ConnectOptions): SessionView {
    const capsule = this.capsule;
    for (const session of this.opened) if (session.state === 'closed') this.opened.delete(session);
    const session = capsule.connect(this.meter.link(link), { ...options, codec: this.meter.codec(options.codec ?? jsonCodec) });
    this.opened.add(session);
    return session;
  }

  /** Frames run and the ms spent in the capsule and the plugin's hooks over them. */
  frameStats(): FrameStats {
    return this.meter.stats();
  }

  counts(): PluginCounts {
    return {
      entities: this.entities.size,
      walks: this.walks.size,
      bubbles: this.bubbles.size,
      contacts: this.contacts.size,
      hookedEmitters: this.data.size + this.destroyHooks.size,
      tools: this.tools.reduce((sum, binding) => sum + binding.handles.length, 0),
      sessions: [...this.opened].filter((session) => session.state !== 'closed').length,
      droppedContacts: this.contacts.dropped,
      unfitData: this.data.unfit,
    };
  }

  // ── SceneWorld (what the tools use) ────────────────────────────────────────────────────────

  bounds(): Box {
    if (this.config.bounds !== undefined) return this.config.bounds;
    const world = this.arcade()?.world;
    if (world !== undefined) return { x: world.bounds.x, y: world.bounds.y, width: world.bounds.width, height: world.bounds.height };
    return { x: 0, y: 0, width: this.scene.scale.width, height: this.scene.scale.height };
  }

  spawn(name: string, x: number, y: number): Entity {
    const template = this.entities.template(name);
    if (template === undefined) {
      const names = this.entities.templates().map((t) => t.name);
      throw new ToolError(`there is no template "${name}"; templates: ${names.length > 0 ? names.join(', ') : '(none)'}`);
    }
    checkInside(this, x, y);
    if (this.spawned.size >= this.settings.maxSpawned)
      throw new ToolError(`the scene already holds ${this.settings.maxSpawned} spawned things; try again when some are gone`, { retryable: true });
    let id: string;
    do id = `${template.name}_${++this.spawnCount}`;
    while (this.entities.get(id) !== undefined);
    const object = template.factory(this.scene, x, y, id);
    const entity = this.entities.addObject(id, object, { kind: template.kind });
    this.spawned.add(id);
    return entity;
  }

  hear(speaker: Entity, text: string, to?: string): string[] {
    return this.hearing.speech(speaker, text, to);
  }

  // ── forwarding ─────────────────────────────────────────────────────────────────────────────

  private hookEntity(entity: Entity): void {
    const object = entity.object;
    if (object === undefined) return;
    // A destroyed game object leaves the registry with it.
    const gone = (): void => {
      this.entities.remove(entity.id);
    };
    object.once('destroy', gone);
    this.destroyHooks.set(object, gone);
    if (entity.role !== 'obstacle') this.data.hook(object, entity.id);
  }

  private unhookEntity(entity: Entity): void {
    const object = entity.object;
    this.walks.forget(entity.id);
    this.bubbles.forget(entity.id);
    this.spawned.delete(entity.id);
    if (object === undefined) return;
    const gone = this.destroyHooks.get(object);
    if (gone !== undefined) object.off('destroy', gone);
    this.destroyHooks.delete(object);
    this.data.unhook(object);
  }

  private emit<T extends Topic>(topic: T, payload: EventPayloads[T], to: string[] | (() => string[])): void {
    const capsule = this.current;
    if (capsule === undefined) return;
    try {
      // With no listener in range the event still reaches the host's own listeners (an inspector).
      capsule.emit(topic, payload, { to });
    } catch (error) {
      if (!isDisposed(error)) throw error;
      this.current = undefined;
    }
  }

  private arcade(): Phaser.Physics.Arcade.ArcadePhysics | undefined {
    const physics = (this.scene as { physics?: Phaser.Physics.Arcade.ArcadePhysics }).physics;
    return physics?.world !== undefined && physics.world !== null ? physics : undefined;
  }

  private requireArcade(method: string): Phaser.Physics.Arcade.ArcadePhysics {
    const physics = this.arcade();
    if (physics === undefined)
      throw new CapsuleError(
        'AICC_INVALID_OPTION',
        `AiccScenePlugin.${method}: scene "${this.systems.settings.key}" has no Arcade physics; add physics: { default: 'arcade' } to its config`,
      );
    return physics;
  }
}

/**
 * A plugin class with its own options, for the game config's `plugins.scene`.
 *
 * @example
 * new Phaser.Game({ physics: { default: 'arcade' }, scene: { create },
 *   plugins: { scene: [{ key: 'AiccScenePlugin', plugin: aiccScenePlugin({ perceptionRadius: 300 }), mapping: 'aicc' }] } });
 * function create(this: Phaser.Scene) {
 *   this.aicc.addCharacter('mira', this.physics.add.sprite(200, 200, 'npc'), { kind: 'villager' });
 *   this.aicc.registerTools(); // → { handles, dispose }
 * }
 */
export function aiccScenePlugin(options: AiccPluginOptions): typeof AiccScenePlugin {
  resolveOptions(options); // a mistake shows here, not at the first scene start
  return class ConfiguredAiccScenePlugin extends AiccScenePlugin {
    static override options = options;
  };
}

function isDisposed(error: unknown): boolean {
  return error instanceof CapsuleError && error.code === 'AICC_DISPOSED';
}
