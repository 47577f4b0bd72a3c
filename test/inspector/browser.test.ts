// The inspector in real (headless) Chromium, on a page whose policy is `default-src 'self'` (no
// inline script, no inline style, no eval) with a 960×640 canvas as the game: styled all the same,
// no policy violation, out of the game's way in its corner, columns lined up, a call opened, and
// the room its open panel takes told to the page.
// The page is this test's own: the inspector and the core bundled by esbuild, served on 127.0.0.1.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type Chromium } from '../e2e/browser/chromium.js';

const root = join(import.meta.dirname, '..', '..');
const POLICY = "default-src 'self'";
const HTML = `<!doctype html><html><head><meta charset="utf-8"><title>inspector under CSP</title></head>
<body><canvas id="game" width="960" height="640"></canvas><script type="module" src="/page.js"></script></body></html>`;

// A capsule with one tool, an in-page agent making 12 calls, 12 events; the inspector at its defaults.
const ENTRY = `
import { createCapsule, connectInProcess } from './src/core.ts';
import { mountInspector } from './src/inspector/index.ts';
// A stand-in validator that accepts everything: ajv would need eval, and this page is about the overlay.
const validators = { compile: () => () => ({ ok: true }) };
const capsule = createCapsule({ world: { name: 'Page', kind: '2d' }, tickMode: 'event', validators });
capsule.registerTool({ id: 'echo', class: 'sensor', description: 'Returns its input.', input_schema: { type: 'object' }, output_schema: { type: 'object' }, handler: (input) => ({ echo: input }) });
const inspector = mountInspector(capsule);
const agent = await connectInProcess(capsule, { character: 'wren' });
for (let i = 1; i <= 12; i++) await agent.call('echo', { text: 'hello '.repeat(i) });
for (let i = 1; i <= 12; i++) capsule.emit('state_change', { entity: 'door', field: 'open', value: i % 2 === 0 });
window.page = { inspector };
`;

