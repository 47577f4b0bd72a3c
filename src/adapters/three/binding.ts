// The binding between a capsule and a Three scene, with the lifecycle of three's addons: construct,
// `connect()`, `dispose()`. It registers the Three tools, moves objects a little every frame,
// turns bounding-volume overlaps into `collision` events, and drives the capsule's clock — from
// `renderer.setAnimationLoop`, or from the game's own loop through `update(dtMs)`. Its tools are
// the adapters' one shape (shared/toolBinding.ts): `handles` from connect(), gone at dispose().

import type { Object3D } from 'three';
import type { Capsule } from '../../runtime/capsule.js';
import { CapsuleError } from '../../base/errors.js';
import type { ToolHandle } from '../../runtime/tool.js';
import { CapsuleCourier } from '../shared/capsuleCourier.js';
import { bindTools, type ToolBinding } from '../shared/toolBinding.js';
import { CollisionWatcher, type CollisionOptions, type CollisionPayload } from './collisions.js';
import { Motion } from './motion.js';
import { DEFAULT_MAX_OBJECTS, ObjectRegistry, type RegisterOptions } from './objects.js';
import type { SceneBinding } from './threeTool.js';
import { threeTools, type ThreeToolsOptions } from './tools.js';

export interface CapsuleBindingOptions {
  /** Which tools `connect()` registers, with per-tool options; `false` registers none. Default: all. */
  tools?: ThreeToolsOptions | false;
  /** Collision events from registered objects' bounding volumes; `false` turns them off. Default: on, with exits. */
  collisions?: CollisionOptions | false;
  /** Rays and view cones start this far above an object's origin (unless it says otherwise). Default 0. */
  eyeHeight?: number;
  /** What rays test against, recursively. Default: the scene. */
  raycastTargets?: Object3D[];
  /** Most registered objects. Default 512 (DEFAULT_MAX_OBJECTS). */
  maxObjects?: number;
  /** `update()` also steps the capsule (its ticks, limits, timers). Default true; false if your loop steps it. */
  stepCapsule?: boolean;
  /** The animation loop passes on at most this much time per frame, so a tab back from the background does not jump. Default 250 ms. */
  maxFrameMs?: number;
  /** Wall time for `frameStats`. Default `performance.now`. */
  now?: () => number;
}

/** What drives frames: a WebGLRenderer, a WebGPURenderer, or anything with `setAnimationLoop`. */
export interface AnimationLoopHost {
  setAnimationLoop(callback: ((time: number) => void) | null): unknown;
}

export interface ConnectOptions {
  /** The renderer whose animation loop drives frames. Leave out and call `update(dtMs)` from your loop. */
  renderer?: AnimationLoopHost;
  /** With a renderer: called after every frame's update — render here. */
  onFrame?: (dtMs: number, timeMs: number) => void;
}

/** Frames run so far and the wall time they spent in the binding and the capsule. */
export interface FrameStats {
  frames: number;
  capsuleMs: number;
}

/**
 * A Three.js scene for agents: its objects as sensors' and actuators' world, its frames as the
 * capsule's clock; `connect()` registers the tools (all or none), `dispose()` removes them.
 *
 * @example
 * const binding = new CapsuleBinding(capsule, scene, { eyeHeight: 0.8 }).add('wren', wrenMesh, { kind: 'villager' });
 * binding.connect({ renderer, onFrame: () => renderer.render(scene, camera) }); // takes over setAnimationLoop
 */
export class CapsuleBinding implements SceneBinding, ToolBinding {
  readonly objects: ObjectRegistry;
  readonly motion: Motion;
  readonly eyeHeight: number;
  readonly raycastTargets: readonly Object3D[];

  private tools: ToolBinding | undefined;
  private readonly collisions: CollisionWatcher | undefined;
  private readonly stepCapsule: boolean;
  private readonly maxFrameMs: number;
  private readonly now: () => number;
  private stopLoop: (() => void) | undefined;
  private connected = false;
  private disposed = false;
  /** Steps and events for the capsule, until it is disposed under us (then objects keep moving). */
  private readonly courier: CapsuleCourier;
  private frames = 0;
  private capsuleMs = 0;

  constructor(
    readonly capsule: Capsule,
    readonly scene: Object3D,
    private readonly options: CapsuleBindingOptions = {},
  ) {
    if ((scene as { isObject3D?: boolean } | null)?.isObject3D !== true)
      throw new CapsuleError('AICC_INVALID_OPTION', 'new CapsuleBinding: scene must be a THREE.Scene (or any Object3D)');
    const eyeHeight = options.eyeHeight ?? 0;
    if (!Number.isFinite(eyeHeight)) throw new CapsuleError('AICC_INVALID_OPTION', `new CapsuleBinding: eyeHeight must be a finite number, got ${eyeHeight}`);
    const maxFrameMs = options.maxFrameMs ?? 250;
    if (!(maxFrameMs > 0)) throw new CapsuleError('AICC_INVALID_OPTION', `new CapsuleBinding: maxFrameMs must be a number > 0, got ${maxFrameMs}`);
    const maxObjects = options.maxObjects ?? DEFAULT_MAX_OBJECTS;
    if (!(Number.isInteger(maxObjects) && maxObjects >= 1))
      throw new CapsuleError('AICC_INVALID_OPTION', `new CapsuleBinding: maxObjects must be an integer >= 1, got ${maxObjects}`);
    this.eyeHeight = eyeHeight;
    this.maxFrameMs = maxFrameMs;
    this.raycastTargets = options.raycastTargets ?? [scene];
    this.stepCapsule = options.stepCapsule ?? true;
    this.courier = new CapsuleCourier(capsule);
    this.now = options.now ?? (() => globalThis.performance.now());
    this.objects = new ObjectRegistry(maxObjects);
    this.motion = new Motion(this.objects);
    if (options.collisions !== false)
      this.collisions = new CollisionWatcher(this.objects, (payload, to) => this.emitCollision(payload, to), options.collisions ?? {});
  }

