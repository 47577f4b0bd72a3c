// The binding between a capsule and a PixiJS v8 stage: construct, add the game's display objects as
// characters, objects and obstacles, `connect()`, `dispose()`. It registers the PixiJS tools, walks
// characters a little every frame, turns overlaps into `collision` events, sends what characters say
// to those in earshot, and drives the capsule's clock — from a PixiJS Ticker (`app.ticker`), or from
// the game's own loop through `update(dtMs)`. Its tools are the adapters' one shape
// (shared/toolBinding.ts): `handles` from connect(), gone at dispose().

import type { Container, Ticker } from 'pixi.js';
import { CapsuleError } from '../../base/errors.js';
import type { Topic } from '../../protocol/messages.js';
import type { Capsule } from '../../runtime/capsule.js';
import type { EventPayloads } from '../../runtime/events.js';
import type { ToolHandle } from '../../runtime/tool.js';
import type { Box, Point2 } from '../shared/plane.js';
import { CapsuleCourier } from '../shared/capsuleCourier.js';
import { bindTools, type ToolBinding } from '../shared/toolBinding.js';
import { type BodyOptions, BodyRegistry, DEFAULT_MAX_BODIES, type PixiBody, positionOf } from './bodies.js';
import { type Contact, Contacts } from './contacts.js';
import { audience, obstacles } from './perception.js';
import type { PixiStage } from './pixiTool.js';
import { pixiTools, type PixiToolsOptions } from './tools.js';
import { type Walk, type WalkEnd, Walks } from './walks.js';

export interface PixiBindingOptions {
  /** How far characters see and hear, px: nearby's radius, in_view's depth, say's reach. Default 300. */
  perceptionRadius?: number;
  /** The width of a character's view cone (in_view), degrees, below 360. Default 120. */
  fieldOfView?: number;
  /** Where characters may walk (move_to refuses points outside). Default: anywhere. */
  bounds?: Box;
  /** Which tools `connect()` registers, with per-tool overrides; `false` registers none. Default: all. */
  tools?: PixiToolsOptions | false;
  /** Collision events from overlapping bounds; `false` turns them off. Default on. */
  collisions?: boolean;
  /** Most bodies. Default 1024 (perception walks them all on every call). */
  maxBodies?: number;
  /** Called when a character says a line: draw its bubble here. The binding keeps the line for `position` for `sayMs`. */
  onSay?: (character: string, text: string) => void;
  /** How long a line counts as being said (position's `saying`), ms. Default 4,000. */
  sayMs?: number;
  /** `update()` also steps the capsule (its ticks, limits, timers). Default true; false if your loop steps it. */
  stepCapsule?: boolean;
  /** The ticker passes on at most this much time per frame, so a tab back from the background does not jump. Default 250 ms. */
  maxFrameMs?: number;
  /** Wall time for `frameStats`. Default `performance.now`. */
  now?: () => number;
}

/** Frames run so far and the wall time they spent in the binding and the capsule. */
export interface FrameStats {
  frames: number;
  capsuleMs: number;
}

export interface PixiConnectOptions {
  /** The ticker whose frames drive the binding (`app.ticker`). Leave out and call `update(dtMs)` from your loop. */
  ticker?: Ticker;
}

/**
 * A PixiJS stage for agents: its display objects as sensors' and actuators' world, its frames as the
 * capsule's clock; `connect()` registers the tools (all or none), `dispose()` removes them.
 *
 * @example
 * const binding = new PixiBinding(capsule, { bounds: { x: 0, y: 0, width: 800, height: 600 } });
 * binding.addCharacter('mira', miraSprite, { kind: 'villager' }).addObstacle('well', wellSprite);
 * binding.connect({ ticker: app.ticker });
 */
