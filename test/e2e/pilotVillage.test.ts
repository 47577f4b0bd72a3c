// A village character driven by the REAL pi, end to end: the pilot (src/agent/pilot) talks pi-peers
// through PeersClient over a WebSocket to the gateway, which hosts `pi --mode rpc` against a local
// stub model whose replies are scripted tool-call blocks. Several decisions, an invalid call the
// model then corrects, a steer on words addressed to the character, and an abort.

import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildVillage, type Village } from '../../src/worlds/village/world.js';
import { AgentClient } from '../../src/agent/agentClient.js';
import { PeersBackend } from '../../src/agent/pilot/peersBackend.js';
import { Pilot } from '../../src/agent/pilot/pilot.js';
import { createMemoryLinkPair } from '../../src/links/memory.js';
import { connectWebSocket, type WebSocketConstructor } from '../../src/links/websocket.js';
import { PiHost } from '../../src/node/gateway/piHost.js';
import { startGateway, type Gateway } from '../../src/node/gateway/server.js';
import { PeersClient } from '../../src/pi/peersClient.js';
import type { CallRecord } from '../../src/runtime/calls.js';
import { KEY, ORIGIN, tempDir } from '../node/gateway/helpers.js';
import { startStubModel, STUB_MODEL_ID, STUB_PROVIDER, userTexts, writePiAgentDir, type StubModel } from './stubModel.js';
import { PI_TARGETS } from './piTargets.js';

const E2E_TIMEOUT = 90_000;

const block = (...calls: object[]): string => `Here is what Cleo does.\n\`\`\`aicc\n${calls.map((call) => JSON.stringify(call)).join('\n')}\n\`\`\``;