let server: Server;
let url: string;
let browser: Chromium;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  const bundle = await build({
    stdin: { contents: ENTRY, resolveDir: root, loader: 'ts', sourcefile: 'page.ts' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const script = bundle.outputFiles[0]!.text;
  server = createServer((request, response) => {
    const [type, body] = request.url === '/page.js' ? ['text/javascript', script] : request.url === '/' ? ['text/html', HTML] : [undefined, undefined];
    // No favicon, and no 404 in the console for it.
    if (body === undefined) return void response.writeHead(request.url === '/favicon.ico' ? 204 : 404).end();
    response.writeHead(200, { 'content-type': `${type}; charset=utf-8`, 'content-security-policy': POLICY }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  browser = await launchChromium();
  page = await browser.context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(url);
  await page.waitForFunction(
    () => document.querySelectorAll('[data-aicc-call][data-ok="true"]').length === 12 && document.querySelectorAll('[data-aicc-event]').length === 12,
    undefined,
    { timeout: 20_000 },
  );
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

const box = (selector: string): Promise<Box> =>
  page.evaluate((s) => {
    const rect = document.querySelector(s)!.getBoundingClientRect();
    return { x: rect.x, y: rect.y, width: rect.width, height: rect.height };
  }, selector);
/** What a click at (x, y) would reach: the game's canvas, or a part of the inspector. */
const hit = (x: number, y: number): Promise<string> =>
  page.evaluate(
    ([px, py]) => {
      const element = document.elementFromPoint(px!, py!);
      return element?.id === 'game' ? 'game' : element?.closest('[data-aicc-inspector]') !== null ? 'inspector' : String(element?.tagName);
    },
    [x, y],
  );
const inspector = (call: string): Promise<void> =>
  page.evaluate((code) => new Function('inspector', code)((window as unknown as { page: { inspector: unknown } }).page.inspector), call);

describe(`the inspector on a page with ${POLICY}`, () => {
  it('is styled (an adopted stylesheet, no <style>, no style attribute) and the page logs no violation', async () => {
    const styled = await page.evaluate(() => ({
      position: getComputedStyle(document.querySelector('[data-aicc-inspector]')!).position,
      adopted: document.adoptedStyleSheets.length,
      styleElements: document.querySelectorAll('style').length,
      styleAttributes: document.querySelectorAll('[style]').length,
    }));
    expect(styled).toEqual({ position: 'fixed', adopted: 1, styleElements: 0, styleAttributes: 0 });
    expect(problems).toEqual([]);
  });

  it('open in its default corner it takes at most a quarter of the page, and the middle of the game stays reachable', async () => {
    const panel = await box('[data-aicc-panel]');
    expect(panel.width).toBeLessThanOrEqual(960 / 2);
    expect(panel.height).toBeLessThanOrEqual(640 / 2);
    expect(panel.x + panel.width).toBeGreaterThan(940);
    expect(panel.y + panel.height).toBeGreaterThan(600);
    expect(await hit(480, 320)).toBe('game');
    expect(await hit(panel.x + 20, panel.y + 20)).toBe('inspector');
  });

  it('lines up each column header with the cells under it', async () => {
    const lined = await page.evaluate(() => {
      const header = Array.from(document.querySelectorAll('[data-aicc-section="calls"] [data-aicc-columns] > span'));
      const row = Array.from(document.querySelector('[data-aicc-call]')!.children);
      return header.map((cell, i) => [cell.getBoundingClientRect().x, row[i]!.getBoundingClientRect().x, row[i]!.getBoundingClientRect().width > 0]);
    });
    expect(lined).toHaveLength(6);
    for (const [headerX, cellX, visible] of lined) {
      expect(cellX).toBeCloseTo(headerX as number, 0);
      expect(visible).toBe(true);
    }
  });

  it('opens a call to its whole output, and closes it again', async () => {
    const before = await box('[data-aicc-call]');
    await page.click('[data-aicc-call] [data-cell="tool"]');
    const opened = await box('[data-aicc-call]');
    expect(opened.height).toBeGreaterThan(before.height * 2);
    expect(await page.textContent('[data-aicc-call] [data-field="output"]')).toBe(`echo: {text: "${'hello '.repeat(12)}"}`);
    await page.click('[data-aicc-call] [data-cell="tool"]');
    expect((await box('[data-aicc-call]')).height).toBe(before.height);
  });

  it('closed it is only its button; docked on a side it spans the height, and its empty parts let clicks through', async () => {
    await inspector('inspector.close()');
    const button = await box('[data-aicc-toggle]');
    expect(button.width * button.height).toBeLessThan(960 * 640 * 0.01);
    await inspector("inspector.dockTo('left'); inspector.open()");
    const panel = await box('[data-aicc-panel]');
    expect(panel.x).toBeLessThan(20);
    expect(panel.height).toBeGreaterThan(640 * 0.8);
    expect(panel.width).toBeLessThanOrEqual(960 * 0.4);
    await inspector('inspector.close()');
    // Closed on the left: the root still spans the side, but a click under the button reaches the game.
    expect(await hit(12, 600)).toBe('game');
    await inspector("inspector.dockTo('bottom-right'); inspector.open()");
    expect(problems).toEqual([]);
  });

  it('tells the page the room its open panel takes on its side (--aicc-inspector-left / -right), and none when closed', async () => {
    const room = (): Promise<string[]> =>
      page.evaluate(() => {
        const style = getComputedStyle(document.documentElement);
        return [style.getPropertyValue('--aicc-inspector-left'), style.getPropertyValue('--aicc-inspector-right')];
      });
    const right = await box('[data-aicc-panel]');
    expect(await room()).toEqual(['', `${Math.ceil(960 - right.x + 8)}px`]);
    await inspector("inspector.dockTo('left')");
    const left = await box('[data-aicc-panel]');
    expect(await room()).toEqual([`${Math.ceil(left.x + left.width + 8)}px`, '']);
    await inspector('inspector.close()');
    expect(await room()).toEqual(['', '']);
    await inspector("inspector.dockTo('bottom-right'); inspector.open()");
    expect(await room()).toEqual(['', `${Math.ceil(960 - right.x + 8)}px`]);
    expect(problems).toEqual([]);
  });
});
