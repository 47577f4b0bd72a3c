// Model mode: a page lends its character to the gateway (its capsule's session over a real WebSocket
// on 127.0.0.1), and the gateway's model drives it — here a scripted ModelTurn standing in for
// pi-ai, so each decision is known; test/e2e/localModel/gatewayModel.test.ts does the same with a
// real model behind the Phaser demo in Chromium. A failing provider fails decisions, never the page;
// a page that leaves stops its character's model; a second page, or any other path, is refused.

import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ModelReply, ModelRequest, ModelTurn } from '../../../src/agent/model/modelPort.js';
import { createCapsule, startDriver } from '../../../src/index.js';
import { connectWebSocket, webSocketLink } from '../../../src/links/websocket.js';
import { startGateway, type Gateway } from '../../../src/node/gateway/index.js';
import type { Capsule } from '../../../src/runtime/capsule.js';
import { within } from './helpers.js';

const KEY = 'test-key-0123456789abcdef';
const PROVIDER_KEY = 'sk-provider-secret-0123456789';
const ORIGIN = 'http://localhost:5173';

let gateway: Gateway | undefined;
let capsule: Capsule | undefined;
let stopDriver: (() => void) | undefined;

afterEach(async () => {
  stopDriver?.();
  capsule?.dispose();
  await gateway?.close();
  gateway = capsule = stopDriver = undefined;
});

const reply = (content: ModelReply['content'], stopReason: ModelReply['stopReason'] = 'stop'): ModelReply => ({
  role: 'assistant',
  content,
  usage: { input: 120, output: 8, cacheRead: 100, cacheWrite: 0 },
  stopReason,
  timestamp: 0,
});

/** A turn that calls `wave` once per decision, then ends the decision in text; what it was asked is kept. */
function scriptedTurn(asked: ModelRequest[]): ModelTurn {
  return async (request) => {
    asked.push(structuredClone(request));
    const last = request.messages.at(-1);
    if (last?.role === 'toolResult') return reply([{ type: 'text', text: 'Done waving.' }]);
    return reply([{ type: 'toolCall', id: `call${asked.length}`, name: 'wave', arguments: { times: 2 } }], 'toolUse');
  };
}

/** The page: a capsule with one tool, its session for `character` lent to the gateway. */
async function lendingPage(character: string, waves: number[]): Promise<void> {
  capsule = createCapsule({ world: { name: 'model gateway test', kind: 'abstract' }, tickMode: 'hybrid' });
  capsule.registerTool({
    id: 'wave',
    class: 'actuator',
    description: 'Wave at whoever is near, a number of times.',
    input_schema: { type: 'object', properties: { times: { type: 'integer', minimum: 1, maximum: 5 } }, required: ['times'], additionalProperties: false },
    output_schema: { type: 'object', properties: { waved: { type: 'integer' } }, required: ['waved'] },
    handler: ({ times }: { times: number }) => {
      waves.push(times);
      return { waved: times };
    },
  });
  stopDriver = startDriver(capsule, { pace: 'timer' });
  const link = await connectWebSocket(`${gateway!.url}/characters/${character}`, {
    WebSocket: WebSocket as never,
    protocols: ['aicc.v0.1', `aicc-key.${KEY}`],
  });
  capsule.connect(link, { character, agentModel: { class: 'cloud_large' } });
}

async function until(what: string, done: () => boolean, ms = 10_000): Promise<void> {
  await within(
    (async () => {
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
    })(),
    what,
    ms,
  );
}

/** A gateway in model mode on the scripted model: what it asked the model, and its log lines. */
async function scriptedGateway(): Promise<{ asked: ModelRequest[]; lines: string[]; url: string }> {
  const asked: ModelRequest[] = [];
  const lines: string[] = [];
  gateway = await startGateway({
    target: { kind: 'model', turn: scriptedTurn(asked), name: 'scripted/one' },
    origins: [ORIGIN],
    key: KEY,
    log: (line) => lines.push(line),
  });
  return { asked, lines, url: gateway.url };
}

