// The swarm at the least an aicc/0.1 bridge must do for it: bench/swarm.bench.ts's floor row.
//
// The bare loop (demos/swarm/bare.ts) with, and only with, the work the protocol itself requires:
// every call is a tool_call message the agent builds (envelope, its own message id, call_id, tool,
// input) whose input the bridge checks against the tool's input_schema (the same ajv-compiled
// check the capsule runs) before the world is touched, answered by a tool_result message (envelope,
// the bridge's message id, call_id, ok, output); every tick, and every meal a neighbour hears of,
// is an event message to that forager. Each message is built and read back by its receiver, in
// place: no link, codec, queue, cadence, replay, limit, output check or promise. What the capsule
// spends above this row is its own choice of design; what this row spends above the bare loop, any
// bridge speaking aicc/0.1 one message per call and per event would spend too.

import { BareSwarm } from '../demos/swarm/bare.js';
import type { Action } from '../src/worlds/swarm/policy.js';
import { SENSE_RADIUS } from '../src/worlds/swarm/policy.js';
import type { WorldOptions } from '../src/worlds/swarm/state.js';
import { registerSwarmTools } from '../src/worlds/swarm/tools.js';
import { HEARING_RADIUS, SwarmWorld } from '../src/worlds/swarm/world.js';
import { SeededRandom } from '../src/adapters/headless/random.js';
import { createCapsule } from '../src/runtime/capsule.js';
import { ManualClock } from '../src/base/clock.js';
import { SequencedIds, randomUuid } from '../src/protocol/ids.js';
import type { AiccMessage, JsonObject } from '../src/protocol/messages.js';
import type { SchemaValidator } from '../src/runtime/validator.js';
import { ajvValidators } from '../src/validators/ajv.js';

const PROTOCOL = 'aicc/0.1';

/** One forager's session: its id and the two sides' message id streams. */
interface Session {
  id: string;
  bridge: SequencedIds;
  agent: SequencedIds;
  sequence: { bridge: number; agent: number };
  /** The last message each side received, so building one is never dead code. */
  inbox: { bridge: AiccMessage | undefined; agent: AiccMessage | undefined };
}

export class ProtocolFloorSwarm extends BareSwarm {
  private readonly sessions: Session[];
  private readonly inputChecks: Map<string, SchemaValidator>;
  private calls = 0;
  /** Each message crosses as JSON text (stringified by its sender, parsed by its receiver): the floor of a JSON link. */
  private readonly json: boolean;

  constructor(options: WorldOptions & { json?: boolean } = {}) {
    super(options);
    this.json = options.json === true;
    const random = new SeededRandom(`${options.seed ?? 1} floor ids`);
    this.sessions = Array.from({ length: this.world.foragers }, () => ({
      id: randomUuid(random.bytes),
      bridge: new SequencedIds(random.bytes),
      agent: new SequencedIds(random.bytes),
      sequence: { bridge: 0, agent: 0 },
      inbox: { bridge: undefined, agent: undefined },
    }));
    this.inputChecks = swarmInputChecks();
  }

  protected override act(forager: number, action: Action): void {
    const output = this.call(forager, action.tool, action.input, () => {
      if (action.tool === 'move') return { at: this.world.move(forager, action.input.dx, action.input.dy) };
      const meal = this.world.eat(forager);
      if (meal.ate) for (const near of this.world.neighbours(forager, HEARING_RADIUS)) this.hearMeal(near, forager);
      return meal as unknown as JsonObject;
    });
    if (output === undefined) throw new Error(`bench/swarm.floor: ${action.tool} refused its own forager's input`);
  }

  protected override observe(forager: number, tick: number): Action {
    const sensed = this.call(forager, 'sense', { radius: SENSE_RADIUS }, () => this.world.sense(forager, SENSE_RADIUS) as unknown as JsonObject);
    if (sensed === undefined) throw new Error("bench/swarm.floor: sense refused its own forager's input");
    return this.minds[forager]!.brain.choose(sensed as never, tick);
  }

  protected override hearTick(forager: number, tick: number, timeMs: number): void {
    this.event(forager, 'tick', { tick, dt_ms: 100, time_ms: timeMs });
  }

  protected override hearMeal(forager: number, eater: number): void {
    this.event(forager, 'state_change', { entity: `forager${eater}`, field: 'ate', value: true });
    super.hearMeal(forager, eater);
  }

  /** tool_call → input check → the world → tool_result; the output, or undefined when the input is refused. */
  private call(forager: number, tool: string, input: JsonObject, run: () => JsonObject): JsonObject | undefined {
    const session = this.sessions[forager]!;
    const callId = `c${++this.calls}`;
    const request = this.cross({
      protocol: PROTOCOL,
      type: 'tool_call',
      session_id: session.id,
      message_id: session.agent.idOf(++session.sequence.agent),
      call_id: callId,
      tool,
      input,
    });
    session.inbox.bridge = request;
    if (request.type !== 'tool_call' || !this.inputChecks.get(request.tool)!(request.input).ok) return undefined;
    const output = run();
    const result = this.cross({
      protocol: PROTOCOL,
      type: 'tool_result',
      session_id: session.id,
      message_id: session.bridge.idOf(++session.sequence.bridge),
      call_id: callId,
      ok: true,
      output,
    });
    session.inbox.agent = result;
    return result.type === 'tool_result' && result.ok ? result.output : undefined;
  }

  private event(forager: number, topic: 'tick' | 'state_change', payload: JsonObject): void {
    const session = this.sessions[forager]!;
    session.inbox.agent = this.cross({
      protocol: PROTOCOL,
      type: 'event',
      session_id: session.id,
      message_id: session.bridge.idOf(++session.sequence.bridge),
      topic,
      payload,
    });
  }

  /** A message as its receiver gets it: the object itself, or (json) its JSON text parsed back. */
  private cross(message: AiccMessage): AiccMessage {
    return this.json ? (JSON.parse(JSON.stringify(message)) as AiccMessage) : message;
  }
}

/** The swarm tools' input checks, compiled from their registered schemas as the capsule compiles them. */
function swarmInputChecks(): Map<string, SchemaValidator> {
  const capsule = createCapsule({ world: { name: 'schemas', kind: '2d' }, validators: ajvValidators(), clock: new ManualClock() });
  try {
    registerSwarmTools(capsule, new SwarmWorld({ size: 2, foragers: 1, foodDensity: 0, regrowPerTick: 0 }, new SeededRandom(1)));
    const validators = ajvValidators();
    return new Map(
      capsule.tools().map((tool) => [tool.id, validators.compile(tool.input_schema, { tool: tool.id, kind: 'input', strict: tool.strict_input ?? false })]),
    );
  } finally {
    capsule.dispose('schemas read');
  }
}