  /** The registered tools (after connect), in registration order; empty after dispose. */
  get handles(): readonly ToolHandle[] {
    return this.tools?.handles ?? [];
  }

  /** Registers an object under an id; a character's id is its sessions' `character`. */
  add(id: string, object: Object3D, options?: RegisterOptions): this {
    this.alive('add');
    this.objects.add(id, object, options);
    return this;
  }

  /** Forgets an object: its move ends (`removed`), its contacts are dropped. False if unknown. */
  remove(id: string): boolean {
    return this.objects.remove(id);
  }

  /** Stops an object's move and turn where they are (e.g. on a collision). False if none was under way. */
  stop(id: string): boolean {
    const entry = this.objects.get(id);
    return entry !== undefined && this.motion.stop(entry, 'stopped');
  }

  /**
   * Registers the tools and, with a renderer, takes over its animation loop (render in `onFrame`).
   * Without one, call `update(dtMs)` every frame. Throws what `registerTool` throws (e.g.
   * AICC_DUPLICATE_TOOL; rename through `tools.overrides`), after removing what it registered.
   */
  connect(loop: ConnectOptions = {}): this {
    this.alive('connect');
    if (this.connected)
      throw new CapsuleError('AICC_INVALID_OPTION', 'CapsuleBinding.connect: already connected; dispose() it and make a new binding to connect again');
    if (loop.renderer !== undefined && typeof loop.renderer.setAnimationLoop !== 'function') {
      throw new CapsuleError('AICC_INVALID_OPTION', 'CapsuleBinding.connect: renderer must have setAnimationLoop (a WebGLRenderer or WebGPURenderer)');
    }
    if (this.options.tools !== false) this.tools = bindTools(this.capsule, threeTools(this, this.options.tools ?? {}));
    this.connected = true;
    if (loop.renderer !== undefined) this.startLoop(loop.renderer, loop.onFrame);
    return this;
  }

  /**
   * One frame: moves objects by `dtMs`, updates world matrices, sends collisions that began or
   * ended, and steps the capsule. The animation loop calls it; your own loop may instead.
   */
  update(dtMs: number): void {
    this.alive('update');
    if (!Number.isFinite(dtMs)) throw new CapsuleError('AICC_INVALID_OPTION', `CapsuleBinding.update: expected a finite number of ms, got ${dtMs}`);
    // A frame timestamp may come before a performance.now() read just before it (requestAnimationFrame
    // gives the frame's start): a loop's `now - last` is then a little below 0, and means no time.
    if (dtMs < 0) dtMs = 0;
    const started = this.now();
    this.motion.step(dtMs);
    // Volumes and rays read world matrices; moved objects' are stale until this.
    this.scene.updateMatrixWorld();
    this.collisions?.step();
    if (this.stepCapsule) this.courier.step(dtMs);
    this.frames++;
    this.capsuleMs += this.now() - started;
  }

  frameStats(): FrameStats {
    return { frames: this.frames, capsuleMs: this.capsuleMs };
  }

  /** The pairs of registered objects touching as of the last frame, each as [a, b] with a < b. */
  touching(): Array<[string, string]> {
    return this.collisions?.pairs() ?? [];
  }

  /**
   * Gives the animation loop back (`setAnimationLoop(null)`), ends every move and turn
   * (`disposed`), removes the tools and forgets every object. The capsule stays the game's. Safe to
   * call twice.
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.stopLoop?.();
    this.stopLoop = undefined;
    this.motion.dispose();
    this.collisions?.dispose();
    this.tools?.dispose();
    this.objects.clear();
    this.connected = false;
  }

  private startLoop(renderer: AnimationLoopHost, onFrame: ConnectOptions['onFrame']): void {
    let last: number | undefined;
    renderer.setAnimationLoop((time) => {
      const dt = last === undefined ? 0 : Math.min(this.maxFrameMs, Math.max(0, time - last));
      last = time;
      this.update(dt);
      onFrame?.(dt, time);
    });
    this.stopLoop = () => void renderer.setAnimationLoop(null);
  }

  private emitCollision(payload: CollisionPayload, to: string[] | undefined): void {
    this.courier.emit('collision', payload, to);
  }

  private alive(method: string): void {
    if (this.disposed) throw new CapsuleError('AICC_DISPOSED', `CapsuleBinding.${method}: this binding was disposed; make a new one`);
  }
}
