// The capsule side of bench/toolCall.bench.ts and bench/webSocket.bench.ts: one `move_to` tool
// (small input and output schemas, the same handler work as the MCP peer in bench/mcpPeer.ts), a
// capsule in event mode so a call runs the moment it arrives, and an AgentClient calling it over an
// in-memory link or a real WebSocket on 127.0.0.1.

import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { AgentClient } from '../src/agent/agentClient.js';
import { createCapsule } from '../src/index.js';
import type { Codec } from '../src/protocol/codec.js';
import { createMemoryLinkPair } from '../src/links/memory.js';
import { connectWebSocket, webSocketLink, type WebSocketConstructor, type WebSocketLike } from '../src/links/websocket.js';
import type { Capsule } from '../src/runtime/capsule.js';
import type { ConnectOptions } from '../src/runtime/options.js';
import type { ToolDefinition } from '../src/runtime/tool.js';

export type MoveInput = { x: number; y: number };

export type MoveOutput = { arrived: boolean; distance: number };

/** Where the walker stands; both peers move one of these. */
export interface Place {
  x: number;
  y: number;
}

/** The handler's work, shared by both peers: move to (x, y) and say how far that was. */
export function walkTo(place: Place, x: number, y: number): MoveOutput {
  const distance = Math.hypot(x - place.x, y - place.y);
  place.x = x;
  place.y = y;
  return { arrived: true, distance };
}

/** The n-th call's input: a walk around a 64×64 square, so the handler never sees one value twice in a row. */
export function inputFor(n: number): MoveInput {
  return { x: n % 64, y: (n * 7) % 64 };
}

export const MOVE_DESCRIPTION = 'Walks to a point.';

/** The capsule's `move_to`: JSON Schemas of the same shape as the MCP peer's zod schemas. */
export function moveTool(place: Place): ToolDefinition<MoveInput, MoveOutput> {
  return {
    id: 'move_to',
    class: 'actuator',
    description: MOVE_DESCRIPTION,
    input_schema: {
      type: 'object',
      properties: { x: { type: 'number' }, y: { type: 'number' } },
      required: ['x', 'y'],
    },
    output_schema: {
      type: 'object',
      properties: { arrived: { type: 'boolean' }, distance: { type: 'number' } },
      required: ['arrived', 'distance'],
    },
    requires_capability: 'locomotion',
    // Undeclared input fields are refused, as the MCP peer's `.strict()` zod object does.
    strict_input: true,
    handler: ({ x, y }) => walkTo(place, x, y),
  };
}

/** One agent calling `move_to` on one capsule, one call at a time. */
export interface CallPeer {
  /** Makes the n-th call and resolves when its result is back; throws if the call failed. */
  call(n: number): Promise<void>;
  close(): Promise<void>;
}

function benchCapsule(place: Place): Capsule {
  const capsule = createCapsule({ world: { name: 'Bench', kind: '2d' }, tickMode: 'event' });
  capsule.registerTool(moveTool(place));
  return capsule;
}

/**
 * The session's options: the capability `move_to` needs, and no event subscriptions, so the only
 * traffic is calls and results (the MCP peer sends no events either).
 */
function sessionOptions(codec: Codec | undefined): ConnectOptions {
  return { character: 'wren', capabilities: { actuators: ['locomotion'] }, subscriptions: [], ...(codec ? { codec } : {}) };
}

function callerOf(agent: AgentClient): (n: number) => Promise<void> {
  return async (n) => {
    const outcome = await agent.call('move_to', inputFor(n));
    if (!outcome.ok) throw new Error(`bench: capsule move_to failed: ${outcome.error.code}: ${outcome.error.message}`);
  };
}

/** A capsule and an AgentClient on the two ends of a memory link, both with `codec` (default jsonCodec). */
export async function capsuleOverMemory(codec?: Codec): Promise<CallPeer> {
  const place: Place = { x: 0, y: 0 };
  const capsule = benchCapsule(place);
  const [gameSide, agentSide] = createMemoryLinkPair();
  // The agent trusts its in-process capsule's messages (AgentClientOptions.trustBridge).
  const connecting = AgentClient.connect(agentSide, { trustBridge: true, ...(codec ? { codec } : {}) });
  capsule.connect(gameSide, sessionOptions(codec));
  const agent = await connecting;
  return {
    call: callerOf(agent),
    async close() {
      await agent.close('bench over');
      capsule.dispose('bench over');
    },
  };
}

/** The capsule over a real WebSocket on 127.0.0.1, JSON text frames. */
export interface WebSocketCallPeer extends CallPeer {
  /** Makes the n-th call and returns the exact JSON text of its tool_call and tool_result frames. */
  sampleFrames(n: number): Promise<{ call: string; result: string }>;
}

export async function capsuleOverWebSocket(): Promise<WebSocketCallPeer> {
  const place: Place = { x: 0, y: 0 };
  const capsule = benchCapsule(place);
  const server = await listen();
  server.on('connection', (socket) => {
    capsule.connect(webSocketLink(socket as unknown as WebSocketLike), sessionOptions(undefined));
  });
  const link = await connectWebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`, { WebSocket: WebSocket as unknown as WebSocketConstructor });
  const agent = await AgentClient.connect(link);
  const call = callerOf(agent);
  return {
    call,
    async sampleFrames(n) {
      const frames: { call?: string; result?: string } = {};
      // jsonCodec encodes with JSON.stringify, so these are the frames' texts byte for byte.
      const off = capsule.on('message', ({ direction, message }) => {
        if (direction === 'in' && message.type === 'tool_call') frames.call = JSON.stringify(message);
        if (direction === 'out' && message.type === 'tool_result') frames.result = JSON.stringify(message);
      });
      try {
        await call(n);
      } finally {
        off();
      }
      if (frames.call === undefined || frames.result === undefined) throw new Error('bench: saw no tool_call and tool_result frames');
      return { call: frames.call, result: frames.result };
    },
    async close() {
      await agent.close('bench over');
      capsule.dispose('bench over');
      await closeServer(server);
    },
  };
}

/** A `ws` server on 127.0.0.1 at a free port, once it listens. */
export function listen(): Promise<WebSocketServer> {
  return new Promise((resolve, reject) => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    server.once('error', reject);
    server.once('listening', () => resolve(server));
  });
}

/** Closes a server and every socket it still holds. */
export function closeServer(server: WebSocketServer): Promise<void> {
  for (const client of server.clients) client.terminate();
  return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}
