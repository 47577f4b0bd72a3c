// Shared set-up for the runtime tests: a capsule on a ManualClock, linked in memory to an
// AgentClient or to a raw peer that sends and reads frames by hand.

import { AgentClient, type AgentClientOptions } from '../src/agent/agentClient.js';
import { jsonCodec, type Frame } from '../src/protocol/codec.js';
import type { Link } from '../src/links/link.js';
import { createMemoryLinkPair } from '../src/links/memory.js';
import { createCapsule, type Capsule } from '../src/runtime/capsule.js';
import type { CapsuleOptions, ConnectOptions } from '../src/runtime/options.js';
import { ManualClock } from '../src/base/clock.js';
import { randomUuid } from '../src/protocol/ids.js';
import { PROTOCOL, type AiccMessage, type JsonObject } from '../src/protocol/messages.js';
import type { ToolDefinition } from '../src/runtime/tool.js';
import { ajvValidators } from '../src/validators/ajv.js';

/** Lets every queued microtask and link delivery run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export function makeCapsule(options: Partial<CapsuleOptions> = {}): { capsule: Capsule; clock: ManualClock } {
  const clock = options.clock instanceof ManualClock ? options.clock : new ManualClock();
  const capsule = createCapsule({
    world: { name: 'Testland', kind: 'abstract' },
    validators: ajvValidators(),
    tickMode: 'event',
    tickRateHz: 10,
    ...options,
    clock,
  });
  return { capsule, clock };
}

/** A sensor that echoes its input: `{ echo: input }`. */
export const echoTool: ToolDefinition = {
  id: 'echo',
  class: 'sensor',
  description: 'Returns what it is given.',
  input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  output_schema: { type: 'object', properties: { echo: { type: 'object' } }, required: ['echo'] },
  handler: (input: JsonObject) => ({ echo: input }),
};

/** An actuator that moves the character to (x, y). */
export function moveTool(overrides: Partial<ToolDefinition> = {}): ToolDefinition {
  return {
    id: 'move_to',
    class: 'actuator',
    description: 'Walks to a point.',
    input_schema: {
      type: 'object',
      properties: { x: { type: 'number' }, y: { type: 'number' } },
      required: ['x', 'y'],
    },
    output_schema: { type: 'object', properties: { arrived: { type: 'boolean' } }, required: ['arrived'] },
    requires_capability: 'locomotion',
    strict_input: true,
    handler: () => ({ arrived: true }),
    ...overrides,
  };
}

export async function connectAgent(
  capsule: Capsule,
  clock: ManualClock,
  options: Partial<ConnectOptions> = {},
  agentOptions: AgentClientOptions = {},
): Promise<{ agent: AgentClient; bridgeEnd: Link; agentEnd: Link }> {
  const [bridgeEnd, agentEnd] = createMemoryLinkPair();
  const agentPromise = AgentClient.connect(agentEnd, { clock, ...agentOptions });
  capsule.connect(bridgeEnd, { character: 'hero', capabilities: { actuators: ['locomotion'] }, ...options });
  const agent = await agentPromise;
  return { agent, bridgeEnd, agentEnd };
}

/** The agent end of a link, driven by hand: send raw frames, read what the bridge sent. */
export class RawPeer {
  readonly received: AiccMessage[] = [];
  closedWith: string | undefined;

  constructor(readonly link: Link) {
    link.listen({
      message: (frame: Frame) => {
        const decoded = jsonCodec.decode(frame, { maxFrameBytes: 1 << 24, maxDepth: 64 });
        if (decoded.ok) this.received.push(decoded.value as AiccMessage);
      },
      close: (reason) => (this.closedWith = reason),
    });
  }

  get sessionId(): string {
    const init = this.received.find((m) => m.type === 'session_init');
    if (init === undefined) throw new Error('RawPeer: no session_init yet');
    return init.session_id;
  }

  sendFrame(frame: Frame): void {
    this.link.send(frame);
  }

  send(body: JsonObject, envelope: JsonObject = {}): void {
    this.link.send(JSON.stringify({ protocol: PROTOCOL, session_id: this.sessionId, message_id: randomUuid(), ...body, ...envelope }));
  }

  ofType<T extends AiccMessage['type']>(type: T): Extract<AiccMessage, { type: T }>[] {
    return this.received.filter((m): m is Extract<AiccMessage, { type: T }> => m.type === type);
  }

  last(): AiccMessage | undefined {
    return this.received.at(-1);
  }
}

export async function connectRaw(capsule: Capsule, options: Partial<ConnectOptions> = {}): Promise<RawPeer> {
  const [bridgeEnd, agentEnd] = createMemoryLinkPair();
  const peer = new RawPeer(agentEnd);
  capsule.connect(bridgeEnd, { character: 'hero', capabilities: { actuators: ['locomotion'] }, ...options });
  await settle();
  return peer;
}

/**
 * Moves a ManualClock forward in steps of at most `stepMs`, letting links deliver between steps, so
 * heartbeats flow as they would in real time instead of all timers firing in one synchronous jump.
 */
export async function pass(clock: ManualClock, ms: number, stepMs = 1000): Promise<void> {
  let left = ms;
  while (left > 0) {
    const step = Math.min(stepMs, left);
    clock.advance(step);
    left -= step;
    await settle();
  }
}