export class PixiBinding implements PixiStage, ToolBinding {
  readonly bodies: BodyRegistry;
  readonly walks: Walks;
  readonly perceptionRadius: number;
  readonly fieldOfView: number;
  readonly bounds: Box | undefined;
  private readonly contacts: Contacts | undefined;
  private readonly lines = new Map<string, { text: string; until: number }>();
  private readonly sayMs: number;
  private readonly maxFrameMs: number;
  private readonly now: () => number;
  private tools: ToolBinding | undefined;
  private stopTicker: (() => void) | undefined;
  private time = 0;
  private frames = 0;
  private capsuleMs = 0;
  private connected = false;
  private disposed = false;
  /** Steps and events for the capsule, until it is disposed under us (then bodies keep moving). */
  private readonly courier: CapsuleCourier;

  constructor(
    readonly capsule: Capsule,
    private readonly options: PixiBindingOptions = {},
  ) {
    this.courier = new CapsuleCourier(capsule);
    this.perceptionRadius = positive('perceptionRadius', options.perceptionRadius, 300);
    this.fieldOfView = positive('fieldOfView', options.fieldOfView, 120);
    if (this.fieldOfView >= 360) fail(`fieldOfView must be below 360 degrees, got ${this.fieldOfView}`);
    this.sayMs = positive('sayMs', options.sayMs, 4000);
    this.maxFrameMs = positive('maxFrameMs', options.maxFrameMs, 250);
    this.now = options.now ?? (() => globalThis.performance.now());
    const maxBodies = options.maxBodies ?? DEFAULT_MAX_BODIES;
    if (!(Number.isInteger(maxBodies) && maxBodies >= 1)) fail(`maxBodies must be an integer >= 1, got ${maxBodies}`);
    const b = options.bounds;
    if (b !== undefined && ![b.x, b.y, b.width, b.height].every(Number.isFinite)) fail('bounds must be { x, y, width, height } of finite numbers');
    this.bounds = b === undefined ? undefined : { x: b.x, y: b.y, width: b.width, height: b.height };
    this.bodies = new BodyRegistry(maxBodies, (body) => this.forget(body));
    this.walks = new Walks(
      () => obstacles(this.bodies),
      (walk, reason, at, blockedBy) => this.walkEnded(walk, reason, at, blockedBy),
    );
    if (options.collisions !== false) this.contacts = new Contacts(this.bodies, (contact) => this.contact(contact));
  }

  /** The registered tools (after connect), in registration order; empty after dispose. */
  get handles(): readonly ToolHandle[] {
    return this.tools?.handles ?? [];
  }

  /** A character a session may play (its id is the session's `character`): a display object it walks. */
  addCharacter(id: string, node: Container, options?: BodyOptions): this {
    this.alive('addCharacter');
    this.bodies.add('addCharacter', id, 'character', node, options);
    return this;
  }

  /** Something characters find and touch (an apple, a sign). */
  addObject(id: string, node: Container, options?: Omit<BodyOptions, 'speed' | 'facing'>): this {
    this.alive('addObject');
    this.bodies.add('addObject', id, 'object', node, options);
    return this;
  }

  /** Something that blocks sight and walking: a display object (its bounds) or a rectangle. */
  addObstacle(id: string, target: Container | Box, options?: Omit<BodyOptions, 'speed' | 'facing'>): this {
    this.alive('addObstacle');
    this.bodies.add('addObstacle', id, 'obstacle', target, options);
    return this;
  }

  /** Forgets a body (its walk and contacts go without a word). False if unknown. A destroyed display object leaves on its own. */
  remove(id: string): boolean {
    return this.bodies.remove(id);
  }

  /**
   * Registers the tools and, with a ticker, runs `update` on its every frame. Throws what
   * `registerTool` throws (e.g. AICC_DUPLICATE_TOOL; rename through `tools.overrides`), after
   * removing what it registered.
   */
  connect(loop: PixiConnectOptions = {}): this {
    this.alive('connect');
    if (this.connected) fail('connect: already connected; dispose() it and make a new binding to connect again');
    const ticker = loop.ticker;
    if (ticker !== undefined && (typeof ticker.add !== 'function' || typeof ticker.remove !== 'function'))
      fail('connect: ticker must be a PixiJS Ticker (app.ticker)');
    if (this.options.tools !== false) this.tools = bindTools(this.capsule, pixiTools(this, this.options.tools ?? {}));
    this.connected = true;
    if (ticker !== undefined) {
      const frame = (t: Ticker): void => this.update(Math.min(this.maxFrameMs, t.deltaMS));
      ticker.add(frame);
      this.stopTicker = () => void ticker.remove(frame);
    }
    return this;
  }

