// A headless Phaser game under jsdom, stepped by hand. Phaser's import probes a 2D canvas
// (checkInverseAlpha) and its texture manager waits for <img> loads, neither of which jsdom
// provides: a do-nothing 2D context and an <img> that "loads" when given a src stand in.

import { createRequire } from 'node:module';
import type Phaser from 'phaser';
import { AgentClient } from '../../../src/agent/agentClient.js';
import { createMemoryLinkPair } from '../../../src/links/memory.js';
import { aiccScenePlugin, type AiccPluginOptions, type AiccScenePlugin } from '../../../src/adapters/phaser/index.js';
import { ManualClock } from '../../../src/base/clock.js';
import type { EventPayloads } from '../../../src/runtime/events.js';
import type { Capabilities, Topic } from '../../../src/protocol/messages.js';

type PhaserNamespace = typeof Phaser;

let installed = false;

/** Installs the canvas and image stubs on jsdom's window; once per test file. */
export function installCanvasStub(): void {
  if (installed) return;
  installed = true;
  const noop = (): void => {};
  const context = new Proxy(
    {
      measureText: (text: string) => ({ width: text.length * 6, actualBoundingBoxAscent: 8, actualBoundingBoxDescent: 2 }),
      getImageData: (_x: number, _y: number, w: number, h: number) => ({ data: new Uint8ClampedArray(Math.max(1, w * h * 4)) }),
      createImageData: (w: number, h: number) => ({ data: new Uint8ClampedArray(Math.max(1, w * h * 4)) }),
      createLinearGradient: () => ({ addColorStop: noop }),
      createRadialGradient: () => ({ addColorStop: noop }),
      createPattern: () => ({}),
      getLineDash: () => [],
      isPointInPath: () => false,
      // State a 2D context has; Phaser reads and writes these.
      fillStyle: '#000000',
      strokeStyle: '#000000',
      font: '10px sans-serif',
      globalAlpha: 1,
      globalCompositeOperation: 'source-over',
      lineWidth: 1,
      textAlign: 'start',
      textBaseline: 'alphabetic',
      imageSmoothingEnabled: true,
    } as Record<string | symbol, unknown>,
    {
      // Any other method (fillRect, drawImage, …) is a no-op.
      get: (target, key) => (key in target ? target[key] : typeof key === 'string' ? noop : undefined),
      set: (target, key, value) => {
        target[key] = value;
        return true;
      },
    },
  );
  HTMLCanvasElement.prototype.getContext = function getContext(this: HTMLCanvasElement, type: string) {
    return type === '2d' ? Object.assign(context, { canvas: this }) : null;
  } as typeof HTMLCanvasElement.prototype.getContext;
  Object.defineProperty(HTMLImageElement.prototype, 'src', {
    configurable: true,
    get(this: HTMLImageElement & { _src?: string }) {
      return this._src ?? '';
    },
    set(this: HTMLImageElement & { _src?: string }, value: string) {
      this._src = value;
      Object.defineProperty(this, 'complete', { configurable: true, value: true });
      Object.defineProperty(this, 'naturalWidth', { configurable: true, value: 32 });
      Object.defineProperty(this, 'naturalHeight', { configurable: true, value: 32 });
      this.width ||= 32;
      this.height ||= 32;
      setTimeout(() => this.dispatchEvent(new Event('load')), 0);
    },
  });
}

/**
 * The Phaser these tests run against: 4 (`phaser`) unless AICC_PHASER names another install, as
 * the `phaser 3.60` project of vitest.config.ts does (the `phaser3` dev dependency, the oldest
 * Phaser 3 the plugin supports).
 */
export const PHASER_PACKAGE = process.env['AICC_PHASER'] ?? 'phaser';

/** The version in the package.json of the Phaser install PHASER_PACKAGE points into. */
export function installedPhaserVersion(): string {
  const name = PHASER_PACKAGE.split('/')[0]!;
  return (createRequire(import.meta.url)(`${name}/package.json`) as { version: string }).version;
}

/** Phaser, imported after the stubs. */
export async function loadPhaser(): Promise<PhaserNamespace> {
  installCanvasStub();
  const module = (await import(PHASER_PACKAGE)) as PhaserNamespace & { default?: PhaserNamespace };
  return module.default ?? module;
}

let games = 0;

/** One frame at 60 fps, ms. */
export const FRAME_MS = 1000 / 60;

