// AgentClient under a hostile bridge: near-valid bridge messages (results for calls never made or
// made twice, events with odd payloads, errors, manifests, ids with any sequence under the
// session's prefix or none), broken JSON and bytes. After every batch a genuine result must still
// resolve the call it answers; the client may only close for a session_close it was sent.

import fc from 'fast-check';
import type { FuzzContext, FuzzTarget } from '../harness/context.js';
import { AgentClient } from '../../../src/agent/agentClient.js';
import { createMemoryLinkPair } from '../../../src/links/memory.js';
import type { Link } from '../../../src/links/link.js';
import { ManualClock } from '../../../src/base/clock.js';
import { randomUuid, SequencedIds } from '../../../src/protocol/ids.js';
import { ERROR_CODES, PROTOCOL, TOPICS } from '../../../src/protocol/messages.js';
import { draw, mutated } from './agentFrames.js';

const BATCH = 300;
const CODES: ReadonlySet<string> = new Set(ERROR_CODES);

const weirdText = fc.oneof(fc.string(), fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('', '__proto__', 'ж'.repeat(80), 'x'.repeat(3000)));
const json = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(weirdText, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }));

/** A bridge message close to a real one, with any field replaced, dropped or added. */
function bridgeMessage(session: () => { id: string; prefix: string; sequence: number }): fc.Arbitrary<string | Uint8Array> {
  const messageId = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.integer({ min: -3, max: 8 }).map((step) => {
        const s = session();
        return `${s.prefix}${Math.max(0, s.sequence + step)
          .toString(16)
          .padStart(12, '0')}`;
      }),
    },
    fc.bigInt({ min: 0n, max: (1n << 48n) - 1n }).map((n) => `${session().prefix}${n.toString(16).padStart(12, '0')}`),
    fc.uuid(),
    weirdText,
  );
  const envelope = {
    protocol: fc.oneof({ weight: 20, arbitrary: fc.constant(PROTOCOL) }, weirdText),
    session_id: fc.oneof({ weight: 20, arbitrary: fc.constant(null).map(() => session().id) }, fc.uuid(), weirdText),
    message_id: messageId,
  };
  const callId = fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 40 }).map((n) => `c${n}`) }, weirdText);
  const error = fc.record({
    code: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...ERROR_CODES) }, weirdText),
    message: fc.oneof({ weight: 3, arbitrary: fc.constant('no') }, weirdText),
    retryable: fc.boolean(),
  });
  const shapes = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record(
        {
          ...envelope,
          type: fc.constant('tool_result'),
          call_id: callId,
          ok: fc.constant(true),
          output: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
          meta: fc.constant({ tick: 1, latency_ms: 0, source: 'handler' }),
        },
        { requiredKeys: ['protocol', 'type', 'session_id', 'message_id', 'call_id', 'ok'] },
      ),
    },
    { weight: 3, arbitrary: fc.record({ ...envelope, type: fc.constant('tool_result'), call_id: callId, ok: fc.constant(false), error }) },
    {
      weight: 5,
      arbitrary: fc.record({
        ...envelope,
        type: fc.constant('event'),
        topic: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...TOPICS) }, weirdText),
        payload: fc.oneof(fc.dictionary(weirdText, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }), json),
      }),
    },
    { weight: 2, arbitrary: fc.record({ ...envelope, type: fc.constant('error'), error }) },
    {
      weight: 2,
      arbitrary: fc.record(
        { ...envelope, type: fc.constant('heartbeat'), manifest_update: json },
        { requiredKeys: ['protocol', 'type', 'session_id', 'message_id'] },
      ),
    },
    { weight: 1, arbitrary: fc.record({ ...envelope, type: fc.constant('session_close'), reason: weirdText }) },
    {
      weight: 1,
      arbitrary: fc.record(
        { ...envelope, type: fc.constantFrom('session_init', 'tool_call', 'session_resume', 'nope'), tick_rate_hz: fc.constantFrom(10, -1), payload: json },
        { requiredKeys: ['protocol', 'type'] },
      ),
    },
  );
  const message = mutated(shapes)
    .chain((m) => fc.nat(29).map((die) => ({ m, die })))
    // A genuine session_close ends the client; keep one in thirty so runs reach further.
    .filter(({ m, die }) => !(m['type'] === 'session_close' && die !== 0))
    .map(({ m }) => JSON.stringify(m));
  return fc.oneof(
    { weight: 10, arbitrary: message },
    { weight: 1, arbitrary: fc.tuple(message, fc.nat()).map(([text, n]) => text.slice(0, n % (text.length + 1))) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.string(),
        fc.uint8Array({ maxLength: 40 }),
        fc.integer({ min: 40, max: 3000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
      ),
    },
  );
}

