// An agent for a character of a capsule in this same process — a scripted NPC in a page, a headless
// run's agents — made in one call, with the settings both ends can agree on because one piece of
// code makes them both: message objects handed across as they are (objectCodec) on a direct pair
// (directWire.ts: no link or frame; broadcast events as the capsule's log holds them, no envelope
// per session), and each end taking the other's messages unchecked: the AgentClient refuses at its
// side what the capsule's wire check would (encodeWithin), and the capsule still checks every call
// against its tools' schemas, grants and limits. With a text codec: a memory link, a delivery of
// events as one frame (batchedFraming).

import type { Link } from '../links/link.js';
import { createMemoryLinkPair } from '../links/memory.js';
import { createDirectPair } from '../protocol/directWire.js';
import { batchedFraming } from '../protocol/batchedFraming.js';
import type { Codec } from '../protocol/codec.js';
import { objectCodec } from '../protocol/objectCodec.js';
import type { Capsule } from '../runtime/capsule.js';
import { IN_PROCESS_SESSION, type ConnectOptions } from '../runtime/options.js';
import { AgentClient, type AgentClientOptions } from './agentClient.js';

export interface InProcessOptions extends Omit<ConnectOptions, 'codec' | 'framing'> {
  /**
   * The codec of both ends. Default objectCodec (nothing encoded or parsed); jsonCodec makes every
   * message text, as over a socket.
   */
  codec?: Codec;
  /** The agent's own options (its clock, ids, timeouts); the link's codec, framing and trust, and the capsule's `limits` it is held to, are set here. */
  agent?: Omit<AgentClientOptions, 'codec' | 'framing' | 'trustBridge' | 'bridgeLimits'>;
}

/**
 * What opens the session: a capsule, or an engine binding that opens sessions for its capsule and
 * says whose clock it keeps (the Phaser plugin, whose `connect` also counts the session's link in
 * its frame stats).
 */
export type SessionOpener = Pick<Capsule, 'connect' | 'clock'>;

/**
 * Connects a new agent to `options.character` through `opener`, in this process; resolves once the
 * agent has its manifest. The agent keeps the capsule's clock unless `options.agent.clock` says otherwise.
 * The session keeps no resume state (its link cannot drop; closing it ends the session).
 *
 * @example
 * const agent = await connectInProcess(capsule, { character: 'wren', capabilities: { actuators: ['legs'] } });
 * agent.on('state_change', (change) => console.log(change.entity, change.field, change.value));
 * const result = await agent.call('step', { dir: 'east' });
 */
export function connectInProcess(opener: SessionOpener, options: InProcessOptions): Promise<AgentClient> {
  const { codec = objectCodec, agent = {}, ...session } = options;
  // Objects: a direct pair, which hands the agent the capsule's broadcast events as its log holds
  // them. Text (another codec): a memory link, every message encoded and decoded as over a socket.
  const [bridgeEnd, agentEnd] = codec === objectCodec ? directLinks() : createMemoryLinkPair();
  // The capsule first: a bad option throws before any agent waits. Its session_init waits in the link.
  // In this process the link cannot drop: the session keeps no resume state (IN_PROCESS_SESSION).
  opener.connect(bridgeEnd, { ...session, codec, framing: batchedFraming, [IN_PROCESS_SESSION]: true } as ConnectOptions);
  return AgentClient.connect(agentEnd, {
    clock: opener.clock,
    ...agent,
    codec,
    framing: batchedFraming,
    trustBridge: true,
    ...(session.limits === undefined ? {} : { bridgeLimits: session.limits }),
  });
}

function directLinks(): [Link, Link] {
  const [bridge, agent] = createDirectPair();
  return [bridge.link, agent.link];
}
