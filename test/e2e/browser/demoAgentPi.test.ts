// Each demo with `?agent=pi` in Chromium, end to end: the page's /pi socket goes through the demo
// server's proxy to a real `aicc gateway` hosting the real pi 0.73, whose model is a local stub
// scripted with tool-call blocks. With one character, that character is pi's: it moves only if
// pi's replies became tool calls. The gateway key never reaches the page.

import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleDemo } from '../../../demos/server/bundle.js';
import { startDemoServer, type DemoServer } from '../../../demos/server/server.js';
import { PiHost } from '../../../src/node/gateway/piHost.js';
import { startGateway, type Gateway } from '../../../src/node/gateway/server.js';
import { tempDir } from '../../node/gateway/helpers.js';
import { PI_CLI } from '../piTargets.js';
import { startStubModel, STUB_MODEL_ID, STUB_PROVIDER, writePiAgentDir, type StubModel } from '../stubModel.js';
import { launchChromium, type Chromium } from './chromium.js';
import { DemoPage } from './harness.js';

const root = join(import.meta.dirname, '..', '..', '..');
const block = (call: object): string => `\`\`\`aicc\n${JSON.stringify(call)}\n\`\`\``;

/** Per demo: the one tool call every model reply makes. */
const CASES = [
  { demo: 'phaser', call: { tool: 'move_by', input: { dx: 40, dy: 0 } } },
  { demo: 'three', call: { tool: 'move_to', input: { x: 6, z: -6 } } },
];

let browser: Chromium;

beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

for (const { demo, call } of CASES) {
  describe(`/${demo}/?agent=pi`, () => {
    const key = randomBytes(24).toString('hex');
    let stub: StubModel;
    let dir: ReturnType<typeof tempDir>;
    let host: PiHost;
    let gateway: Gateway;
    let server: DemoServer;
    const log: string[] = [];

    beforeAll(async () => {
      // Which model call gets which reply does not matter: they are all the same call.
      stub = await startStubModel({ fallbackReply: block(call) });
      dir = tempDir('aicc-e2e-browser-pi-');
      writePiAgentDir(join(dir.path, 'agent'), stub.baseUrl);
      host = await PiHost.start({
        piBin: PI_CLI,
        provider: STUB_PROVIDER,
        model: STUB_MODEL_ID,
        agentDir: join(dir.path, 'agent'),
        label: 'pi',
        systemPrompt: 'You play one character in a small game.',
      });
      gateway = await startGateway({ target: { kind: 'host', host }, origins: ['http://localhost:5173'], key, log: (line) => log.push(line) });
      server = await startDemoServer({
        root,
        demos: [await bundleDemo(join(root, 'demos'), demo)],
        port: 0,
        gateway: { url: `${gateway.url}/`, key },
        log: (line) => log.push(line),
      });
    }, 120_000);

    afterAll(async () => {
      await server?.close();
      await gateway?.close();
      await host?.close();
      await stub?.close();
      dir?.remove();
    });

    it(`moves pi's character by its ${call.tool} calls, the key kept off the page`, async () => {
      const page = await DemoPage.open(browser.context, `${server.url}${demo}/?agent=pi&characters=1`);
      try {
        const ready = await page.waitReady(60_000);
        expect(ready.agent).toBe('pi');
        expect(ready.characters).toHaveLength(1);
        await stub.waitForRequests(1, 30_000);
        const { moved } = await page.waitForMovement({ timeoutMs: 40_000 });
        expect(moved).toEqual([ready.characters[0]!.id]);
        // The only character is pi's, so a successful call of the stub's tool in the inspector is pi's.
        await page.page.waitForFunction(
          (tool) =>
            Array.from(document.querySelectorAll('[data-aicc-inspector] [data-aicc-call][data-ok="true"]')).some((row) => row.textContent?.includes(tool)),
          call.tool,
          { timeout: 10_000 },
        );
        expect(await page.problems()).toEqual([]);
        expect(await page.page.content()).not.toContain(key);
        expect(log.join('\n')).not.toContain(key);
      } finally {
        await page.close();
      }
    }, 150_000);
  });
}