  /** One frame: walks characters by `dtMs`, sends the contacts that began or ended, and steps the capsule. */
  update(dtMs: number): void {
    this.alive('update');
    if (!Number.isFinite(dtMs)) fail(`update: expected a finite number of ms, got ${dtMs}`);
    const dt = Math.max(0, dtMs);
    const started = this.now();
    this.time += dt;
    this.walks.update(dt);
    this.contacts?.update();
    for (const [id, line] of this.lines) if (line.until <= this.time) this.lines.delete(id);
    if (this.options.stepCapsule !== false) this.courier.step(dt);
    this.frames++;
    this.capsuleMs += this.now() - started;
  }

  frameStats(): FrameStats {
    return { frames: this.frames, capsuleMs: this.capsuleMs };
  }

  /** The pairs overlapping as of the last frame, each [a, b] with a < b. */
  touching(): Array<[string, string]> {
    return this.contacts?.pairs() ?? [];
  }

  say(speaker: PixiBody, text: string, to?: string): string[] {
    this.lines.set(speaker.id, { text, until: this.time + this.sayMs });
    this.options.onSay?.(speaker.id, text);
    const listeners = audience(this.bodies, positionOf(speaker), this.perceptionRadius).filter((id) => id !== speaker.id);
    const message: EventPayloads['agent_message'] = { from: speaker.id, text };
    if (to !== undefined) message.to = to;
    this.send('agent_message', message, listeners);
    return listeners;
  }

  saying(id: string): string | undefined {
    return this.lines.get(id)?.text;
  }

  /** Leaves the ticker, drops every walk, removes the tools and forgets every body. The capsule stays the game's. Safe to call twice. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.stopTicker?.();
    this.walks.clear();
    this.contacts?.clear();
    this.tools?.dispose();
    this.bodies.clear();
    this.lines.clear();
    this.connected = false;
  }

  private walkEnded(walk: Walk, reason: WalkEnd, at: Point2, blockedBy?: string): void {
    // A walk replaced by a newer one is not news: the agent asked for it.
    if (reason === 'replaced') return;
    const payload: EventPayloads['state_change'] = {
      entity: walk.id,
      field: 'moving',
      value: false,
      previous: true,
      reason,
      x: Math.round(at.x),
      y: Math.round(at.y),
    };
    if (blockedBy !== undefined) payload.blocked_by = blockedBy;
    this.send('state_change', payload, [walk.id]);
  }

  private contact(contact: Contact): void {
    const to = audience(this.bodies, contact, this.perceptionRadius, [contact.a, contact.b]);
    this.send('collision', { a: contact.a, b: contact.b, phase: contact.phase, kind: 'overlap', x: contact.x, y: contact.y }, to);
  }

  private forget(body: PixiBody): void {
    this.walks.forget(body.id);
    this.contacts?.forget(body.id);
    this.lines.delete(body.id);
  }

  private send<T extends Topic>(topic: T, payload: EventPayloads[T], to: string[]): void {
    // With no character in range the event still reaches the capsule's own listeners (an inspector).
    this.courier.emit(topic, payload, to);
  }

  private alive(what: string): void {
    if (this.disposed) fail(`${what}: the binding is disposed; make a new one`);
  }
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(Number.isFinite(value) && value > 0)) fail(`${name} must be a finite number > 0, got ${value}`);
  return value;
}

function fail(problem: string): never {
  throw new CapsuleError('AICC_INVALID_OPTION', `PixiBinding: ${problem}`);
}
