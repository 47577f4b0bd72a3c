// What the conformance suite is run against: any aicc/0.1 bridge, seen from the agent's side. A
// bridge in this process (a Capsule) can also lend the suite its clock and let it register the
// tools that probe each refusal at its edge; one behind a WebSocket offers only its links.

import { jsonCodec, type Codec } from '../protocol/codec.js';
import type { Link } from '../links/link.js';
import { createMemoryLinkPair } from '../links/memory.js';
import { connectWebSocket, type WebSocketConstructor } from '../links/websocket.js';
import type { Capsule, EmitOptions } from '../runtime/capsule.js';
import type { EventPayloads } from '../runtime/events.js';
import type { ConnectOptions } from '../runtime/options.js';
import type { Topic } from '../protocol/messages.js';
import type { ToolDefinition, ToolHandle } from '../runtime/tool.js';

export interface ConformanceBridge {
  /** Named in the report. */
  readonly name: string;
  /** How frames are encoded on its links. Default jsonCodec. */
  readonly codec?: Codec;
  /**
   * A new link on which the bridge opens a session for the character `character` and sends
   * session_init; `agentModel` is what the agent declares (bridges that cannot be told may ignore it).
   */
  open(options: OpenOptions): Promise<Link> | Link;
  /** A link the bridge takes for a session_resume (capsule.accept). Absent: the resume checks do not apply. */
  reopen?(): Promise<Link> | Link;
  /** Moves the bridge's time forward (its clock and tick loop). Absent: the checks that need time do not apply. */
  advance?(ms: number): void;
  /** Registers a tool the suite probes with. Absent: the checks that need one do not apply. */
  registerTool?(definition: ToolDefinition): ToolHandle;
  /** Sends a world event. Absent: the event checks do not apply. */
  emit?<T extends Topic>(topic: T, payload: EventPayloads[T], options?: EmitOptions): void;
  /** The bridge's tick mode, when the suite cannot read it from session_init alone. */
  close?(): Promise<void> | void;
}

export interface OpenOptions {
  character: string;
  agentModel?: NonNullable<ConnectOptions['agentModel']>;
  capabilities?: NonNullable<ConnectOptions['capabilities']>;
  subscriptions?: readonly string[];
}

/** Builds a fresh bridge; the suite makes two to check that one seed gives one stream. */
export type BridgeFactory = () => ConformanceBridge | Promise<ConformanceBridge>;

export interface CapsuleBridgeOptions {
  name?: string;
  /** Default jsonCodec. */
  codec?: Codec;
  /** How time moves: default `capsule.step(ms)` (a capsule on a ManualClock). */
  advance?: (ms: number) => void;
  /** Character options every session gets, under those the suite asks for. */
  connect?: Partial<ConnectOptions>;
}

/** A bridge around a capsule in this process, linked in memory. */
export function capsuleBridge(capsule: Capsule, options: CapsuleBridgeOptions = {}): ConformanceBridge {
  const codec = options.codec ?? jsonCodec;
  return {
    name: options.name ?? capsule.world.name,
    codec,
    open(open) {
      const [bridgeEnd, agentEnd] = createMemoryLinkPair();
      const connect: ConnectOptions = { ...options.connect, character: open.character, codec };
      if (open.agentModel !== undefined) connect.agentModel = open.agentModel;
      if (open.capabilities !== undefined) connect.capabilities = open.capabilities;
      if (open.subscriptions !== undefined) connect.subscriptions = open.subscriptions;
      capsule.connect(bridgeEnd, connect);
      return agentEnd;
    },
    reopen() {
      const [bridgeEnd, agentEnd] = createMemoryLinkPair();
      capsule.accept(bridgeEnd, { codec });
      return agentEnd;
    },
    advance: options.advance ?? ((ms) => capsule.step(ms)),
    registerTool: (definition) => capsule.registerTool(definition),
    emit: (topic, payload, emitOptions) => capsule.emit(topic, payload, emitOptions),
    close: () => capsule.dispose('conformance run over'),
  };
}

export interface WebSocketBridgeOptions {
  /** Where the bridge takes resumed sessions (its accept()), when it has such a place. */
  resumeUrl?: string;
  /** Default jsonCodec. */
  codec?: Codec;
  /** Subprotocols to offer. */
  protocols?: string | string[];
  /** The WebSocket class (in Node 20: the `ws` package's). Default globalThis.WebSocket. */
  WebSocket?: WebSocketConstructor;
}

/**
 * A bridge behind a WebSocket: each connection to `url` is a new session, as the bridge decides
 * (who the character is, what it may do). It lends no clock and takes no tools, so the checks that
 * need those do not apply; the rest run as they would against a capsule.
 */
export function webSocketBridge(url: string, options: WebSocketBridgeOptions = {}): ConformanceBridge {
  const connect = (target: string) =>
    connectWebSocket(target, {
      ...(options.WebSocket ? { WebSocket: options.WebSocket } : {}),
      ...(options.protocols ? { protocols: options.protocols } : {}),
    });
  const bridge: ConformanceBridge = { name: url, codec: options.codec ?? jsonCodec, open: () => connect(url) };
  const resumeUrl = options.resumeUrl;
  return resumeUrl === undefined ? bridge : { ...bridge, reopen: () => connect(resumeUrl) };
}
