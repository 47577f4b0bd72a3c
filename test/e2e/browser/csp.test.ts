// Strict CSP, as the README claims it: pages built by Vite from the packed package (a Phaser game
// with the Scene plugin, a Three scene with the binding) served with `Content-Security-Policy:
// script-src 'self'` — no 'unsafe-eval' — in Chromium. The adapters' tools are checked by their
// precompiled validators, so each page's character walks where its agent sends it, and the page logs
// nothing at all: no CSP violation, no error, no warning.
//
// And the first example a reader of docs/PHASER.md, docs/THREE.md and docs/PIXI.md copies, pasted
// as written into the app `npm create vite` makes (vanilla-ts, test/consumer/viteTemplate.ts), on
// Phaser 4, Phaser 3.90, three and PixiJS: the template's `npm run build` (its tsc, then vite build)
// passes, and the built page, under the same header, logs no error, warning or violation and draws
// what the example says — Mira's own texture where her walk ends; Wren's scene, with Wren walked off
// the origin; PixiJS's Mira where her walk past the fence ends.

import { createServer, type Server } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import type { AddressInfo } from 'node:net';
import { PerspectiveCamera, Vector3 } from 'three';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGame } from '../../../bench/phaserGame.build.js';
import { sectionBlock } from '../../consumer/codeBlocks.js';
import { consumerProject, packedSkip, ROOT } from '../../consumer/packed.js';
import { buildTemplateApp, createViteVersion, type Engine, templateApp } from '../../consumer/viteTemplate.js';
import { launchChromium, type Chromium } from './chromium.js';
import { blankProblem, decodePng, type Pixels } from './png.js';

const CSP = "script-src 'self'";

/** The page's view for the test: where its character is, what its agent's calls answered. */
interface CspState {
  ready: boolean;
  calls: unknown[];
  at: { x: number; y: number };
  problems: string[];
}

// Both pages keep window.cspState: ready once the agent's calls answered; `at` reads the character now.
const PHASER_PAGE = `import Phaser from 'phaser';
import { connectInProcess } from 'aicc-capsule';
import { aiccScenePlugin } from 'aicc-capsule/phaser';

const state = { ready: false, calls: [] as unknown[], at: { x: 0, y: 0 }, problems: [] as string[] };
(window as unknown as { cspState: typeof state }).cspState = state;

new Phaser.Game({
  type: Phaser.CANVAS,
  width: 400,
  height: 300,
  banner: false,
  audio: { noAudio: true },
  physics: { default: 'arcade' },
  plugins: { scene: [{ key: 'AiccScenePlugin', plugin: aiccScenePlugin({ perceptionRadius: 300 }), mapping: 'aicc' }] },
  scene: { create },
});

async function create(this: Phaser.Scene) {
  const dot = this.add.graphics().fillStyle(0xcc3333).fillRect(0, 0, 16, 16);
  dot.generateTexture('npc', 16, 16);
  dot.destroy();
  const mira = this.physics.add.sprite(100, 100, 'npc');
  this.aicc.addCharacter('mira', mira, { kind: 'villager', speed: 200 });
  this.aicc.registerTools();
  this.events.on('update', () => (state.at = { x: mira.x, y: mira.y }));
  try {
    const agent = await connectInProcess(this.aicc, { character: 'mira', capabilities: { sensors: ['sight'], actuators: ['legs', 'voice'] } });
    state.calls.push(await agent.call('nearby', { radius: 250 }));
    state.calls.push(await agent.call('move_to', { x: 300, y: 200 }));
    state.calls.push(await agent.call('say', { text: 'Hello under a strict CSP' }));
  } catch (error) {
    state.problems.push(String(error));
  }
  state.ready = true;
}
`;

