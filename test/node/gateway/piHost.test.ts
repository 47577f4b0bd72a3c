// Host mode through the gateway, against a fake pi that speaks either RPC dialect (fakePi.mjs).
// The real pi 0.73.1 is exercised in test/e2e/piHost.test.ts.

import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CLOSE } from '../../../src/node/gateway/access.js';
import { PiHost } from '../../../src/node/gateway/piHost.js';
import { startGateway, type Gateway } from '../../../src/node/gateway/server.js';
import { BrowserClient, KEY, ORIGIN, tempDir, within, type Record_ } from './helpers.js';

const FAKE_PI = fileURLToPath(new URL('./fakePi.mjs', import.meta.url));

describe.each(['0.73', '1.x'])('host mode over a fake pi speaking the %s dialect', (dialect) => {
  let dir: ReturnType<typeof tempDir>;
  let host: PiHost;
  let gateway: Gateway;
  let client: BrowserClient;
  let logs: string[];
  let n = 0;
  const id = (what: string): string => `${what}-${++n}`;

  /** Every command the fake pi read, after its first line (argv and env). */
  const commands = (): Record_[] =>
    readFileSync(join(dir.path, 'pi.log'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line) as Record_);
  const state = async (): Promise<{ idle: boolean; settled: number; status: string }> =>
    (await client.request({ id: id('state'), type: 'get_state' })).data as never;
  async function settledAbove(before: number): Promise<void> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const now = await state();
      if (now.settled > before && now.idle) return;
      if (Date.now() > deadline) throw new Error(`settled stayed at ${now.settled} (idle ${now.idle})`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  const lastText = async (): Promise<unknown> => ((await client.request({ id: id('text'), type: 'get_last_assistant_text' })).data as { text: unknown }).text;

  beforeEach(async () => {
    dir = tempDir('aicc-pihost-');
    const mine: string[] = (logs = []);
    process.env.AICC_GATEWAY_KEY = KEY; // must not reach pi
    host = await PiHost.start({
      piBin: FAKE_PI,
      home: join(dir.path),
      label: 'Ada',
      env: { FAKE_PI_DIALECT: dialect, FAKE_PI_LOG: join(dir.path, 'pi.log'), FAKE_PI_RUN_MS: '80' },
      provider: 'stub',
      model: 'stub-model',
      systemPrompt: 'You are Ada.',
    });
    gateway = await startGateway({ target: { kind: 'host', host }, origins: [ORIGIN], key: KEY, log: (line) => mine.push(line) });
    client = BrowserClient.connect(`${gateway.url}/`);
  });

  afterEach(async () => {
    delete process.env.AICC_GATEWAY_KEY;
    client.close();
    await gateway.close();
    await host.close();
    dir.remove();
    expect(logs.join('\n')).not.toContain(KEY);
  });

  it('runs pi locked down, offline, with a private HOME and none of the AICC_* variables', () => {
    const first = JSON.parse(readFileSync(join(dir.path, 'pi.log'), 'utf8').split('\n')[0]!) as { argv: string[]; env: Record<string, string>; cwd: string };
    expect(first.argv).toEqual([
      '--mode',
      'rpc',
      '--provider',
      'stub',
      '--model',
      'stub-model',
      '--no-session',
      '--no-extensions',
      '--no-skills',
      '--no-prompt-templates',
      '--no-themes',
      '--no-context-files',
      '--no-tools',
      '--system-prompt',
      'You are Ada.',
    ]);
    expect(first.env).toMatchObject({ HOME: dir.path, PI_OFFLINE: '1', PI_TELEMETRY: '0', PI_SKIP_VERSION_CHECK: '1' });
    expect(first.env.PI_CODING_AGENT_DIR).toBeDefined();
    expect(Object.keys(first.env).filter((name) => name.startsWith('AICC_'))).toEqual([]);
  });

  it('answers hello with the negotiated version and the agent, and get_state with idle and settled 0', async () => {
    const hello = await client.hello();
    expect(hello).toMatchObject({
      success: true,
      data: {
        version: '1.0',
        protocol: { version: '1.0', minVersion: '1.0' },
        agent: { id: 'fake-session', label: 'Ada', piSessionId: 'fake-session', idle: true, settled: 0, status: 'idle' },
      },
    });
    expect(await state()).toMatchObject({ idle: true, settled: 0, status: 'idle' });
    expect(await lastText()).toBeNull();
  });

  it('refuses an incompatible version and a hello with a token', async () => {
    expect(await client.hello({ protocol: { version: '2.0', minVersion: '2.0' } })).toMatchObject({ success: false, errorCode: 'incompatible_version' });
    expect((await within(client.closed, 'the close')).code).toBe(CLOSE.badRequest);
    const other = BrowserClient.connect(`${gateway.url}/`);
    expect(await other.hello({ token: 'x' })).toMatchObject({ errorCode: 'auth_failed' });
    expect((await within(other.closed, 'the close')).code).toBe(CLOSE.badKey);
  });

  it('delivers a prompt, settles once, and serves the reply; the sender appears in a provenance header', async () => {
    await client.hello({ from: { id: 'page-7', label: 'Bram', host: 'browser' } });
    const before = (await state()).settled;
    const answer = await client.request({ id: 'd1', type: 'prompt', message: 'hello Ada', hops: 1, awaitsReply: true });
    expect(answer).toMatchObject({ id: 'd1', command: 'prompt', success: true, data: { deliveredAs: 'prompt' } });
    await settledAbove(before);
    expect((await state()).settled).toBe(before + 1);
    expect(await lastText()).toBe(
      'reply to: [pi-peers message from "Bram" (id "page-7" on "browser"), hop 1 of at most 3; the sender waits for your reply: answer in your final message]\n\nhello Ada',
    );
  });

  it('steers a running pi, queues a prompt while busy as a follow-up, all in one run', async () => {
    await client.hello();
    const before = (await state()).settled;
    await client.request({ id: 'p', type: 'prompt', message: 'first' });
    expect(await client.request({ id: 's', type: 'steer', message: 'faster' })).toMatchObject({ success: true, data: { deliveredAs: 'steer' } });
    expect(await client.request({ id: 'q', type: 'prompt', message: 'later' })).toMatchObject({ success: true, data: { deliveredAs: 'follow_up' } });
    await settledAbove(before);
    expect((await state()).settled).toBe(before + 1);
    expect(await lastText()).toBe('reply to: faster + later');
    expect(
      commands()
        .filter((c) => c.type === 'prompt')
        .map((c) => c.streamingBehavior),
    ).toEqual([undefined, 'followUp']);
  });

  it('delivers a steer or follow_up to an idle pi as a prompt, so it is not left waiting in a queue', async () => {
    await client.hello();
    const before = (await state()).settled;
    expect(await client.request({ id: 'f', type: 'follow_up', message: 'are you there?' })).toMatchObject({ success: true, data: { deliveredAs: 'prompt' } });
    await settledAbove(before);
    expect(await lastText()).toBe('reply to: are you there?');
  });

  it('does not deliver a repeated id twice, and answers it with the original response', async () => {
    await client.hello();
    const first = await client.request({ id: 'same', type: 'prompt', message: 'once' });
    await settledAbove(0);
    const again = await client.request({ id: 'same', type: 'prompt', message: 'once' });
    expect(again).toEqual(first);
    // Another connection retrying the same id is deduplicated too: the id is the key.
    const other = BrowserClient.connect(`${gateway.url}/`);
    await other.hello();
    expect(await other.request({ id: 'same', type: 'prompt', message: 'once' })).toEqual(first);
    other.close();
    expect(commands().filter((c) => c.type === 'prompt')).toHaveLength(1);
    expect((await state()).settled).toBe(1);
  });

  it('refuses a delivery past the hop limit without delivering it', async () => {
    await client.hello();
    expect(await client.request({ id: 'h4', type: 'prompt', message: 'deep', hops: 4 })).toMatchObject({
      success: false,
      errorCode: 'hop_limit',
      retryable: false,
    });
    expect(await client.request({ id: 'h0', type: 'prompt', message: 'bad', hops: 0 })).toMatchObject({ success: false, errorCode: 'invalid_request' });
    expect(await client.request({ id: 'm', type: 'prompt', message: '' })).toMatchObject({ success: false, errorCode: 'invalid_request' });
    expect(commands().filter((c) => c.type === 'prompt')).toHaveLength(0);
  });

  it('aborts a run: the answer comes once it has ended, and it counts as settled', async () => {
    await client.hello();
    await client.request({ id: 'long', type: 'prompt', message: 'a long story' });
    expect(await client.request({ id: 'stop', type: 'abort' })).toMatchObject({ success: true, command: 'abort' });
    expect(await state()).toMatchObject({ idle: true, settled: 1 });
  });

  it('holds a get_state with settledAbove until the run settles, and sends the reply text along', async () => {
    await client.hello();
    const held = client.request({ id: 'wait', type: 'get_state', settledAbove: 0, holdMs: 10_000 });
    await client.request({ id: 'p', type: 'prompt', message: 'hello Ada' });
    const answer = await held;
    expect(answer).toMatchObject({ success: true, data: { idle: true, settled: 1, held: true, lastAssistantText: 'reply to: hello Ada' } });
    // The text came from pi's agent_end event, not from asking pi.
    expect(commands().filter((c) => c.type === 'get_last_assistant_text')).toHaveLength(0);
    // Met already: answered at once, from the same run.
    expect((await client.request({ id: 'again', type: 'get_state', settledAbove: 0 })).data).toMatchObject({
      settled: 1,
      held: true,
      lastAssistantText: 'reply to: hello Ada',
    });
  });

  it('asks pi for the reply text of a run that did not end normally', async () => {
    await client.hello();
    await client.request({ id: 'long', type: 'prompt', message: 'a long story' });
    await client.request({ id: 'stop', type: 'abort' });
    const answer = await client.request({ id: 'wait', type: 'get_state', settledAbove: 0 });
    expect(answer.data).toMatchObject({ settled: 1, held: true });
    expect(answer.data).toHaveProperty('lastAssistantText');
    expect(commands().filter((c) => c.type === 'get_last_assistant_text')).toHaveLength(1);
  });

  it('answers a held get_state when its hold runs out, without a reply, and refuses a bad settledAbove', async () => {
    await client.hello();
    const answer = await client.request({ id: 'short', type: 'get_state', settledAbove: 0, holdMs: 30 });
    expect(answer).toMatchObject({ success: true, data: { idle: true, settled: 0, held: true } });
    expect(answer.data).not.toHaveProperty('lastAssistantText');
    expect(await client.request({ id: 'bad', type: 'get_state', settledAbove: -1 })).toMatchObject({ success: false, errorCode: 'invalid_request' });
    expect(await client.request({ id: 'frac', type: 'get_state', settledAbove: 0.5 })).toMatchObject({ success: false, errorCode: 'invalid_request' });
  });

  it('refuses records it does not serve, before and after the hello', async () => {
    client.send({ id: 'early', type: 'get_state' });
    expect(await client.waitFor((r) => r.id === 'early', 'the refusal')).toMatchObject({ errorCode: 'hello_required' });
    expect((await within(client.closed, 'the close')).code).toBe(CLOSE.badRequest);
    const other = BrowserClient.connect(`${gateway.url}/`);
    await other.hello();
    expect(await other.request({ id: 'x', type: 'get_messages' })).toMatchObject({ success: false, errorCode: 'unsupported_command' });
    other.send('not json');
    expect(await other.waitFor((r) => r.command === 'parse', 'the parse error')).toMatchObject({ success: false, errorCode: 'invalid_request' });
    other.close();
  });

  it('closes browsers with 4502 when pi dies, and says so in get_state', async () => {
    await client.hello();
    client.send({ id: 'die', type: 'prompt', message: 'die' });
    const closed = await within(client.closed, 'the close');
    expect(closed.code).toBe(CLOSE.agentGone);
    expect(closed.reason).toMatch(/^the hosted pi is gone: pi exited \(code 3\)/);
    expect(host.state()).toMatchObject({ idle: false, status: 'agent_unavailable' });
    expect(host.exit).toMatch(/fake pi: dying as asked/);
  });
});

describe('PiHost.start', () => {
  it("fails with pi's own words when pi cannot start", async () => {
    const dir = tempDir('aicc-pihost-fail-');
    await expect(PiHost.start({ piBin: FAKE_PI, home: dir.path, env: { FAKE_PI_FAIL_START: '1' } })).rejects.toThrow(
      /^PiProcess\.start: pi exited \(code 1\); pi said: fake pi: no model configured$/,
    );
    dir.remove();
  });

  it('fails clearly when the pi binary does not exist, and removes its private HOME', async () => {
    const before = new Set(readdir());
    await expect(PiHost.start({ piBin: '/nonexistent/pi' })).rejects.toThrow('PiProcess.start: pi could not be started (ENOENT); check --pi-bin');
    expect(readdir().filter((name) => !before.has(name))).toEqual([]);
  });
});

/** The private HOMEs PiProcess made in the temp folder. */
function readdir(): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith('aicc-pi-home-'));
}

