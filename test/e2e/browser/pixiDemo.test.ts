// The PixiJS demo page (demos/pixi/) in headless Chromium, served by the demo server as `npm run
// demo:web` serves it, under `Content-Security-Policy: script-src 'self'` (no eval, no inline script):
// PixiJS draws the orchard with WebGL, the binding's tools are checked by their precompiled
// validators, the villagers walk where their agents' tool calls send them, the inspector lists the
// calls, and the page logs no error, warning or policy violation. Screenshots go to
// test/e2e/browser/.screenshots/.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleDemo } from '../../../demos/server/bundle.js';
import { type DemoServer, startDemoServer } from '../../../demos/server/server.js';
import { type Chromium, launchChromium } from './chromium.js';
import { DemoPage } from './harness.js';
import { blankProblem } from './png.js';

const CSP = "script-src 'self'";
const root = join(import.meta.dirname, '..', '..', '..');
const CHARACTERS = 4;

let browser: Chromium;
let server: DemoServer;

beforeAll(async () => {
  server = await startDemoServer({ root, demos: [await bundleDemo(join(root, 'demos'), 'pixi')], port: 0, csp: CSP });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('/pixi/', () => {
  it(`under ${CSP}: PixiJS draws, the villagers move through tool calls, the inspector lists them, nothing is logged`, async () => {
    const page = await DemoPage.open(browser.context, `${server.url}pixi/?characters=${CHARACTERS}`, { csp: CSP });
    try {
      expect(page.documentHeaders()['content-security-policy']).toBe(CSP);
      const ready = await page.waitReady(30_000);
      expect(ready.characters.length).toBe(CHARACTERS);
      const { moved, after, before } = await page.waitForMovement({ minMoved: 2, timeoutMs: 20_000 });
      expect(moved.length).toBeGreaterThanOrEqual(2);
      expect(after.calls).toBeGreaterThan(before.calls);
      expect((await page.waitForInspectorCalls(1)).ok).toBeGreaterThan(0);
      // PixiJS's ticker drives the binding, and the binding the capsule.
      const stats = await page.page.evaluate(() => (window as unknown as { aiccDemo: { frameStats(): { frames: number } } }).aiccDemo.frameStats());
      expect(stats.frames).toBeGreaterThan(10);
      expect(blankProblem(await page.screenshot('pixi-index'))).toBeUndefined();
      expect(await page.problems()).toEqual([]);
    } finally {
      await page.close();
    }
  }, 90_000);
});