const THREE_PAGE = `import { BoxGeometry, Mesh, MeshBasicMaterial, Scene, Vector3 } from 'three';
import { connectInProcess, createCapsule } from 'aicc-capsule/core';
import { CapsuleBinding, threeValidators } from 'aicc-capsule/three';

const state = { ready: false, calls: [] as unknown[], at: { x: 0, y: 0 }, problems: [] as string[] };
(window as unknown as { cspState: typeof state }).cspState = state;

const scene = new Scene();
const wren = new Mesh(new BoxGeometry(0.5, 1.6, 0.5), new MeshBasicMaterial());
scene.add(wren);
const capsule = createCapsule({ world: { name: 'Meadow', kind: '3d' }, tickMode: 'fixed', tickRateHz: 10, validators: threeValidators() });
const binding = new CapsuleBinding(capsule, scene, { tools: { overrides: { move_to: { area: { minX: -10, maxX: 10, minZ: -10, maxZ: 10 }, speed: 4 } } } });
binding.add('wren', wren, { kind: 'villager' }).connect();

// The game's own loop (no renderer here): each frame moves objects and steps the capsule.
let last = performance.now();
const frame = (now: number) => {
  binding.update(now - last);
  last = now;
  const at = wren.getWorldPosition(new Vector3());
  state.at = { x: at.x, y: at.z };
  requestAnimationFrame(frame);
};
requestAnimationFrame(frame);

try {
  const agent = await connectInProcess(capsule, { character: 'wren', capabilities: { sensors: ['proprioception', 'proximity'], actuators: ['legs'] } });
  state.calls.push(await agent.call('nearby', { radius: 10 }));
  state.calls.push(await agent.call('move_to', { x: 3, z: -2 }));
} catch (error) {
  state.problems.push(String(error));
}
state.ready = true;
`;