describe("host mode's mcpCharacter option", () => {
  const never = (): Promise<PiHost> => Promise.reject(new Error('pi must not be started'));

  it('needs mcp: true, a starter rather than a running pi, and a character id', async () => {
    await expect(startGateway({ target: { kind: 'host', host: never, mcpCharacter: 'cleo' }, origins: [ORIGIN], key: KEY })).rejects.toThrow(
      /mcpCharacter needs mcp: true/,
    );
    await expect(startGateway({ target: { kind: 'host', host: {} as PiHost, mcpCharacter: 'cleo' }, origins: [ORIGIN], key: KEY, mcp: true })).rejects.toThrow(
      /a pi already running cannot be given MCP servers/,
    );
    await expect(startGateway({ target: { kind: 'host', host: never, mcpCharacter: 'no/such' }, origins: [ORIGIN], key: KEY, mcp: true })).rejects.toThrow(
      /is not a character id/,
    );
  });

  it("hands the starter this gateway's /mcp/<id> with the key as bearer header, and stops listening when pi fails", async () => {
    let given: Record<string, object> | undefined;
    const started = startGateway({
      target: { kind: 'host', host: async (servers) => ((given = servers), Promise.reject(new Error('pi would not start'))), mcpCharacter: 'cleo' },
      origins: [ORIGIN],
      key: KEY,
      mcp: true,
    });
    await expect(started).rejects.toThrow('pi would not start');
    expect(given).toEqual({
      aicc: { url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp\/cleo$/), headers: { Authorization: `Bearer ${KEY}` }, exposure: 'direct' },
    });
    const port = Number(/:(\d+)\//.exec((given!.aicc as { url: string }).url)![1]);
    const reached = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve('connected')));
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    expect(reached).toBe('ECONNREFUSED');
  });

  it('closes a page that lent its character while pi was starting, when pi fails', async () => {
    let page: WebSocket | undefined;
    const closed = new Promise<number>((resolve) => {
      const started = startGateway({
        target: {
          kind: 'host',
          host: async (servers) => {
            const port = Number(/:(\d+)\//.exec((servers!.aicc as { url: string }).url)![1]);
            page = new WebSocket(`ws://127.0.0.1:${port}/characters/cleo`, ['aicc.v0.1', `aicc-key.${KEY}`], { origin: ORIGIN });
            page.once('close', (code) => resolve(code));
            await new Promise((opened) => page!.once('open', opened));
            throw new Error('pi would not start');
          },
          mcpCharacter: 'cleo',
        },
        origins: [ORIGIN],
        key: KEY,
        mcp: true,
      });
      void started.catch(() => {});
    });
    expect(await closed).toBe(1001);
    expect(page?.readyState).toBe(WebSocket.CLOSED);
  });
});