/** Waits (in real time) until `check` holds; a timeout's error ends with what `story` tells. */
async function until(what: string, check: () => boolean, timeoutMs = 30_000, story: () => string = () => ''): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${story()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(PI_TARGETS)('a village character piloted by $name', (target) => {
  let stub: StubModel;
  let dir: ReturnType<typeof tempDir>;
  let host: PiHost;
  let gateway: Gateway;
  let peers: PeersClient;
  let village: Village;
  let pilot: Pilot;
  let ticking: ReturnType<typeof setInterval>;
  const calls: CallRecord[] = [];
  /** What the pilot did and what the model was asked, in order: told when a wait times out. */
  const trace: string[] = [];
  const line = (text: string): string => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
  const story = (): string => `\nthe pilot and the model, in order:\n${trace.join('\n')}`;

  beforeAll(async () => {
    stub = await startStubModel({ fallbackReply: block() });
    dir = tempDir('aicc-e2e-pilot-');
    writePiAgentDir(join(dir.path, 'agent'), stub.baseUrl);
    host = await PiHost.start({
      piBin: target.cli,
      ...(target.node === undefined ? {} : { node: target.node }),
      provider: STUB_PROVIDER,
      model: STUB_MODEL_ID,
      systemPrompt: 'You play a character in a game. Answer with tool calls only.',
      agentDir: join(dir.path, 'agent'),
      home: dir.path,
      label: 'Cleo',
    });
    gateway = await startGateway({ target: { kind: 'host', host }, origins: [ORIGIN], key: KEY, log: () => {} });
    const link = await connectWebSocket(`${gateway.url}/`, {
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      protocols: ['pi-peers.v1', `aicc-key.${KEY}`],
    });
    peers = await PeersClient.connect(link, { from: { id: 'village', label: 'Millbrook', host: 'localhost' } });

    village = buildVillage(7);
    village.capsule.on('call', (record) => calls.push(record));
    const [bridgeEnd, agentEnd] = createMemoryLinkPair();
    const connecting = AgentClient.connect(agentEnd, { clock: village.clock });
    village.connect('cleo', bridgeEnd);
    const client = await connecting;
    pilot = new Pilot({
      client,
      backend: new PeersBackend(peers, { idPrefix: 'cleo' }),
      character: { id: 'cleo', name: 'Cleo', goal: 'find news for a song' },
      clock: village.clock,
    });
    pilot.on('sent', ({ kind, text }) => trace.push(`pilot sent a ${kind}: ${line(text)}`));
    pilot.on('decision', ({ reply }) => trace.push(`pilot read the reply: ${line(reply ?? '(none)')}`));
    pilot.on('error', ({ message }) => trace.push(`pilot error: ${message}`));
    stub.onRequest = (request) =>
      trace.push(`model request ${stub.requests.length}, last user text ${line(userTexts(request).at(-1) ?? '')}, answered ${line(request.reply)}`);
    // The world runs on its own, ten ticks a simulated second, five times faster than real time.
    ticking = setInterval(() => village.capsule.step(100), 20);
  }, E2E_TIMEOUT);

  afterAll(async () => {
    clearInterval(ticking);
    pilot?.stop('test over');
    peers?.close();
    await gateway?.close();
    await host?.close();
    await stub?.close();
    village?.capsule.dispose();
    dir?.remove();
  }, E2E_TIMEOUT);

  it(
    'briefs the model, and its calls act in the world',
    async () => {
      stub.script(block({ tool: 'look', input: {} }));
      pilot.start();
      await until('the first call', () => calls.some((c) => c.tool === 'look'));
      const briefing = userTexts(stub.requests[0]!).join('\n');
      expect(briefing).toMatch(/\bgo \[actuator\]/);
      expect(briefing).toContain('```aicc');
      expect(calls.find((c) => c.tool === 'look')!.result.ok).toBe(true);
    },
    E2E_TIMEOUT,
  );

  it(
    'tells the model about an invalid call, and the model corrects it',
    async () => {
      stub.script(block({ tool: 'go', input: { dir: 'south' } }), block({ tool: 'go', input: { direction: 'south' } }));
      await until('the corrected move', () => calls.some((c) => c.tool === 'go' && c.result.ok));
      const refused = calls.find((c) => c.tool === 'go' && !c.result.ok)!;
      expect(refused.result.error).toMatchObject({ code: 'invalid_input' });
      const told = stub.requests.some((request) => userTexts(request).some((text) => text.includes('REFUSED go') && text.includes('invalid_input')));
      expect(told).toBe(true);
      expect(village.world.character('cleo')!.room).toBe('market');
    },
    E2E_TIMEOUT,
  );

  it(
    'steers the running turn when someone speaks to the character',
    async () => {
      const before = stub.requests.length;
      // A slow answer (about 2.5 s) keeps the run going while Ada speaks to Cleo. A steer that reached
      // pi only after its last model call of the run would wait in pi's queue for the next prompt.
      // pi answers the steer in a second model call of the same run; only the run's last reply counts.
      // News that comes meanwhile may reach pi as a follow-up, after the steer and in the same run: its
      // answer is the run's last reply, so every answer after the slow one is the song.
      const song = block({ tool: 'say', input: { text: 'A song for Ada, then!' } });
      stub.script({ text: block({ tool: 'say', input: { text: 'Hello, market!' } }), chunkChars: 4, chunkDelayMs: 150 });
      stub.fallbackReply = song;
      await stub.waitForRequests(before + 1, 30_000);
      village.capsule.emit('agent_message', { from: 'ada', to: 'cleo', text: 'Cleo, sing us a song!' }, { to: 'cleo' });
      await until(
        'the steer to reach the model',
        () => stub.requests.slice(before + 1).some((request) => userTexts(request).some((text) => text.includes('sing us a song'))),
        30_000,
        story,
      );
      expect(pilot.stats.steers).toBeGreaterThanOrEqual(1);
      await until(
        'the answer to the steer to be said',
        () => calls.some((c) => c.tool === 'say' && c.input['text'] === 'A song for Ada, then!' && c.result.ok),
        30_000,
        story,
      );
      expect(calls.filter((c) => c.tool === 'say' && c.input['text'] === 'Hello, market!')).toEqual([]);
      stub.fallbackReply = block();
    },
    E2E_TIMEOUT,
  );

  it(
    'aborts a run mid-answer',
    async () => {
      await pilot.whenIdle();
      const before = stub.requests.length;
      stub.script({ text: block({ tool: 'go', input: { direction: 'north' } }), chunkChars: 2, chunkDelayMs: 300 });
      village.capsule.emit('agent_message', { from: 'bram', text: 'Apples! Fresh apples!' }, { to: 'cleo' });
      await stub.waitForRequests(before + 1, 30_000);
      await pilot.abort();
      expect(pilot.status).toBe('paused');
      await until('the model call to be cut off', () => stub.requests[before]!.aborted);
      expect(calls.filter((c) => c.tool === 'go' && c.input['direction'] === 'north')).toEqual([]);
    },
    E2E_TIMEOUT,
  );
});
