// AgentClient calls with hostile inputs — large, deep, with polluting keys — against a real capsule
// whose bounds the client was told or not, over the JSON, binary and object codecs, one message a
// frame or batched. No call may be left to time out: each is served, refused here with the code the
// capsule would give, or answered by the capsule's refusal. Told the bounds, the client refuses
// exactly the calls the capsule would refuse at its wire.

import fc from 'fast-check';
import type { FuzzContext, FuzzTarget } from '../harness/context.js';
import { AgentClient, type CallOutcome } from '../../../src/agent/agentClient.js';
import { createMemoryLinkPair } from '../../../src/links/memory.js';
import { batchedFraming } from '../../../src/protocol/batchedFraming.js';
import { binaryCodec } from '../../../src/protocol/binaryCodec.js';
import { jsonCodec, type Codec } from '../../../src/protocol/codec.js';
import { objectCodec } from '../../../src/protocol/objectCodec.js';
import { PROTOCOL, type JsonObject, type ToolCall } from '../../../src/protocol/messages.js';
import { createCapsule } from '../../../src/runtime/capsule.js';
import { ManualClock } from '../../../src/base/clock.js';
import { ajvValidators } from '../../../src/validators/ajv.js';
import { draw } from './agentFrames.js';

const ROUND = 40;
const MESSAGE_ID = '0a1b2c3d-4e5f-4a6b-9c8d-7e6f5a4b3c2d';

interface Setup {
  codec: Codec;
  batched: boolean;
  limits: { maxFrameBytes: number; maxDepth: number };
  told: boolean;
}

const setup: fc.Arbitrary<Setup> = fc.record({
  codec: fc.constantFrom(jsonCodec, binaryCodec, objectCodec),
  batched: fc.boolean(),
  limits: fc.record({ maxFrameBytes: fc.integer({ min: 200, max: 4000 }), maxDepth: fc.integer({ min: 2, max: 10 }) }),
  told: fc.boolean(),
});

/** An object with these own keys, `__proto__` among them as a key (as JSON.parse makes it). */
function objectOf(entries: Array<[string, unknown]>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of entries) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

const key = fc.oneof({ weight: 8, arbitrary: fc.string({ maxLength: 6 }) }, fc.constantFrom('__proto__', 'constructor', 'prototype'));
const leaf = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '"', '\\', '\u0000'), maxLength: 40 }),
  fc.string({ unit: fc.constantFrom('x', 'ж'), minLength: 100, maxLength: 2500 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('node'), { maxLength: 3 }),
    fc.array(fc.tuple(key, tie('node')), { maxLength: 3 }).map(objectOf),
  ),
})).node;
/** `depth` levels of nesting around a value: inputs at, under and over any depth bound. */
const input: fc.Arbitrary<JsonObject> = fc.tuple(fc.array(fc.tuple(key, value), { maxLength: 4 }), fc.nat(11), fc.boolean()).map(([entries, depth, arrays]) => {
  let inner: unknown = objectOf(entries);
  for (let i = 0; i < depth; i++) inner = arrays && i % 2 === 0 ? [inner] : { in: inner };
  return objectOf([['v', inner]]);
});
const callId = fc.option(fc.string({ minLength: 1, maxLength: 30 }), { nil: undefined, freq: 3 });

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Whether the capsule's first gate refuses this call, decoding it as that capsule would. */
function capsuleRefuses(s: Setup, message: ToolCall): boolean {
  let frame: unknown;
  try {
    frame = s.codec.encode(message);
  } catch {
    return true;
  }
  // A batched link's frames may nest one level more (a batch's array), a lone message's too.
  return !s.codec.decode(frame as never, { ...s.limits, maxDepth: s.limits.maxDepth + (s.batched ? 1 : 0) }).ok;
}

async function round(context: FuzzContext, s: Setup, calls: Array<{ input: JsonObject; callId: string | undefined }>, n: number): Promise<void> {
  const clock = new ManualClock();
  const capsule = createCapsule({ world: { name: 'Fuzz', kind: 'abstract' }, validators: ajvValidators(), tickMode: 'event', clock });
  capsule.registerTool({
    id: 'take',
    class: 'sensor',
    description: 'Takes anything.',
    input_schema: { type: 'object' },
    output_schema: { type: 'object' },
    handler: () => ({ taken: true }),
  });
  const framing = s.batched && s.codec !== binaryCodec ? batchedFraming : undefined;
  const shape = { ...s, batched: framing !== undefined };
  const [bridgeEnd, agentEnd] = createMemoryLinkPair();
  const framed = framing === undefined ? {} : { framing };
  const connecting = AgentClient.connect(agentEnd, { clock, codec: s.codec, ...framed, ...(s.told ? { bridgeLimits: s.limits } : {}) });
  capsule.connect(bridgeEnd, { character: 'hero', codec: s.codec, ...framed, limits: s.limits });
  const agent = await connecting;
  const made = calls.map(({ input, callId }, i) => {
    const id = callId === undefined ? undefined : `${callId}#${n}.${i}`;
    return { input, outcome: agent.call('take', input, id === undefined ? {} : { callId: id }), settled: undefined as CallOutcome | undefined };
  });
  for (const call of made) void call.outcome.then((outcome) => (call.settled = outcome));
  for (let i = 0; i < 4; i++) await settle();
  for (const call of made) {
    context.sent();
    const outcome = call.settled;
    const where = `${s.codec.name}${shape.batched ? '+batched' : ''}, limits ${JSON.stringify(s.limits)}, ${s.told ? 'told' : 'not told'}`;
    if (outcome === undefined) {
      context.problem(`AgentClient (${where}): a call still waits without the clock moving: it can only end as a timeout`);
      continue;
    }
    const message: ToolCall = {
      protocol: PROTOCOL,
      type: 'tool_call',
      session_id: agent.sessionId,
      message_id: MESSAGE_ID,
      call_id: outcome.callId,
      tool: 'take',
      input: call.input,
    };
    const refuses = capsuleRefuses(shape, message);
    const local = !outcome.ok && outcome.local === true;
    context.tally(outcome.ok ? 'served' : local ? 'refused here' : 'refused by the capsule, answered');
    if (!outcome.ok && (outcome.error.code !== 'invalid_input' || outcome.error.retryable)) {
      context.problem(
        `AgentClient (${where}): a refused call ended with ${outcome.error.code} (retryable ${outcome.error.retryable}): ${outcome.error.message}`,
      );
    } else if (outcome.ok === refuses) {
      context.problem(`AgentClient (${where}): the capsule ${refuses ? 'refuses' : 'serves'} this call, but it was ${outcome.ok ? 'served' : 'refused'}`);
    } else if (s.told && refuses !== local) {
      context.problem(
        `AgentClient (${where}): told the capsule's bounds, it ${local ? 'refused a call the capsule serves' : 'sent a call the capsule refuses'}`,
      );
    }
  }
  await agent.close();
}

export const target: FuzzTarget = async (context) => {
  const calls = fc.array(fc.record({ input, callId }), { minLength: ROUND, maxLength: ROUND });
  for (let n = 0; n * ROUND < context.frames; n++) {
    const [s] = draw(setup, context.seed, n, 1);
    const [drawn] = draw(calls, context.seed + 1, n, 1);
    await round(context, s!, drawn!, n);
    if (n % 10 === 0) await context.breathe();
  }
};
