// The two sides of bench/tick.bench.ts (and bench/tick.profile.ts): a capsule fanning one tick's
// events out to its agents, and a hand-written mitt loop doing the same fan-out. Both expose
// `tick()`, which runs one whole tick, resolves when every subscriber holds that tick's events, and
// checks that each got exactly the tick's changes and one tick (it throws otherwise: a bench that
// dropped events would measure nothing).

import mitt, { type Emitter } from 'mitt';
import { connectInProcess } from '../src/agent/inProcess.js';
import { SeededRandom } from '../src/adapters/headless/random.js';
import type { Codec } from '../src/protocol/codec.js';
import { createCapsule, type Capsule } from '../src/runtime/capsule.js';
import type { CapsuleOptions } from '../src/runtime/options.js';
import { ManualClock } from '../src/base/clock.js';
import type { EventPayloads } from '../src/runtime/events.js';
import { SequencedIds, randomUuid } from '../src/protocol/ids.js';
import type { EventMessage } from '../src/protocol/messages.js';
import { precompiledValidators } from '../src/validators/precompiled.js';

export interface TickSettings {
  entities: number;
  sessions: number;
  changesPerTick: number;
  seed: string;
}

export const TICK_SETTINGS: TickSettings = { entities: 1000, sessions: 50, changesPerTick: 100, seed: 'tick-bench' };

export interface TickSide {
  /** One tick: the changes, the tick, and the wait until every subscriber holds them. */
  tick(): Promise<void>;
  dispose(): void;
}

type StateChange = EventPayloads['state_change'];
type TickPayload = EventPayloads['tick'];

interface Position {
  x: number;
  y: number;
}

/**
 * The world both sides share: 1,000 entities with positions. Each tick moves `changesPerTick`
 * distinct entities, drawn from a seeded stream (distinct, so the capsule's coalescing of two changes
 * to one entity's field never shrinks its work below the baseline's), and yields the state_change
 * payloads.
 */
class World {
  private readonly ids: string[];
  private readonly positions: Position[];
  private readonly order: number[];
  private readonly random: SeededRandom;

  constructor(private readonly settings: TickSettings) {
    this.random = new SeededRandom(settings.seed).fork('world');
    this.ids = Array.from({ length: settings.entities }, (_, i) => `e${i}`);
    this.positions = Array.from({ length: settings.entities }, () => ({ x: this.random.int(256), y: this.random.int(256) }));
    this.order = Array.from({ length: settings.entities }, (_, i) => i);
  }

  /** The changes of one tick: a partial Fisher–Yates draw of distinct entities, each moved one step. */
  changes(emit: (change: StateChange) => void): void {
    const order = this.order;
    for (let i = 0; i < this.settings.changesPerTick; i++) {
      const j = i + this.random.int(order.length - i);
      const index = order[j]!;
      order[j] = order[i]!;
      order[i] = index;
      const previous = this.positions[index]!;
      const value = { x: previous.x + this.random.int(3) - 1, y: previous.y + this.random.int(3) - 1 };
      this.positions[index] = value;
      emit({ entity: this.ids[index]!, field: 'position', value, previous });
    }
  }
}

/** What each subscriber collects; emptied after each tick's check. */
class Inbox {
  readonly changes: StateChange[] = [];
  readonly ticks: TickPayload[] = [];

  complete(changes: number): boolean {
    const ok = this.changes.length === changes && this.ticks.length === 1;
    this.changes.length = 0;
    this.ticks.length = 0;
    return ok;
  }
}