/** A bridge driven by hand: its session_init, then whatever it is told to send. */
class HostileBridge {
  readonly ids = new SequencedIds();
  readonly sessionId = randomUuid();
  readonly prefix = this.ids.idOf(0).slice(0, -12);
  sequence = 1;
  closedByBridge = false;
  calls: string[] = [];

  constructor(readonly link: Link) {
    link.listen({
      message: (frame) => {
        const message = JSON.parse(String(frame)) as { type: string; call_id?: string };
        if (message.type === 'tool_call' && message.call_id) this.calls.push(message.call_id);
      },
      close: () => {},
    });
    this.link.send(
      JSON.stringify({
        protocol: PROTOCOL,
        type: 'session_init',
        session_id: this.sessionId,
        message_id: this.ids.idOf(1),
        tick_rate_hz: 10,
        tick_mode: 'event',
        world: { name: 'w', kind: 'abstract' },
        capabilities: { sensors: [], actuators: [], generators: [] },
        tools: [],
        agent_model: { class: 'edge_small' },
      }),
    );
  }

  /**
   * A genuine result, numbered as a real bridge would: each hostile frame took a sequence number,
   * and forged ids reach at most 8 past the count, so this one is above every id the client may
   * have taken as genuine, and within its maxSequenceJump of the last one it holds.
   */
  answer(callId: string): void {
    this.sequence += 10;
    this.link.send(
      JSON.stringify({
        protocol: PROTOCOL,
        type: 'tool_result',
        session_id: this.sessionId,
        message_id: this.ids.idOf(this.sequence),
        call_id: callId,
        ok: true,
        output: { genuine: true },
      }),
    );
  }
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

async function connect(context: FuzzContext, clock: ManualClock): Promise<{ agent: AgentClient; bridge: HostileBridge }> {
  const [bridgeEnd, agentEnd] = createMemoryLinkPair();
  const connecting = AgentClient.connect(agentEnd, { clock, callTimeoutMs: 1000 });
  const bridge = new HostileBridge(bridgeEnd);
  const agent = await connecting;
  agent.on('error', (error) => {
    context.code(error.code, CODES, 'AgentClient error event');
    context.tally(error.message.includes('maxSequenceJump') ? 'error: id jump' : 'error event');
  });
  agent.on('event', () => context.tally('event'));
  // Listeners a game would have: they must never see a throw from the client.
  for (const topic of TOPICS) agent.on(topic, () => {});
  agent.on('manifest', () => {});
  return { agent, bridge };
}

export const target: FuzzTarget = async (context) => {
  const clock = new ManualClock();
  let { agent, bridge } = await connect(context, clock);
  let batch = 0;
  const session = () => ({ id: bridge.sessionId, prefix: bridge.prefix, sequence: bridge.sequence });
  const frames = bridgeMessage(session);
  while (batch * BATCH < context.frames) {
    // Calls the hostile results may (wrongly) answer: they must resolve once, whatever comes.
    const waiting = [agent.call('look', {}), agent.call('look', {})];
    for (const frame of draw(frames, context.seed, batch, BATCH)) {
      bridge.link.send(frame);
      bridge.sequence++;
      context.sent();
    }
    await settle();
    if (agent.state === 'closed') {
      ({ agent, bridge } = await connect(context, clock));
    } else {
      const probe = agent.call('probe', {});
      await settle();
      const callId = bridge.calls.at(-1)!;
      bridge.answer(callId);
      await settle();
      const outcome = await Promise.race([probe, settle().then(() => undefined)]);
      if ((agent.state as string) !== 'closed' && (outcome === undefined || !outcome.ok || (outcome.output as { genuine?: boolean }).genuine !== true)) {
        context.problem(
          `AgentClient: a genuine result did not resolve its call after hostile frames (batch ${batch}): ${JSON.stringify(outcome)?.slice(0, 200)}`,
        );
      }
    }
    clock.advance(1000); // calls left waiting time out: the pending map stays bounded
    await Promise.all(waiting);
    batch++;
    if (batch % 10 === 0) await context.breathe();
  }
  bridge.link.close('fuzz over');
  await settle();
  if (agent.state === 'open') context.problem('AgentClient: still open after its link closed');
};
