// The options of the Scene plugin: what each means, its default, the checks that turn a bad one
// into a CapsuleError when the scene starts, and the capsule a scene start makes from them.

import type { CapsuleOptions } from '../../runtime/options.js';
import { createCapsule, type Capsule } from '../../runtime/capsule.js';
import { ManualClock } from '../../base/clock.js';
import { CapsuleError } from '../../base/errors.js';
import type { World } from '../../protocol/messages.js';
import type { Box } from './entities.js';
import type { BubbleStyle } from './speech.js';
import { phaserValidators } from './validators.js';

export interface AiccPluginOptions {
  /**
   * The capsule agents connect to. Given: the plugin uses it and leaves it open at shutdown (the game
   * owns it). Left out: the plugin creates one when the scene starts, on a clock that scene updates
   * drive, and disposes it when the scene shuts down.
   */
  capsule?: Capsule;
  /** For the capsule the plugin creates. Default `{ name: <scene key>, kind: '2d' }`. */
  world?: World;
  /**
   * Options of the capsule the plugin makes: tick rate, tick mode… Default: 10 Hz, fixed ticks. The
   * Phaser tools come with precompiled validators (no 'unsafe-eval', no ajv in the bundle);
   * `validators` checks tools of the game's own: ajvValidators() from aicc-capsule/ajv, or
   * precompiledValidators(…) of `aicc compile-schemas`. Without it such tools are refused.
   */
  capsuleOptions?: Omit<CapsuleOptions, 'world' | 'clock' | 'validators'> & Partial<Pick<CapsuleOptions, 'validators'>>;
  /** Step the capsule with each scene update's delta. Default true; turn off when one capsule serves several scenes and another drives it. */
  driveClock?: boolean;
  /** How far characters see (`nearby`) and hear (`say`, events), px. Default 400. */
  perceptionRadius?: number;
  /** Where characters may walk and things be spawned. Default: the Arcade world's bounds, else the game size. */
  bounds?: Box;
  /** Most registered entities (characters, objects, obstacles). Default 1,024. */
  maxEntities?: number;
  /** Most objects made by `spawn` alive at once. Default 64. */
  maxSpawned?: number;
  /** Most contacts tracked at once; more are not forwarded. Default 1,024. */
  maxContacts?: number;
  /** Physics steps without touching before a contact can end. Default 3. */
  contactGraceSteps?: number;
  /**
   * A contact ends only once its bodies are more than this far apart, px (0 to 64): a body resting
   * or pushed against another, which Arcade separates, is one contact. Default 2.
   */
  contactGap?: number;
  /** A walk that gets no closer for this long (scene ms) ends as blocked. Default 750. */
  stuckAfterMs?: number;
  /** Forward the scene's own Data Manager (`this.data`) changes as this entity. Default: not forwarded. */
  sceneDataEntity?: string;
  bubbles?: BubbleStyle;
}

export interface ResolvedOptions {
  driveClock: boolean;
  perceptionRadius: number;
  maxEntities: number;
  maxSpawned: number;
  maxContacts: number;
  contactGraceSteps: number;
  contactGap: number;
  stuckAfterMs: number;
}

export const PLUGIN_DEFAULTS: ResolvedOptions = {
  driveClock: true,
  perceptionRadius: 400,
  maxEntities: 1024,
  maxSpawned: 64,
  maxContacts: 1024,
  contactGraceSteps: 3,
  contactGap: 2,
  stuckAfterMs: 750,
};

/** The largest `contactGap`, px. */
export const MAX_CONTACT_GAP = 64;

export function resolveOptions(options: AiccPluginOptions): ResolvedOptions {
  const fail = (what: string): never => {
    throw new CapsuleError('AICC_INVALID_OPTION', `AiccScenePlugin: ${what}`);
  };
  if (options === null || typeof options !== 'object') fail('options must be an object');
  const out = { ...PLUGIN_DEFAULTS };
  for (const key of ['perceptionRadius', 'maxEntities', 'maxSpawned', 'maxContacts', 'contactGraceSteps', 'stuckAfterMs'] as const) {
    const value = options[key];
    if (value === undefined) continue;
    if (!(typeof value === 'number' && value > 0 && (Number.isFinite(value) || key === 'perceptionRadius')))
      fail(`${key} must be a number > 0, got ${String(value)}`);
    out[key] = value;
  }
  const gap = options.contactGap;
  if (gap !== undefined) {
    // A larger gap would call bodies a contact that are visibly apart.
    if (!(typeof gap === 'number' && gap >= 0 && gap <= MAX_CONTACT_GAP))
      fail(`contactGap must be a number from 0 to ${MAX_CONTACT_GAP} (px), got ${String(gap)}`);
    out.contactGap = gap;
  }
  if (options.driveClock !== undefined) {
    if (typeof options.driveClock !== 'boolean') fail(`driveClock must be true or false, got ${String(options.driveClock)}`);
    out.driveClock = options.driveClock;
  }
  if (options.capsule !== undefined && typeof options.capsule?.registerTool !== 'function') fail('capsule must be a Capsule (from createCapsule)');
  if (options.capsule !== undefined && (options.world !== undefined || options.capsuleOptions !== undefined)) {
    fail('world and capsuleOptions configure the capsule the plugin creates; with options.capsule, configure that capsule instead');
  }
  const sceneData = options.sceneDataEntity;
  if (sceneData !== undefined && (typeof sceneData !== 'string' || sceneData.length === 0)) fail('sceneDataEntity must be a non-empty string');
  return out;
}

/**
 * The capsule of a scene start: the game's own (`options.capsule`, which shutdown leaves open), or
 * one made on a clock the scene's updates drive (owned: shutdown disposes it). `measure` times its
 * deferred work — deliveries run after the frame's update, in a microtask of their own — so that
 * frameStats counts it.
 */
export function sceneCapsule(options: AiccPluginOptions, sceneKey: string, measure: (work: () => void) => void): { capsule: Capsule; owned: boolean } {
  if (options.capsule !== undefined) return { capsule: options.capsule, owned: false };
  const userMeasure = options.capsuleOptions?.measureWork;
  const capsule = createCapsule({
    world: options.world ?? { name: sceneKey, kind: '2d' },
    tickRateHz: 10,
    tickMode: 'fixed',
    ...options.capsuleOptions,
    // The Phaser tools' validators are precompiled; the game's own validators check its own tools.
    validators: phaserValidators(options.capsuleOptions?.validators),
    clock: new ManualClock(),
    measureWork: (work) => measure(() => (userMeasure === undefined ? work() : userMeasure(work))),
  });
  return { capsule, owned: true };
}
