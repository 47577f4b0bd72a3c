// The capsule under hostile agents: frames of every kind into live sessions and into accept()ed
// links, on memory links with the JSON or binary codec. After every batch the tick loop must still
// run and a well-formed call must still be served; every message the capsule sends must be a valid
// aicc/0.1 message, and every refusal must carry a documented code.

import type fc from 'fast-check';
import type { FuzzContext, FuzzTarget } from '../harness/context.js';
import { binaryCodec } from '../../../src/protocol/binaryCodec.js';
import { jsonCodec, type Codec, type Frame } from '../../../src/protocol/codec.js';
import type { Link } from '../../../src/links/link.js';
import { createMemoryLinkPair } from '../../../src/links/memory.js';
import { createCapsule, type Capsule } from '../../../src/runtime/capsule.js';
import { ManualClock } from '../../../src/base/clock.js';
import { ToolError } from '../../../src/base/errors.js';
import { checkBridgeMessage } from '../../../src/protocol/messageCheck.js';
import { ERROR_CODES, PROTOCOL, type AiccMessage } from '../../../src/protocol/messages.js';
import { ajvValidators } from '../../../src/validators/ajv.js';
import { binaryFrames, draw, jsonFrames } from './agentFrames.js';

/** What a hostile agent may be answered with: every code but internal_error, which would be a bug of ours. */
export const PEER_CODES: ReadonlySet<string> = new Set(ERROR_CODES.filter((code) => code !== 'internal_error'));
const BATCH = 400;
const LIMITS = { maxFrameBytes: 1 << 24, maxDepth: 64 };

/** A capsule with one tool of each kind of outcome: served, limited, slow (timing out), failing. */
export function fuzzCapsule(clock: ManualClock, context: FuzzContext, tickMode: 'hybrid' | 'event' = 'hybrid'): Capsule {
  const capsule = createCapsule({
    world: { name: 'Fuzz', kind: 'abstract' },
    validators: ajvValidators(),
    tickMode,
    clock,
    callQueueSize: 16,
    replayBufferSize: 256,
  });
  capsule.registerTool({
    id: 'echo',
    class: 'sensor',
    description: 'Echoes its text.',
    input_schema: { type: 'object', properties: { text: { type: 'string', maxLength: 100 } }, required: ['text'] },
    output_schema: { type: 'object' },
    strict_input: true,
    handler: (input: { text: string }) => ({ echo: input.text }),
  });
  capsule.registerTool({
    id: 'step',
    class: 'actuator',
    description: 'One step.',
    input_schema: { type: 'object', properties: { dir: { enum: ['east', 'west'] } }, required: ['dir'] },
    output_schema: { type: 'object' },
    limits: { calls_per_minute: 600, calls_per_session: 5000 },
    requires_capability: 'legs',
    handler: () => ({ moved: true }),
  });
  capsule.registerTool({
    id: 'slow',
    class: 'sensor',
    description: 'Answers after ms on the clock; times out past 50.',
    input_schema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0, maximum: 1000 } } },
    output_schema: { type: 'object' },
    timeout_ms: 50,
    handler: (input: { ms?: number }) =>
      new Promise<{ waited: number }>((resolve) => clock.setTimeout(() => resolve({ waited: input.ms ?? 0 }), input.ms ?? 0)),
  });
  capsule.registerTool({
    id: 'boom',
    class: 'sensor',
    description: 'Fails.',
    input_schema: { type: 'object' },
    output_schema: { type: 'object' },
    handler: (input: Record<string, unknown>) => {
      throw Object.keys(input).length % 2 === 0 ? new ToolError('no', { retryable: true }) : new Error('boom');
    },
  });
  capsule.on('error', (error) => {
    if (error.code === 'bridge_failed') context.problem(`bridge_failed: ${error.message}`);
  });
  return capsule;
}

/** The agent's end of a session: decodes and checks what the capsule sends, and can probe it. */
class Peer {
  readonly received: AiccMessage[] = [];
  sessionId = '';
  closed = false;

  constructor(
    readonly link: Link,
    private readonly codec: Codec,
    private readonly context: FuzzContext,
    private readonly where: string,
  ) {
    link.listen({ message: (frame) => this.take(frame), close: () => (this.closed = true) });
  }

