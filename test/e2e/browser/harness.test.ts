// The browser harness itself, in the real Chromium, on a fixture page small enough to know exactly
// what it draws: it sees movement and tool calls, it catches a page's errors, its screenshot reads
// back the colours drawn, its blank-canvas check fails on a page that draws nothing, and a page's
// /pi socket reaches a gateway that receives the key the page never sees.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleDemos } from '../../../demos/server/bundle.js';
import { startDemoServer, type DemoServer } from '../../../demos/server/server.js';
import { launchChromium, type Chromium } from './chromium.js';
import { GATEWAY_KEY, startFakeGateway, type FakeGateway } from './fakeGateway.js';
import { DemoPage } from './harness.js';
import { blankProblem } from './png.js';

const root = join(import.meta.dirname, '..', '..', '..');
let browser: Chromium;
let server: DemoServer;
let gateway: FakeGateway;
let fixture: string;

beforeAll(async () => {
  gateway = await startFakeGateway();
  server = await startDemoServer({
    root,
    demos: await bundleDemos(join(import.meta.dirname, 'fixtures', 'demos')),
    port: 0,
    gateway: { url: gateway.url, key: GATEWAY_KEY },
  });
  fixture = `${server.url}fixture/`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await gateway?.close();
});

describe('browser harness on the fixture page', () => {
  it('sees the characters move through tool calls, with no errors logged', async () => {
    const page = await DemoPage.open(browser.context, fixture);
    try {
      expect((await page.waitReady()).agent).toBe('scripted');
      const { before, after, moved } = await page.waitForMovement({ minMoved: 2 });
      expect(moved).toEqual(['red', 'blue']);
      expect(after.calls).toBeGreaterThan(before.calls);
      expect(await page.problems()).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('reads the screenshot back as the colours drawn, and finds it not blank', async () => {
    const page = await DemoPage.open(browser.context, fixture);
    try {
      await page.waitReady();
      const pixels = await page.screenshot('fixture');
      expect([pixels.width, pixels.height]).toEqual([160, 120]);
      // The red square's row (y 20–39) and the blue one's (y 70–89) hold their colours somewhere;
      // the strip between them is the black background.
      const at = (x: number, y: number): number[] => [...pixels.data.subarray((y * pixels.width + x) * 4, (y * pixels.width + x) * 4 + 3)];
      const row = (y: number): number[][] => Array.from({ length: pixels.width }, (_, x) => at(x, y));
      expect(row(30)).toContainEqual([238, 51, 51]);
      expect(row(80)).toContainEqual([51, 51, 238]);
      expect(new Set(row(55).map(String))).toEqual(new Set(['0,0,0']));
      expect(blankProblem(pixels)).toBeUndefined();
    } finally {
      await page.close();
    }
  });

  it('fails the blank-canvas check on a page that draws nothing, whatever DOM lies over the canvas', async () => {
    const page = await DemoPage.open(browser.context, `${fixture}?blank=1&overlay=1`);
    try {
      await page.waitReady();
      expect(blankProblem(await page.screenshot('fixture-blank'))).toBe(
        'the canvas is blank: 0 of 19200 pixels (0.000%) differ from the background rgb(0, 0, 0); at least 0.05% must',
      );
    } finally {
      await page.close();
    }
  });

  it("reports a page's uncaught error", async () => {
    const page = await DemoPage.open(browser.context, `${fixture}?error=1`);
    try {
      await page.waitReady();
      await page.page.waitForFunction(() => (window as unknown as { aiccDemo: { errors: string[] } }).aiccDemo.errors.length > 0, null, { timeout: 5000 });
      expect(await page.problems()).toEqual([
        'page error: fixture: the error the harness must see',
        'aiccDemo.errors: Uncaught Error: fixture: the error the harness must see',
      ]);
    } finally {
      await page.close();
    }
  });

  it('gives up on a page that never gets ready, saying what it logged', async () => {
    const page = await DemoPage.open(browser.context, `${server.url}fixture/missing.html`);
    try {
      await expect(page.waitReady(500)).rejects.toThrow(
        /fixture\/missing\.html: aiccDemo\.ready not true within 500 ms .*the page logged: \[.*"HTTP 404: http:\/\/127\.0\.0\.1:\d+\/fixture\/missing\.html".*\]/,
      );
    } finally {
      await page.close();
    }
  });

  it("joins a page's /pi socket to the gateway, which gets the key the page never sees", async () => {
    const page = await DemoPage.open(browser.context, fixture);
    try {
      const seen = await page.page.evaluate(
        () =>
          new Promise<{ protocol: string; reply: string }>((resolve, reject) => {
            const socket = new WebSocket(`ws://${location.host}/pi`, ['pi-peers.v1']);
            socket.onerror = () => reject(new Error('the /pi socket failed'));
            socket.onopen = () => socket.send('{"id":"h1","type":"hello"}');
            socket.onmessage = (event) => {
              resolve({ protocol: socket.protocol, reply: String(event.data) });
              socket.close();
            };
          }),
      );
      expect(seen).toEqual({ protocol: 'pi-peers.v1', reply: 'echo:{"id":"h1","type":"hello"}' });
      expect(gateway.offers.at(-1)).toEqual(['pi-peers.v1', `aicc-key.${GATEWAY_KEY}`]);
      expect(await page.page.content()).not.toContain(GATEWAY_KEY);
    } finally {
      await page.close();
    }
  });
});