describe('aicc gateway in model mode', () => {
  it("drives a lent character with the gateway's model: the page's tools are the model's, its calls reach the page, each decision is logged", async () => {
    const { asked, lines } = await scriptedGateway();
    const waves: number[] = [];
    await lendingPage('cleo', waves);
    await until('a wave from the model', () => waves.length > 0);
    await until('a decision logged', () => lines.some((line) => /cleo: decision \d+ replied, 1 call/.test(line)));
    // The page's tool reached the model as a native tool, with its schema; the briefing named the character.
    expect(asked[0]!.tools.map((tool) => tool.name)).toEqual(['wave']);
    expect(asked[0]!.tools[0]!.parameters).toMatchObject({ properties: { times: { type: 'integer' } } });
    expect(JSON.stringify(asked[0]!.messages[0])).toContain('cleo');
    // The call's result went back to the model as its tool result.
    await until('the tool result sent back', () => asked.some((request) => request.messages.some((m) => m.role === 'toolResult' && !m.isError)));
    expect(waves[0]).toBe(2);
    expect(lines.join('\n')).toMatch(/driving the characters pages lend with scripted\/one/);
    expect(lines.join('\n')).toMatch(/cleo is lent; scripted\/one drives it/);
    expect(lines.join('\n')).toMatch(/tokens in \(\d+ cached\)/);
  });

  it('stops the model when the page leaves, and drives the character again when a page lends it again', async () => {
    const { asked, lines } = await scriptedGateway();
    const waves: number[] = [];
    await lendingPage('cleo', waves);
    await until('a wave', () => waves.length > 0);
    stopDriver!();
    capsule!.dispose('the page closed');
    await until('the model stopped', () => lines.some((line) => /cleo: the model stopped driving it/.test(line)));
    const before = asked.length;
    const again: number[] = [];
    await lendingPage('cleo', again);
    await until('a wave on the second page', () => again.length > 0);
    expect(asked.length).toBeGreaterThan(before);
    // The second page's model was briefed afresh: its first request starts a new conversation.
    expect(asked.slice(before)[0]!.messages).toHaveLength(1);
  });

  it('frees the character at once when the page drops without a goodbye (its socket cut): the next lend is driven', async () => {
    const { lines, url } = await scriptedGateway();
    const waves: number[] = [];
    // The page lends over a raw socket that is then cut, as a crashed tab's is.
    const first = createCapsule({ world: { name: 'crashing page', kind: 'abstract' }, tickMode: 'hybrid' });
    const ws = new WebSocket(`${url}/characters/cleo`, ['aicc.v0.1', `aicc-key.${KEY}`]);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    first.connect(webSocketLink(ws as never), { character: 'cleo' });
    await until('the crashing page lent', () => lines.some((line) => /cleo is lent/.test(line)));
    ws.terminate();
    await until('its model stopped', () => lines.some((line) => /cleo: the model stopped driving it \(session closed: the page left/.test(line)));
    first.dispose();
    await lendingPage('cleo', waves);
    await until('a wave on the page that came back', () => waves.length > 0);
  });

  it('refuses a second page for a character already lent, and a page on any other path, with a reason', async () => {
    gateway = await startGateway({ target: { kind: 'model', turn: scriptedTurn([]), name: 'scripted/one' }, origins: [ORIGIN], key: KEY });
    await lendingPage('cleo', []);
    const closed = (url: string, protocols: string[]) =>
      new Promise<{ code: number; reason: string }>((resolve) => {
        const ws = new WebSocket(url, protocols);
        ws.on('close', (code, reason) => resolve({ code, reason: String(reason) }));
        ws.on('error', () => {});
      });
    await until('cleo lent', () => gateway!.connections === 1);
    expect(await closed(`${gateway.url}/characters/cleo`, ['aicc.v0.1', `aicc-key.${KEY}`])).toMatchObject({
      reason: expect.stringMatching(/already lends cleo/),
    });
    expect(await closed(`${gateway.url}/`, ['pi-peers.v1', `aicc-key.${KEY}`])).toMatchObject({
      code: 4404,
      reason: expect.stringMatching(/connect a capsule session to \/characters\/<id>/),
    });
  });

  it('a provider that fails: the decision is recorded as failed, the page goes on ticking, no gateway key in the log', async () => {
    const lines: string[] = [];
    const failing: ModelTurn = async () => ({ ...reply([], 'error'), errorMessage: `401 invalid x-api-key ${PROVIDER_KEY}` });
    gateway = await startGateway({
      target: { kind: 'model', turn: failing, name: 'scripted/failing', gate: { retries: 0 } },
      origins: [ORIGIN],
      key: KEY,
      log: (line) => lines.push(line),
    });
    await lendingPage('cleo', []);
    const ticks = capsule!.tick;
    await until('a failed decision', () => lines.some((line) => /cleo: decision \d+ (reply_failed|send_failed)/.test(line)));
    await until('ticks go on', () => capsule!.tick > ticks + 3);
    expect(lines.join('\n')).not.toContain(KEY);
  });

  it('refuses a model target with mcp, and a target with no turn, before listening', async () => {
    await expect(startGateway({ target: { kind: 'model', turn: scriptedTurn([]), name: 'x' }, origins: [ORIGIN], key: KEY, mcp: true })).rejects.toThrow(
      /MCP clients cannot drive them too/,
    );
    await expect(startGateway({ target: { kind: 'model', turn: undefined as never, name: 'x' }, origins: [ORIGIN], key: KEY })).rejects.toThrow(/needs turn/);
  });
});
