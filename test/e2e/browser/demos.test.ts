// Each demo page in headless Chromium, served by the demo server as `npm run demo:web` serves it:
// it gets ready, its characters move through the capsule's tool calls (read from the page), the
// inspector lists the calls, the page logs no error, and its canvas is not blank. Screenshots go to
// test/e2e/browser/.screenshots/.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleDemo, findDemos, type DemoBundle } from '../../../demos/server/bundle.js';
import { startDemoServer, type DemoServer } from '../../../demos/server/server.js';
import { launchChromium, type Chromium } from './chromium.js';
import { DemoPage } from './harness.js';
import { blankProblem } from './png.js';

const root = join(import.meta.dirname, '..', '..', '..');
const demosDir = join(root, 'demos');
/** The pages issue #6 asks for: each demo's index, and the Phaser page that loads the IIFE bundle. */
const PAGES = [
  { demo: 'phaser', path: '', shot: 'phaser-index' },
  { demo: 'phaser', path: 'script.html', shot: 'phaser-script' },
  { demo: 'three', path: '', shot: 'three-index' },
];
const CHARACTERS = 4;

let browser: Chromium;
let server: DemoServer;
/** Why a demo could not be served (missing, or it does not build), by name. */
const unavailable = new Map<string, string>();

beforeAll(async () => {
  const present = findDemos(demosDir);
  const bundles: DemoBundle[] = [];
  for (const name of new Set(PAGES.map((page) => page.demo))) {
    if (!present.includes(name)) {
      unavailable.set(name, `demos/${name}/ is missing (it needs index.html and main.ts)`);
      continue;
    }
    try {
      bundles.push(await bundleDemo(demosDir, name));
    } catch (error) {
      unavailable.set(name, (error as Error).message);
    }
  }
  server = await startDemoServer({ root, demos: bundles, port: 0 });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

for (const { demo, path, shot } of PAGES) {
  describe(`/${demo}/${path}`, () => {
    it('runs its characters through tool calls, lists them in the inspector, logs no error and draws', async () => {
      const problem = unavailable.get(demo);
      if (problem !== undefined) throw new Error(problem);
      const page = await DemoPage.open(browser.context, `${server.url}${demo}/${path}?characters=${CHARACTERS}`);
      try {
        const ready = await page.waitReady(30_000);
        expect(ready.agent).toBe('scripted');
        expect(ready.characters.length).toBe(CHARACTERS);
        const { moved, after, before } = await page.waitForMovement({ minMoved: 2, timeoutMs: 20_000 });
        expect(moved.length).toBeGreaterThanOrEqual(2);
        expect(after.calls).toBeGreaterThan(before.calls);
        const listed = await page.waitForInspectorCalls(1);
        expect(listed.ok).toBeGreaterThan(0);
        const pixels = await page.screenshot(shot);
        expect(blankProblem(pixels)).toBeUndefined();
        expect(await page.problems()).toEqual([]);
      } finally {
        await page.close();
      }
    }, 90_000);
  });
}

describe('/phaser/?inspector=0', () => {
  it('runs without the inspector', async () => {
    const problem = unavailable.get('phaser');
    if (problem !== undefined) throw new Error(problem);
    const page = await DemoPage.open(browser.context, `${server.url}phaser/?inspector=0`);
    try {
      await page.waitReady(30_000);
      await page.waitForMovement({ timeoutMs: 20_000 });
      expect(await page.page.locator('[data-aicc-inspector]').count()).toBe(0);
      expect(await page.problems()).toEqual([]);
    } finally {
      await page.close();
    }
  }, 90_000);
});

describe('/phaser/script.html on Phaser 3.60', () => {
  it('runs the same page on the oldest Phaser 3 the plugin supports, its prebuilt script in place of Phaser 4’s', async () => {
    const problem = unavailable.get('phaser');
    if (problem !== undefined) throw new Error(problem);
    const phaser3 = readFileSync(join(root, 'node_modules', 'phaser3', 'dist', 'phaser.min.js'));
    const vendor = `${server.url}vendor/phaser.min.js`;
    await browser.context.route(vendor, (route) => route.fulfill({ body: phaser3, contentType: 'text/javascript; charset=utf-8' }));
    try {
      const page = await DemoPage.open(browser.context, `${server.url}phaser/script.html?characters=${CHARACTERS}`);
      try {
        expect(await page.page.evaluate(() => (window as unknown as { Phaser: { VERSION: string } }).Phaser.VERSION)).toBe('3.60.0');
        const ready = await page.waitReady(30_000);
        expect(ready.characters.length).toBe(CHARACTERS);
        const { moved, after, before } = await page.waitForMovement({ minMoved: 2, timeoutMs: 20_000 });
        expect(moved.length).toBeGreaterThanOrEqual(2);
        expect(after.calls).toBeGreaterThan(before.calls);
        expect((await page.waitForInspectorCalls(1)).ok).toBeGreaterThan(0);
        expect(blankProblem(await page.screenshot('phaser-script-3.60'))).toBeUndefined();
        expect(await page.problems()).toEqual([]);
      } finally {
        await page.close();
      }
    } finally {
      await browser.context.unroute(vendor);
    }
  }, 90_000);
});