  private take(frame: Frame): void {
    const decoded = this.codec.decode(frame, LIMITS);
    if (!decoded.ok) return this.context.problem(`${this.where}: the capsule sent a frame its own codec cannot read: ${decoded.message}`);
    const checked = checkBridgeMessage(decoded.value);
    if (!checked.ok) return this.context.problem(`${this.where}: the capsule sent an invalid message: ${checked.message}`);
    const message = checked.value;
    if (message.type === 'session_init') this.sessionId = message.session_id;
    if (message.type === 'error') this.context.code(message.error.code, PEER_CODES, `${this.where} error`);
    if (message.type === 'tool_result' && !message.ok) this.context.code(message.error?.code, PEER_CODES, `${this.where} tool_result`);
    this.context.tally(
      message.type === 'tool_result'
        ? `result ${message.ok ? 'ok' : message.error?.code}`
        : message.type === 'error'
          ? `error ${message.error.code}`
          : message.type,
    );
    if (this.received.length > 64) this.received.splice(0, 32);
    this.received.push(message);
  }

  send(frame: Frame): void {
    this.link.send(frame);
  }

  /** A well-formed call, answered at once (hybrid mode's `!`): resolves whether it was served. */
  probe(n: number): boolean {
    const callId = `!probe-${n}`;
    this.send(
      this.codec.encode({
        protocol: PROTOCOL,
        type: 'tool_call',
        session_id: this.sessionId,
        message_id: '6f9619ff-8b86-4d11-b42d-00c04fc964ff',
        call_id: callId,
        tool: 'echo',
        input: { text: 'still up?' },
      }),
    );
    return true;
  }

  answered(n: number): boolean {
    return this.received.some((m) => m.type === 'tool_result' && m.call_id === `!probe-${n}` && m.ok);
  }
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

export function capsuleTarget(kind: 'json' | 'binary'): FuzzTarget {
  const codec = kind === 'json' ? jsonCodec : binaryCodec;
  return async (context) => {
    const clock = new ManualClock();
    const capsule = fuzzCapsule(clock, context);
    let peer: Peer | undefined;
    const connect = async (): Promise<Peer> => {
      const [bridgeEnd, agentEnd] = createMemoryLinkPair();
      const fresh = new Peer(agentEnd, codec, context, `${kind} session`);
      capsule.connect(bridgeEnd, { character: 'fuzzer', capabilities: { actuators: ['legs'] }, agentModel: { class: 'edge_small' }, codec });
      await settle();
      if (fresh.sessionId === '') context.problem(`${kind}: a new session sent no session_init`);
      return fresh;
    };
    const frames: fc.Arbitrary<string | Uint8Array> = (kind === 'json' ? jsonFrames : binaryFrames)(() => [peer?.sessionId ?? '']);
    let batch = 0;
    let ticks = capsule.tick;
    while (context.frames > 0 && batch * BATCH < context.frames) {
      if (peer === undefined || peer.closed) peer = await connect();
      const live = peer;
      for (const frame of draw(frames, context.seed, batch, BATCH)) {
        live.send(frame);
        context.sent();
      }
      // A few hostile first frames on links handed to accept(), as after a reconnect.
      for (const frame of draw(frames, context.seed + 1, batch, 3)) {
        const [bridgeEnd, agentEnd] = createMemoryLinkPair();
        const stranger = new Peer(agentEnd, codec, context, `${kind} accept`);
        capsule.accept(bridgeEnd, { codec });
        stranger.send(frame);
        context.sent();
      }
      await settle();
      capsule.step(100);
      if (capsule.tick !== ticks + 1) context.problem(`${kind}: the tick loop stopped (tick ${capsule.tick} after ${ticks})`);
      ticks = capsule.tick;
      await settle();
      if (peer.closed) peer = await connect(); // the batch ended the session (a session_close, a bad resume)
      peer.probe(batch);
      await settle();
      clock.advance(60); // lets slow calls time out or finish
      await settle();
      if (!peer.answered(batch) && !peer.closed) context.problem(`${kind}: a well-formed call after hostile frames was not served (batch ${batch})`);
      batch++;
      if (batch % 10 === 0) await context.breathe();
    }
    // Bounded: the sessions left open are the one live session (closed ones are dropped).
    if (capsule.sessions().filter((s) => s.state !== 'closed').length > 8) context.problem(`${kind}: ${capsule.sessions().length} sessions still listed`);
    capsule.dispose();
  };
}
