// @vitest-environment jsdom
// docs/PIXI.md's example runs as written, with PixiJS's own Sprite, Texture and Ticker: only the
// Application is a stand-in (jsdom has no WebGL to initialise a renderer with), its ticker driven
// by the test. The browser test (test/e2e/browser/pixiDemo.test.ts) runs the real thing.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Container, Sprite, Texture, Ticker } from 'pixi.js';
import { expect, it } from 'vitest';
import { PixiBinding, pixiValidators } from '../../../src/adapters/pixi/index.js';
import { connectInProcess } from '../../../src/agent/inProcess.js';
import { createCapsule } from '../../../src/runtime/capsule.js';

// Read from the repository root (vitest's working directory): under jsdom import.meta.url is not a file URL.
const doc = readFileSync(join(process.cwd(), 'docs', 'PIXI.md'), 'utf8');

/**
 * An Application as far as the example uses one: init, a canvas, a stage, and a ticker that runs
 * on its own as a page's does — a 100 ms frame every turn of the event loop, in the ticker's own
 * time (no wall time passes: the frames are as fast as the test can run them).
 */
class StandInApplication {
  readonly stage = new Container();
  readonly ticker = new Ticker();
  readonly canvas = document.createElement('canvas');
  frames = 0;
  private running = false;
  async init(): Promise<void> {
    this.ticker.autoStart = false;
    this.running = true;
    let time = performance.now();
    const frame = (): void => {
      if (!this.running) return;
      this.ticker.update((time += 100));
      this.frames++;
      setImmediate(frame);
    };
    setImmediate(frame);
  }
  /** Resolves once `count` more frames have run. */
  async after(count: number): Promise<void> {
    const until = this.frames + count;
    while (this.frames < until) await new Promise((resolve) => setImmediate(resolve));
  }
  destroy(): void {
    this.running = false;
  }
}

it('the example walks Mira past the fence to where she was sent, and she speaks', async () => {
  const block = doc.match(/## A character in a few lines\n\n```ts compile\n([\s\S]*?)```/)![1]!;
  const imports = /^import [^\n]*\n/gm;
  expect(block.match(imports)).toEqual([
    "import 'pixi.js/unsafe-eval'; // PixiJS's own shaders without `new Function`: a strict CSP allows the page\n",
    "import { Application, Sprite, Texture } from 'pixi.js';\n",
    "import { connectInProcess, createCapsule } from 'aicc-capsule/core';\n",
    "import { PixiBinding, pixiValidators } from 'aicc-capsule/pixi';\n",
  ]);
  const body = `${block.replace(imports, '')}\nreturn { app, mira, walk, said, capsule };`;
  const AsyncFunction = (async () => {}).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<unknown>;
  const run = new AsyncFunction('Application', 'Sprite', 'Texture', 'connectInProcess', 'createCapsule', 'PixiBinding', 'pixiValidators', body);
  const { app, mira, walk, said, capsule } = (await run(StandInApplication, Sprite, Texture, connectInProcess, createCapsule, PixiBinding, pixiValidators)) as {
    app: StandInApplication;
    mira: Sprite;
    walk: unknown;
    said: unknown;
    capsule: { dispose(): void };
  };
  expect(walk).toMatchObject({ ok: true, output: { from: { x: 100, y: 500 }, to: { x: 600, y: 500 }, speed: 120 } });
  expect(said).toMatchObject({ ok: true, output: { text: 'Off to the orchard!', heard_by: [] } });
  // The ticker drives the walk: 500 px at 120 px/s, some 42 frames of 100 ms.
  await app.after(60);
  expect([mira.x, mira.y]).toEqual([600, 500]);
  app.destroy();
  capsule.dispose();
});
