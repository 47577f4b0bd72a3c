// The gateway's model drives a page's character: the Phaser demo in headless Chromium with
// `?agent=model` lends cleo (its capsule's session over /characters/cleo on its own origin, which the
// demo server joins to the gateway, adding the gateway key there), and a gateway in model mode drives
// her with a real small language model on 127.0.0.1 (test/support/localModel), reached through pi's
// provider library with a provider key that only the gateway holds. Asserted is the protocol — the
// decisions are made and logged, the model is offered cleo's own tools, every call it makes comes
// back to it, the page runs on with no error — and that neither key reaches the page, its console or
// any log line; never what a model this small chooses.

import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { ConsoleMessage } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundleDemo } from '../../../demos/server/bundle.js';
import { startDemoServer, type DemoServer } from '../../../demos/server/server.js';
import type { ModelReply, ModelRequest, ModelTurn } from '../../../src/agent/model/modelPort.js';
import { piAiModel } from '../../../src/node/model/piAi.js';
import { startGateway, type Gateway } from '../../../src/node/gateway/server.js';
import { launchChromium, type Chromium } from '../browser/chromium.js';
import { DemoPage } from '../browser/harness.js';
import { describeWithLocalModel, LOCAL_PROVIDER, type LocalModel, startLocalModel } from '../../support/localModel/index.js';

const root = join(import.meta.dirname, '..', '..', '..');
const gatewayKey = randomBytes(24).toString('hex');
/** The provider key the gateway sends the model server (which ignores it): it must reach nothing else. */
const providerKey = `sk-local-${randomBytes(16).toString('hex')}`;
const DECISIONS = 3;
/** A call fits in a few dozen tokens; each costs ~45 ms on one thread. */
const MAX_TOKENS = 48;

await describeWithLocalModel("the gateway's model drives the Phaser demo's cleo in Chromium", () => {
  let model: LocalModel;
  let browser: Chromium;
  let gateway: Gateway;
  let server: DemoServer;
  const log: string[] = [];
  const consoleLines: string[] = [];
  const requests: ModelRequest[] = [];
  const replies: ModelReply[] = [];

  beforeAll(async () => {
    model = await startLocalModel();
    const { turn } = await piAiModel({
      provider: LOCAL_PROVIDER,
      model: model.modelId,
      baseUrl: model.baseUrl,
      apiKey: providerKey,
      maxTokens: MAX_TOKENS,
      temperature: 0,
    });
    const watched: ModelTurn = async (request, options) => {
      requests.push(structuredClone(request));
      const reply = await turn(request, options);
      replies.push(reply);
      return reply;
    };
    gateway = await startGateway({
      // Two model requests a decision at most (a call and its answer): a decision of this small model
      // on one thread is then some 8 s, not the 25 s of the default six.
      target: { kind: 'model', turn: watched, name: `${LOCAL_PROVIDER}/${model.modelId}`, gate: { maxConcurrent: 1 }, backend: { maxStepsPerDecision: 2 } },
      origins: ['http://localhost:5173'],
      key: gatewayKey,
      log: (line) => log.push(line),
    });
    browser = await launchChromium();
    browser.context.on('console', (message: ConsoleMessage) => consoleLines.push(`${message.type()}: ${message.text()}`));
    server = await startDemoServer({
      root,
      demos: [await bundleDemo(join(root, 'demos'), 'phaser')],
      port: 0,
      gateway: { url: `${gateway.url}/`, key: gatewayKey },
      log: (line) => log.push(line),
    });
  }, 300_000);

  afterAll(async () => {
    await server?.close();
    await gateway?.close();
    await browser?.close();
    await model?.stop();
  });

  it(`lends cleo; the gateway's model makes ${DECISIONS} decisions with her tools, the keys reach nothing the page or the logs show`, async () => {
    const page = await DemoPage.open(browser.context, `${server.url}phaser/?agent=model&characters=3`);
    try {
      const ready = await page.waitReady(60_000);
      expect(ready.agent).toBe('model');
      expect(await page.page.locator('#who').textContent()).toBe("the gateway's model drives cleo, scripts the rest");
      const decided = () => log.filter((line) => /aicc gateway: cleo: decision \d+ /.test(line));
      for (let waited = 0; decided().length < DECISIONS; waited += 200) {
        if (waited > 240_000) throw new Error(`${decided().length} decisions in 240 s; the log: ${log.slice(-12).join('\n')}`);
        await page.page.waitForTimeout(200);
      }
      // Each decision ended as a decision ends, and says what it cost.
      for (const line of decided()) expect(line).toMatch(/decision \d+ (replied|reply_failed|send_failed), \d+ calls?, [\d.]+ s/);
      expect(decided().some((line) => / replied, .* tokens in/.test(line))).toBe(true);
      // The model was offered cleo's own tools, from the page's manifest, and briefed as cleo.
      expect(requests[0]!.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['position', 'nearby', 'move_to', 'move_by', 'say']));
      expect(JSON.stringify(requests[0]!.messages[0])).toContain('cleo');
      // Every call the model made came back to it, as a result or as a tool error it can correct.
      const asked = replies.flatMap((reply) => reply.content.flatMap((block) => (block.type === 'toolCall' ? [block.id] : [])));
      const answered = new Set(requests.flatMap((request) => request.messages.flatMap((m) => (m.role === 'toolResult' ? [m.toolCallId] : []))));
      const lastReply = replies.at(-1)!;
      const pending = lastReply.content.flatMap((block) => (block.type === 'toolCall' ? [block.id] : []));
      expect(asked.filter((id) => !answered.has(id) && !pending.includes(id))).toEqual([]);
      expect(await page.problems()).toEqual([]);
      const content = await page.page.content();
      expect(content).not.toContain(gatewayKey);
      expect(content).not.toContain(providerKey);
      process.stderr.write(
        `gateway model: ${decided().length} decisions, ${requests.length} model requests, ${asked.length} tool calls made; ${decided().slice(-1)[0]}\n`,
      );
    } finally {
      await page.close();
    }
    // The page leaving takes cleo away, and her model stops.
    for (let i = 0; i < 300 && !log.some((line) => /cleo: the model stopped driving it/.test(line)); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(log.join('\n'), log.slice(-8).join('\n')).toMatch(/cleo: the model stopped driving it/);
    for (const text of [log.join('\n'), consoleLines.join('\n')]) {
      expect(text).not.toContain(gatewayKey);
      expect(text).not.toContain(providerKey);
    }
  }, 360_000);
});
