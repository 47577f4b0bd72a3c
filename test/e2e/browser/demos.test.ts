// Each demo page in headless Chromium, served by the demo server as `npm run demo:web` serves it,
// under `Content-Security-Policy: script-src 'self'` (no eval, no inline script): it gets ready, its
// characters move through the capsule's tool calls (read from the page), the inspector lists the
// calls, the page logs no error and no policy violation, and its canvas is not blank. The inspector
// keeps out of the game's way (open or closed, on either side), follows a Phaser scene's restart
// with its place and filter, and a page whose agent cannot connect says so on the page.
// Screenshots go to test/e2e/browser/.screenshots/.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleDemo, findDemos, type DemoBundle } from '../../../demos/server/bundle.js';
import { startDemoServer, type DemoServer } from '../../../demos/server/server.js';
import { launchChromium, type Chromium } from './chromium.js';
import { DemoPage, type Box } from './harness.js';
import { blankProblem } from './png.js';

/** The policy every demo page must run under: scripts from its own origin only, no eval. */
const CSP = "script-src 'self'";

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
  // As `npm run demo:web` serves them: every page under the strict policy.
  server = await startDemoServer({ root, demos: bundles, port: 0, csp: CSP });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

for (const { demo, path, shot } of PAGES) {
  describe(`/${demo}/${path}`, () => {
    it(`under ${CSP}: runs its characters through tool calls, lists them in the inspector, logs no error or violation and draws`, async () => {
      const problem = unavailable.get(demo);
      if (problem !== undefined) throw new Error(problem);
      const page = await DemoPage.open(browser.context, `${server.url}${demo}/${path}?characters=${CHARACTERS}`, { csp: CSP });
      try {
        expect(page.documentHeaders()['content-security-policy']).toBe(CSP);
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
  it(`runs the same page on the oldest Phaser 3 the plugin supports, its prebuilt script in place of Phaser 4’s, under ${CSP}`, async () => {
    const problem = unavailable.get('phaser');
    if (problem !== undefined) throw new Error(problem);
    const phaser3 = readFileSync(join(root, 'node_modules', 'phaser3', 'dist', 'phaser.min.js'));
    const vendor = `${server.url}vendor/phaser.min.js`;
    await browser.context.route(vendor, (route) => route.fulfill({ body: phaser3, contentType: 'text/javascript; charset=utf-8' }));
    try {
      const page = await DemoPage.open(browser.context, `${server.url}phaser/script.html?characters=${CHARACTERS}`, { csp: CSP });
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

/** The area two boxes share, px². */
function overlap(a: Box, b: Box): number {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return Math.max(0, width) * Math.max(0, height);
}

/** Chooses `value` in one of the inspector's lists, as a person would. */
async function choose(page: DemoPage, select: string, value: string): Promise<void> {
  await page.page.selectOption(`[data-aicc-inspector] ${select}`, value);
}

for (const { demo, path } of PAGES) {
  describe(`/${demo}/${path}: the game stays in view`, () => {
    it('the inspector opens beside the game, not over it; closed or docked left, the game takes the room it leaves', async () => {
      const problem = unavailable.get(demo);
      if (problem !== undefined) throw new Error(problem);
      const page = await DemoPage.open(browser.context, `${server.url}${demo}/${path}?characters=${CHARACTERS}`);
      try {
        await page.waitReady(30_000);
        await page.waitForInspectorCalls(1);
        const viewport = page.page.viewportSize()!;
        // Phaser scales its game to the room it has; the layout settles within its resize check.
        const settled = async (check: (canvas: Box, panel: Box | undefined) => boolean, what: string): Promise<{ canvas: Box; panel: Box | undefined }> => {
          const deadline = Date.now() + 5_000;
          for (;;) {
            const canvas = (await page.box('canvas'))!;
            const panel = await page.box('[data-aicc-panel]');
            if (check(canvas, panel)) return { canvas, panel };
            if (Date.now() > deadline) throw new Error(`${what}: canvas ${JSON.stringify(canvas)}, panel ${JSON.stringify(panel)}`);
            await page.page.waitForTimeout(100);
          }
        };
        expect(await page.page.getAttribute('[data-aicc-inspector]', 'data-open')).toBe('true');
        const open = await settled((canvas, panel) => panel !== undefined && overlap(canvas, panel) === 0, 'open on the right, the panel overlaps the game');
        expect(open.canvas.width * open.canvas.height).toBeGreaterThan(viewport.width * viewport.height * 0.25);

        await page.page.click('[data-aicc-toggle]');
        expect(await page.page.getAttribute('[data-aicc-inspector]', 'data-open')).toBe('false');
        // Closed, the game has the room back: wider than it was beside the panel.
        const closed = await settled((canvas) => canvas.width > open.canvas.width + 100, 'closed, the game did not take the room back');
        const button = (await page.box('[data-aicc-toggle]'))!;
        expect(overlap(closed.canvas, button)).toBeLessThan(closed.canvas.width * closed.canvas.height * 0.01);

        await page.page.click('[data-aicc-toggle]');
        await choose(page, '[data-aicc-dock]', 'left');
        const left = await settled(
          (canvas, panel) => panel !== undefined && panel.x < 20 && overlap(canvas, panel) === 0,
          'docked left, the panel overlaps the game',
        );
        expect(left.canvas.x).toBeGreaterThanOrEqual(left.panel!.x + left.panel!.width);
        expect(await page.problems()).toEqual([]);
      } finally {
        await page.close();
      }
    }, 90_000);
  });
}

for (const demo of ['phaser', 'three']) {
  describe(`/${demo}/?agent=pi with no gateway`, () => {
    it('says on the page that pi could not connect, and why; the scripted characters go on', async () => {
      const problem = unavailable.get(demo);
      if (problem !== undefined) throw new Error(problem);
      const page = await DemoPage.open(browser.context, `${server.url}${demo}/?agent=pi&characters=3`);
      try {
        const status = page.page.locator('#status');
        await status.waitFor({ state: 'visible', timeout: 20_000 });
        const text = await status.textContent();
        expect(text).toMatch(/ada .*pi could not connect/);
        expect(text).toContain('no gateway: start npm run demo:web with --gateway');
        const { moved } = await page.waitForMovement({ timeoutMs: 20_000 });
        expect(moved).not.toContain('ada');
      } finally {
        await page.close();
      }
    }, 90_000);
  });
}

describe('/phaser/: a scene restart', () => {
  it('keeps the one inspector, its dock and its filter, on the new capsule', async () => {
    const problem = unavailable.get('phaser');
    if (problem !== undefined) throw new Error(problem);
    const page = await DemoPage.open(browser.context, `${server.url}phaser/?characters=${CHARACTERS}`);
    try {
      await page.waitReady(30_000);
      await page.waitForInspectorCalls(1);
      await choose(page, '[data-aicc-dock]', 'left');
      await choose(page, '[data-aicc-filter="character"]', 'bram');
      await page.page.evaluate(() => {
        const w = window as unknown as { aiccDemo: { capsule: unknown; restart(): void }; before: unknown };
        w.before = w.aiccDemo.capsule;
        w.aiccDemo.restart();
      });
      await page.page.waitForFunction(
        () => {
          const w = window as unknown as { aiccDemo: { capsule: unknown; ready: boolean }; before: unknown };
          return w.aiccDemo.capsule !== w.before && w.aiccDemo.ready;
        },
        null,
        { timeout: 30_000 },
      );
      await page.waitForMovement({ timeoutMs: 20_000 });
      expect(await page.page.locator('[data-aicc-inspector]').count()).toBe(1);
      expect(await page.page.getAttribute('[data-aicc-inspector]', 'data-dock')).toBe('left');
      expect(await page.page.inputValue('[data-aicc-filter="character"]')).toBe('bram');
      await page.waitForInspectorCalls(1);
      const characters = await page.page.$$eval('[data-aicc-call] [data-cell="character"]', (cells) => [...new Set(cells.map((cell) => cell.textContent))]);
      expect(characters).toEqual(['bram']);
      expect(await page.problems()).toEqual([]);
    } finally {
      await page.close();
    }
  }, 90_000);
});