const PAGES = [
  { name: 'phaser', main: PHASER_PAGE, to: { x: 300, y: 200 }, calls: 3 },
  { name: 'three', main: THREE_PAGE, to: { x: 3, y: -2 }, calls: 2 },
] as const;

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** A static server on 127.0.0.1 for one built page, every response with the CSP header. */
async function serve(root: string): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname));
    const file = join(root, path.endsWith('/') ? `${path}index.html` : path);
    readFile(file).then(
      (body) => response.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Content-Security-Policy': CSP }).end(body),
      () => response.writeHead(404, { 'Content-Security-Policy': CSP }).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

let browser: Chromium | undefined;
const servers: Server[] = [];
const urls = new Map<string, string>();

beforeAll(async () => {
  if (packedSkip !== undefined) throw new Error(packedSkip);
  const project = consumerProject({ name: 'csp', link: ['vite', 'phaser', 'three'] });
  for (const page of PAGES) {
    const { outDir } = buildGame(project, page.name, page.main);
    const { url, server } = await serve(outDir);
    servers.push(server);
    urls.set(page.name, url);
  }
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

describe(`pages built from the packed package, under Content-Security-Policy: ${CSP}`, () => {
  for (const page of PAGES) {
    it(`${page.name}: the character walks where its agent sends it, and the page logs nothing`, { timeout: 60_000 }, async () => {
      const tab = await browser!.context.newPage();
      const logged: string[] = [];
      tab.on('console', (message) => logged.push(`console.${message.type()}: ${message.text()}`));
      tab.on('pageerror', (error) => logged.push(`page error: ${error.message}`));
      await tab.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI}`));
      });
      try {
        const response = await tab.goto(urls.get(page.name)!, { waitUntil: 'load' });
        expect(response?.headers()['content-security-policy']).toBe(CSP);
        const read = () => tab.evaluate(() => (window as unknown as { cspState?: CspState }).cspState);
        await tab
          .waitForFunction(() => (window as unknown as { cspState?: CspState }).cspState?.ready === true, null, { timeout: 30_000, polling: 50 })
          .catch(async (error: Error) => {
            throw new Error(
              `${page.name}: not ready (${error.message.split('\n')[0]}); it logged ${JSON.stringify(logged)}; state ${JSON.stringify(await read())}`,
            );
          });
        const state = (await read())!;
        expect(state.problems).toEqual([]);
        expect(state.calls, JSON.stringify(state.calls)).toHaveLength(page.calls);
        for (const call of state.calls) expect(call, JSON.stringify(call)).toMatchObject({ ok: true });
        // Phaser's move answers at once and the walk goes on across frames; Three's answers on arrival.
        await tab.waitForFunction(
          (to) => {
            const at = (window as unknown as { cspState: CspState }).cspState.at;
            return Math.hypot(at.x - to.x, at.y - to.y) < 1;
          },
          page.to,
          { timeout: 20_000, polling: 50 },
        );
        expect(logged).toEqual([]);
      } finally {
        await tab.close();
      }
    });
  }
});

const SCREENSHOTS = join(import.meta.dirname, '.screenshots');

/**
 * Chromium's own warning when its GL (SwiftShader here) has to wait on the GPU, e.g. "[.WebGL-0x…]GL
 * Driver Message (OpenGL, Performance, GL_CLOSE_PATH_NV, High): GPU stall due to ReadPixels", which
 * Phaser 3.90's WebGL renderer gets here: the machine's speed, not a fault of the page.
 */
const GL_DRIVER_NOTE = /^\[\.WebGL-[^\]]*\]GL Driver Message \([^,]*, Performance,/;

/** The canvas pixel at (x, y): r, g, b. */
function pixel(image: Pixels, x: number, y: number): [number, number, number] {
  const at = (Math.round(y) * image.width + Math.round(x)) * 4;
  return [image.data[at]!, image.data[at + 1]!, image.data[at + 2]!];
}

const near = (a: readonly number[], b: readonly number[]) => a.every((value, i) => Math.abs(value - b[i]!) <= 16);

/**
 * Why Mira is not drawn with a texture of her own at (x, y), or undefined when she is: every pixel
 * within 3 px is neither the black background nor Phaser's missing-texture image (a green outline and
 * diagonal on black, what a sprite whose texture was never loaded shows).
 */
function spriteProblem(image: Pixels, x: number, y: number): string | undefined {
  const seen = new Set<string>();
  for (let dy = -3; dy <= 3; dy++) for (let dx = -3; dx <= 3; dx++) seen.add(pixel(image, x + dx, y + dy).join(','));
  const wrong = [...seen].map((key) => key.split(',').map(Number)).filter((rgb) => near(rgb, [0, 0, 0]) || near(rgb, [0, 255, 0]));
  return wrong.length === 0
    ? undefined
    : `around (${x}, ${y}) the canvas shows ${[...seen].map((key) => `rgb(${key})`).join(' ')}: background or Phaser's missing texture, not Mira's own`;
}

/** What the docs' first examples must show once their agent's calls are done; undefined when they do. */
type Check = (image: Pixels) => string | undefined;

const DOC_APPS: { name: string; engine: Engine; doc: string; heading: string; check: Check }[] = [
  // Mira walks from (200, 200) to (400, 300) on an 800×600 canvas.
  { name: 'Phaser 4', engine: 'phaser', doc: 'docs/PHASER.md', heading: '## An NPC in a few lines', check: (image) => spriteProblem(image, 400, 300) },
  { name: 'Phaser 3.90', engine: 'phaser390', doc: 'docs/PHASER.md', heading: '## An NPC in a few lines', check: (image) => spriteProblem(image, 400, 300) },
  // The camera (at 0, 6, 10) looks at the origin, where Wren starts: the canvas's centre is her until
  // she walks off; then she stands where (4, 0, -2) is seen, drawn over the background.
  {
    name: 'three',
    engine: 'three',
    doc: 'docs/THREE.md',
    heading: '## Wire an NPC',
    check: (image) => {
      const blank = blankProblem(image);
      if (blank !== undefined) return blank;
      const centre = pixel(image, image.width / 2, image.height / 2);
      if (!near(centre, [0, 0, 0])) return `the canvas's centre is rgb(${centre.join(', ')}): Wren has not left the origin`;
      const camera = new PerspectiveCamera(50, image.width / image.height, 0.1, 100);
      camera.position.set(0, 6, 10);
      camera.lookAt(0, 0, 0);
      camera.updateMatrixWorld();
      const seen = new Vector3(4, 0, -2).project(camera);
      const [x, y] = [((seen.x + 1) / 2) * image.width, ((1 - seen.y) / 2) * image.height];
      const there = pixel(image, x, y);
      return near(there, [0, 0, 0]) ? `nothing is drawn at (${Math.round(x)}, ${Math.round(y)}), where Wren's walk to (4, -2) ends` : undefined;
    },
  },
  // Mira, a white 24 px square, walks from (100, 500) to (600, 500) under the fence, on green.
  {
    name: 'PixiJS',
    engine: 'pixi',
    doc: 'docs/PIXI.md',
    heading: '## A character in a few lines',
    check: (image) => {
      for (const [x, y, what] of [
        [600, 500, 'where her walk ends'],
        [100, 500, 'where she started, which she has left'],
      ] as const) {
        const at = pixel(image, x, y);
        const white = near(at, [255, 255, 255]);
        if (white !== (x === 600)) return `the canvas at (${x}, ${y}), ${what}, is rgb(${at.join(', ')})`;
      }
      return undefined;
    },
  },
];

describe(`the docs' first examples in a create-vite ${createViteVersion()} vanilla-ts app, under Content-Security-Policy: ${CSP}`, () => {
  for (const app of DOC_APPS) {
    it(`${app.name}: ${app.doc}'s "${app.heading.slice(3)}" as written passes npm run build, and the page draws it and logs no error`, {
      timeout: 360_000,
    }, async () => {
      const block = sectionBlock(ROOT, app.doc, app.heading);
      const dir = templateApp(`vite-template-${app.engine}`, app.engine);
      const { url, server } = await serve(buildTemplateApp(dir, block.code));
      servers.push(server);
      const tab = await browser!.context.newPage();
      // Errors, warnings and violations; Phaser's banner (console.log) is the page's own business, and
      // so are the notes software GL in headless Chromium adds about its own speed.
      const logged: string[] = [];
      tab.on('console', (message) => {
        if (GL_DRIVER_NOTE.test(message.text())) return;
        if (message.type() === 'error' || message.type() === 'warning') logged.push(`console.${message.type()}: ${message.text()}`);
      });
      tab.on('pageerror', (error) => logged.push(`page error: ${error.message}`));
      await tab.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI}`));
      });
      const shot = `docs-${app.engine}`;
      try {
        const response = await tab.goto(url, { waitUntil: 'load' });
        expect(response?.headers()['content-security-policy']).toBe(CSP);
        // Until the walk is over and drawn: bounded, and the last problem seen is the failure's message.
        let problem: string | undefined = 'no screenshot taken';
        let png: Buffer | undefined;
        for (const deadline = Date.now() + 45_000; Date.now() < deadline && logged.length === 0; ) {
          const canvas = tab.locator('canvas').first();
          png = (await canvas.count()) === 0 ? undefined : await canvas.screenshot({ timeout: 10_000 });
          problem = png === undefined ? 'the page has no canvas' : app.check(decodePng(png));
          if (problem === undefined) break;
          await tab.waitForTimeout(250);
        }
        if (png !== undefined) {
          mkdirSync(SCREENSHOTS, { recursive: true });
          writeFileSync(join(SCREENSHOTS, `${shot}.canvas.png`), png);
        }
        expect(logged, `${app.doc}:${block.line} under ${CSP}`).toEqual([]);
        expect(problem, `${app.doc}:${block.line} (screenshot: ${join(SCREENSHOTS, `${shot}.canvas.png`)})`).toBeUndefined();
      } finally {
        await tab.close();
      }
    });
  }
});