export interface Stage {
  Phaser: PhaserNamespace;
  game: Phaser.Game;
  scene: Phaser.Scene;
  plugin: AiccScenePlugin;
  /** Scene time so far, ms (the sum of the deltas stepped). */
  readonly time: number;
  /** Runs `frames` game steps of `deltaMs` each, by hand. */
  step(frames?: number, deltaMs?: number): void;
  /** Destroys the game (Phaser finishes that on the next step, which this runs). Once. */
  destroy(): void;
}

export interface StageOptions {
  plugin?: AiccPluginOptions;
  /** Arcade physics in the scene. Default true. */
  physics?: boolean;
  /** Runs in the scene's create(), after the plugin started. */
  create?: (scene: Phaser.Scene & { aicc: AiccScenePlugin }) => void;
}

/**
 * A HEADLESS game with the plugin installed from the game config (mapping `aicc`), its own loop
 * stopped as soon as the scene is created: from then on only `step` moves it, with chosen deltas.
 */
export async function stage(options: StageOptions = {}): Promise<Stage> {
  const Phaser = await loadPhaser();
  // Phaser keeps scene plugins in one cache per page, by key: each game here gets its own key so
  // that its own options apply.
  const key = `AiccScenePlugin${++games}`;
  let time = 0;
  const scene = await new Promise<Phaser.Scene & { aicc: AiccScenePlugin }>((resolve) => {
    new Phaser.Game({
      type: Phaser.HEADLESS,
      width: 800,
      height: 600,
      banner: false,
      autoFocus: false,
      audio: { noAudio: true },
      ...(options.physics !== false && { physics: { default: 'arcade', arcade: { fps: 60, gravity: { x: 0, y: 0 } } } }),
      plugins: { scene: [{ key, plugin: aiccScenePlugin(options.plugin ?? {}), mapping: 'aicc' }] },
      scene: {
        key: 'main',
        create(this: Phaser.Scene) {
          const self = this as Phaser.Scene & { aicc: AiccScenePlugin };
          options.create?.(self);
          resolve(self);
        },
      },
    });
  });
  const game = scene.sys.game;
  let destroyed = false;
  // The scene is created while the game boots, just before Phaser starts its own loop: stop that
  // loop now that it has started. No wall-clock frames from here on.
  game.loop.stop();
  if (game.loop.running) throw new Error('stage: the game loop is still running');
  return {
    Phaser,
    game,
    scene,
    plugin: scene.aicc,
    get time() {
      return time;
    },
    step(frames = 1, deltaMs = FRAME_MS) {
      for (let i = 0; i < frames; i++) {
        time += deltaMs;
        game.headlessStep(time, deltaMs);
      }
    },
    destroy() {
      if (destroyed) return;
      destroyed = true;
      game.destroy(true);
      game.headlessStep(time, 0);
    },
  };
}

/** An agent for `character`, connected through the plugin over a memory link, on its own manual clock. */
export async function agentFor(plugin: AiccScenePlugin, character: string, capabilities: Partial<Capabilities> = {}): Promise<AgentClient> {
  const [gameEnd, agentEnd] = createMemoryLinkPair();
  const agent = AgentClient.connect(agentEnd, { clock: new ManualClock() });
  // edge_small: events go out every few ms of scene time, so a test need not step far to see them.
  plugin.connect(gameEnd, { character, capabilities, agentModel: { class: 'edge_small' } });
  return agent;
}

/** Every event of `topic` the agent receives, in order. */
export function collect<T extends Topic>(agent: AgentClient, topic: T): Array<EventPayloads[T]> {
  const seen: Array<EventPayloads[T]> = [];
  agent.on(topic, (payload) => seen.push(payload as EventPayloads[T]));
  return seen;
}

/** Steps `frames` frames, letting link deliveries run after each (as a page's event loop would). */
export async function play(s: Stage, frames: number, deltaMs = FRAME_MS): Promise<void> {
  for (let i = 0; i < frames; i++) {
    s.step(1, deltaMs);
    await settle();
  }
}

/** Lets queued microtasks and link deliveries run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** A blank size×size texture, so sprites and bodies have that size (HEADLESS cannot draw one). */
export function makeTexture(scene: Phaser.Scene, key = 'dot', size = 16): string {
  if (!scene.textures.exists(key)) scene.textures.createCanvas(key, size, size);
  return key;
}
