// Strict CSP, as the README claims it: pages built by Vite from the packed package (a Phaser game
// with the Scene plugin, a Three scene with the binding) served with `Content-Security-Policy:
// script-src 'self'` — no 'unsafe-eval' — in Chromium. The adapters' tools are checked by their
// precompiled validators, so each page's character walks where its agent sends it, and the page logs
// nothing at all: no CSP violation, no error, no warning.

import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGame } from '../../../bench/phaserGame.build.js';
import { consumerProject, packedSkip } from '../../consumer/packed.js';
import { launchChromium, type Chromium } from './chromium.js';

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

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.map': 'application/json' };

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
