// The window at the end of a run — after pi's last look at its queues, before the run settles — in
// which a queued message would wait unseen: RunEnding on its own, and the host over a fake pi that
// has the window (FAKE_PI_END_GAP for 0.73, FAKE_PI_SETTLE_GAP for 1.x). The fake holds its window
// open until the test shuts it (SIGUSR2), so what the test sends lands in it however slow the machine.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PiHost, STRANDED_NOTE } from '../../../src/node/gateway/piHost.js';
import { RunEnding } from '../../../src/node/gateway/runEnding.js';
import { startGateway, type Gateway } from '../../../src/node/gateway/server.js';
import { BrowserClient, KEY, ORIGIN, tempDir, type Record_ } from './helpers.js';

const FAKE_PI = fileURLToPath(new URL('./fakePi.mjs', import.meta.url));
const text = (t: string) => [{ type: 'text', text: t }];

describe('RunEnding', () => {
  it("is finishing from a final reply (stop, no tool calls) until the next turn or the run's end", () => {
    const ending = new RunEnding();
    ending.event({ type: 'agent_start' });
    ending.event({ type: 'message_end', message: { role: 'assistant', stopReason: 'toolUse', content: [{ type: 'toolCall' }] } });
    expect(ending.finishing).toBe(false);
    ending.event({ type: 'message_end', message: { role: 'assistant', stopReason: 'stop', content: text('done') } });
    expect(ending.finishing).toBe(true);
    ending.event({ type: 'turn_start' });
    expect(ending.finishing).toBe(false);
    ending.event({ type: 'message_end', message: { role: 'assistant', stopReason: 'stop', content: text('done') } });
    ending.event({ type: 'agent_end', messages: [] });
    expect(ending.finishing).toBe(false);
  });

  it('reports what was queued into a run and never taken in, once', () => {
    const ending = new RunEnding();
    ending.queuedInto('faster');
    ending.queuedInto('left behind');
    ending.event({ type: 'message_end', message: { role: 'user', content: text('faster') } });
    expect(ending.stranded()).toEqual(['left behind']);
    expect(ending.stranded()).toEqual([]);
  });

  it('knows a message taken in before the answer to its queueing arrived', () => {
    const ending = new RunEnding();
    ending.event({ type: 'message_end', message: { role: 'user', content: text('quick') } });
    ending.queuedInto('quick');
    expect(ending.stranded()).toEqual([]);
  });
});

describe('the host at the end of a run', () => {
  let dir: ReturnType<typeof tempDir>;
  let host: PiHost;
  let gateway: Gateway;
  let client: BrowserClient;

  const commands = (): Record_[] =>
    readFileSync(join(dir.path, 'pi.log'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line) as Record_);
  async function start(dialect: string, env: Record<string, string>): Promise<void> {
    dir = tempDir('aicc-run-ending-');
    host = await PiHost.start({
      piBin: FAKE_PI,
      home: dir.path,
      env: { FAKE_PI_DIALECT: dialect, FAKE_PI_LOG: join(dir.path, 'pi.log'), FAKE_PI_RUN_MS: '20', ...env },
      provider: 'stub',
      model: 'stub-model',
    });
    gateway = await startGateway({ target: { kind: 'host', host }, origins: [ORIGIN], key: KEY, log: () => {} });
    client = BrowserClient.connect(`${gateway.url}/`);
    await client.hello();
  }
  const replyAfter = async (settled: number): Promise<unknown> =>
    ((await client.request({ id: `wait-${settled}`, type: 'get_state', settledAbove: settled })).data as Record_)['lastAssistantText'];
  /** Resolves once the fake pi has logged that it is in its window (it stays there until shutWindow). */
  const inWindow = (mark: 'looked' | 'settling') =>
    vi.waitFor(() => expect(commands().some((c) => c['fake'] === mark)).toBe(true), { timeout: 5000, interval: 5 });
  /** Ends the fake pi's window: its run ends (or settles) now. */
  const shutWindow = (): void => void process.kill(host.state().pid!, 'SIGUSR2');
  const prompts = (): unknown[] =>
    commands()
      .filter((c) => c['type'] === 'prompt')
      .map((c) => c['message']);

  afterEach(async () => {
    client.close();
    await gateway.close();
    await host.close();
    dir.remove();
  });

  it('holds a steer that comes after the final reply, and starts the next run with it', async () => {
    await start('0.73', { FAKE_PI_END_GAP: 'hold' });
    await client.request({ id: 'p', type: 'prompt', message: 'first' });
    await vi.waitFor(() => expect(host.runEnding).toBe(true), { timeout: 5000, interval: 5 });
    await inWindow('looked');
    // The host answers this steer only once the run has settled, so it is not awaited here.
    const steer = client.request({ id: 's', type: 'steer', message: 'look out' });
    // A later request that pi answers: the host took the steer in first, and had it gone to pi as a
    // steer, pi would have read it first (one pipe, in order) — inside the window, still open.
    await client.request({ id: 'after', type: 'get_last_assistant_text' });
    shutWindow();
    expect(await steer).toMatchObject({ success: true, data: { deliveredAs: 'prompt' } });
    expect(await replyAfter(1)).toBe('reply to: look out');
    expect(commands().filter((c) => c['type'] === 'steer')).toHaveLength(0);
  });

  it('starts a run for a steer that reached pi after its last look, with a note before it', async () => {
    await start('0.73', { FAKE_PI_END_GAP: 'hold', FAKE_PI_LOOK_EARLY: '1' });
    await client.request({ id: 'p', type: 'prompt', message: 'first' });
    await inWindow('looked');
    // pi has looked, but the final reply is not out: the host cannot tell, and queues the steer.
    expect(await client.request({ id: 's', type: 'steer', message: 'look out' })).toMatchObject({ success: true, data: { deliveredAs: 'steer' } });
    shutWindow();
    expect(await replyAfter(1)).toBe(`reply to: ${STRANDED_NOTE} + look out`);
    expect(prompts()).toEqual(['first', STRANDED_NOTE]);
  });

  it('leaves pi 1.x alone: it runs what was queued late itself, before settling', async () => {
    await start('1.x', { FAKE_PI_END_GAP: 'hold' });
    await client.request({ id: 'p', type: 'prompt', message: 'first' });
    await inWindow('looked');
    expect(host.runEnding).toBe(false);
    expect(await client.request({ id: 's', type: 'steer', message: 'look out' })).toMatchObject({ success: true, data: { deliveredAs: 'steer' } });
    shutWindow();
    expect(await replyAfter(0)).toBe('reply to: look out');
    expect(prompts()).toEqual(['first']);
  });

  it('starts a run for a steer that reached pi 1.x after its last look, once the run settled', async () => {
    await start('1.x', { FAKE_PI_SETTLE_GAP: 'hold' });
    await client.request({ id: 'p', type: 'prompt', message: 'first' });
    await inWindow('settling');
    expect(await client.request({ id: 's', type: 'steer', message: 'look out' })).toMatchObject({ success: true, data: { deliveredAs: 'steer' } });
    shutWindow();
    expect(await replyAfter(0)).toBe(`reply to: ${STRANDED_NOTE} + look out`);
    expect(prompts()).toEqual(['first', STRANDED_NOTE]);
  });
});