function checkInboxes(inboxes: readonly Inbox[], changes: number, side: string): void {
  let incomplete = 0;
  for (const inbox of inboxes) if (!inbox.complete(changes)) incomplete++;
  if (incomplete > 0)
    throw new Error(`bench/tick: ${side}: ${incomplete} subscribers did not get exactly ${changes} state_change events and one tick this tick`);
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A capsule on a ManualClock in fixed mode, with `sessions` AgentClients on memory links (both ends
 * with `codec`), each declared edge_small (so every tick's events go out that tick) and subscribed to
 * tick and state_change. A tick: `capsule.step(100)` (one 10 Hz tick), the world's changes emitted,
 * then the wait for the agents.
 */
export async function capsuleSide(settings: TickSettings, codec: Codec, options: Partial<CapsuleOptions> = {}): Promise<TickSide> {
  const random = new SeededRandom(settings.seed);
  const clock = new ManualClock();
  const capsule: Capsule = createCapsule({
    world: { name: 'Tick bench', kind: '2d' },
    validators: precompiledValidators({ validators: {} }),
    tickMode: 'fixed',
    tickRateHz: 10,
    clock,
    randomBytes: random.fork('bridge ids').bytes,
    ...options,
  });
  const inboxes: Inbox[] = [];
  for (let i = 0; i < settings.sessions; i++) {
    // In-process agents as the library connects them (connectInProcess): a delivery is one frame,
    // and the agent trusts its capsule's messages, as the village and swarm do.
    const agent = await connectInProcess(capsule, {
      character: `npc${i}`,
      agentModel: { class: 'edge_small' },
      subscriptions: ['tick', 'state_change'],
      codec,
      agent: { randomBytes: random.fork(`agent ${i} ids`).bytes },
    });
    const inbox = new Inbox();
    agent.on('state_change', (change) => inbox.changes.push(change));
    agent.on('tick', (tick) => inbox.ticks.push(tick));
    inboxes.push(inbox);
  }
  const world = new World(settings);
  const emit = (change: StateChange): void => capsule.emit('state_change', change);
  const intervalMs = 1000 / capsule.tickRateHz;
  return {
    async tick() {
      capsule.step(intervalMs);
      world.changes(emit);
      await turn();
      checkInboxes(inboxes, settings.changesPerTick, `capsule (${codec.name})`);
    },
    dispose() {
      capsule.dispose('bench over');
    },
  };
}

/**
 * The baseline: one mitt emitter, `sessions` subscribers each with a state_change and a tick handler
 * pushing into its own arrays. A tick: a tick event with the same payload the capsule builds, the
 * same world's changes, and the same wait (one setImmediate turn).
 */
export function mittSide(settings: TickSettings): TickSide {
  return mittFanOut(settings, 'mitt loop', (bus, inbox) => {
    bus.on('state_change', (change) => inbox.changes.push(change));
    bus.on('tick', (tick) => inbox.ticks.push(tick));
  });
}

/**
 * The protocol's floor: the mitt loop, where each subscriber receives every event as the aicc/0.1
 * message any bridge must send for it — one message per event and subscriber, with the session's id
 * and a message id of its own — and reads it back by topic. Nothing else the capsule does: no queue,
 * cadence, replay, link, codec or check. Its ratio to the mitt loop is the least any bridge that
 * speaks aicc/0.1 could score on this fan-out.
 */
export function envelopeFloorSide(settings: TickSettings): TickSide {
  const random = new SeededRandom(`${settings.seed} floor ids`);
  return mittFanOut(settings, 'aicc/0.1 floor', (bus, inbox) => {
    const sessionId = randomUuid(random.bytes);
    const ids = new SequencedIds(random.bytes);
    let sequence = 0;
    const receive = (message: EventMessage): void => {
      if (message.topic === 'state_change') inbox.changes.push(message.payload as StateChange);
      else inbox.ticks.push(message.payload as TickPayload);
    };
    bus.on('state_change', (change) =>
      receive({ protocol: 'aicc/0.1', type: 'event', session_id: sessionId, message_id: ids.idOf(++sequence), topic: 'state_change', payload: change }),
    );
    bus.on('tick', (tick) =>
      receive({ protocol: 'aicc/0.1', type: 'event', session_id: sessionId, message_id: ids.idOf(++sequence), topic: 'tick', payload: tick }),
    );
  });
}

/**
 * The protocol's floor over JSON: the floor above, where every message also crosses as JSON text —
 * each event's payload stringified once for all subscribers (as any bridge can), the envelope
 * around it per subscriber, and each subscriber parsing its tick's messages as one array (as a
 * batched link can) — the least any aicc/0.1 bridge and agent speaking JSON cost on this fan-out.
 */
export function jsonEnvelopeFloorSide(settings: TickSettings): TickSide {
  const random = new SeededRandom(`${settings.seed} json floor ids`);
  // Each payload's text, made once: subscribers hear an event one after another.
  let lastPayload: object | undefined;
  let lastText = '';
  const textOf = (payload: object): string => {
    if (payload !== lastPayload) {
      lastPayload = payload;
      lastText = JSON.stringify(payload);
    }
    return lastText;
  };
  return mittFanOut(settings, 'aicc/0.1 floor over JSON', (bus, inbox, flushes) => {
    const sessionId = randomUuid(random.bytes);
    const ids = new SequencedIds(random.bytes);
    let sequence = 0;
    let texts: string[] = [];
    const send = (topic: string, payload: object): void => {
      texts.push(
        `{"protocol":"aicc/0.1","type":"event","session_id":"${sessionId}","message_id":"${ids.idOf(++sequence)}","topic":"${topic}","payload":${textOf(payload)}}`,
      );
    };
    bus.on('state_change', (change) => send('state_change', change));
    bus.on('tick', (tick) => send('tick', tick));
    flushes.push(() => {
      const messages = JSON.parse(`[${texts.join(',')}]`) as EventMessage[];
      texts = [];
      for (const message of messages) {
        if (message.topic === 'state_change') inbox.changes.push(message.payload as StateChange);
        else inbox.ticks.push(message.payload as TickPayload);
      }
    });
  });
}

type Bus = Emitter<{ tick: TickPayload; state_change: StateChange }>;

/**
 * One mitt emitter and `sessions` subscribers, each hooked up by `subscribe` (which may add work to
 * do after the tick's turn, before the check: `flushes`); a tick as mittSide says.
 */
function mittFanOut(settings: TickSettings, side: string, subscribe: (bus: Bus, inbox: Inbox, flushes: Array<() => void>) => void): TickSide {
  const bus: Bus = mitt();
  const inboxes: Inbox[] = [];
  const flushes: Array<() => void> = [];
  for (let i = 0; i < settings.sessions; i++) {
    const inbox = new Inbox();
    subscribe(bus, inbox, flushes);
    inboxes.push(inbox);
  }
  const world = new World(settings);
  const emit = (change: StateChange): void => bus.emit('state_change', change);
  const intervalMs = 100;
  let tick = 0;
  return {
    async tick() {
      tick++;
      bus.emit('tick', { tick, dt_ms: intervalMs, time_ms: tick * intervalMs });
      world.changes(emit);
      await turn();
      for (const flush of flushes) flush();
      checkInboxes(inboxes, settings.changesPerTick, side);
    },
    dispose() {
      bus.all.clear();
    },
  };
}
