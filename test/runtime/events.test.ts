import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventQueue, type QueuedEvent } from '../../src/runtime/events.js';
import type { Topic } from '../../src/protocol/messages.js';

const tick = (n: number, dt = 100): QueuedEvent => ({ topic: 'tick', payload: { tick: n, dt_ms: dt, time_ms: n * dt } });
const collision = (a: string, b = 'wall'): QueuedEvent => ({ topic: 'collision', payload: { a, b } });
const audio = (sound: string): QueuedEvent => ({ topic: 'audio', payload: { source: 'door', sound } });
const state = (entity: string, field: string, value: unknown): QueuedEvent => ({ topic: 'state_change', payload: { entity, field, value } });
const message = (text: string): QueuedEvent => ({ topic: 'agent_message', payload: { from: 'bob', text } });

function queueOf(capacity: number, events: QueuedEvent[]): EventQueue {
  const queue = new EventQueue(capacity);
  for (const event of events) queue.push(event);
  return queue;
}

describe('EventQueue', () => {
  it('hands back what was pushed, oldest first', () => {
    const queue = queueOf(10, [message('hi'), collision('hero')]);
    expect(queue.size).toBe(2);
    expect(queue.take()).toEqual([message('hi'), collision('hero')]);
  });

  it('collapses waiting ticks into one with the tick count, summed dt_ms and the latest tick', () => {
    const queue = queueOf(10, [tick(1, 100), tick(2, 100), tick(3, 50)]);
    expect(queue.size).toBe(1);
    expect(queue.take()).toEqual([{ topic: 'tick', payload: { tick: 3, dt_ms: 250, time_ms: 150, ticks: 3 } }]);
  });

  it('adds the counts of ticks that were already collapsed', () => {
    const queue = queueOf(10, [{ topic: 'tick', payload: { tick: 4, dt_ms: 400, time_ms: 400, ticks: 4 } }, tick(5)]);
    expect(queue.take()[0]!.payload).toEqual({ tick: 5, dt_ms: 500, time_ms: 500, ticks: 5 });
  });

  it('leaves a lone tick without a ticks field', () => {
    expect(queueOf(10, [tick(1)]).take()).toEqual([tick(1)]);
  });

  it('keeps the latest meta of collapsed ticks', () => {
    const queue = queueOf(10, [
      { ...tick(1), meta: { tick: 1 } },
      { ...tick(2), meta: { tick: 2 } },
    ]);
    expect(queue.take()[0]!.meta).toEqual({ tick: 2 });
  });

  it('moves a collapsed tick behind the events pushed since the first one', () => {
    const queue = queueOf(10, [tick(1), message('a'), tick(2)]);
    expect(queue.take().map((e) => e.topic)).toEqual(['agent_message', 'tick']);
  });

  it('keeps only the latest state_change per entity and field, moved to the back', () => {
    const queue = queueOf(10, [state('door', 'open', false), message('a'), state('door', 'open', true)]);
    expect(queue.size).toBe(2);
    expect(queue.take()).toEqual([message('a'), state('door', 'open', true)]);
  });

  it('keeps state_changes of different fields or entities apart', () => {
    const events = [state('door', 'open', true), state('door', 'locked', false), state('gate', 'open', true)];
    expect(queueOf(10, events).take()).toEqual(events);
  });

  it('does not confuse entity/field pairs that would concatenate to the same text', () => {
    const events = [state('ab', 'c', 1), state('a', 'bc', 2)];
    expect(queueOf(10, events).take()).toEqual(events);
  });

  it('keeps every collision, audio and agent_message, in order', () => {
    const events = [collision('a'), audio('creak'), message('1'), collision('a'), audio('creak'), message('1')];
    expect(queueOf(10, events).take()).toEqual(events);
  });

  it('when over capacity drops the oldest droppable event (tick, collision, audio) first', () => {
    const queue = queueOf(3, [message('m1'), collision('c1'), audio('s1'), message('m2')]);
    expect(queue.take()).toEqual([message('m1'), audio('s1'), message('m2')]);
    expect(queue.dropped).toBe(1);
  });

  it('drops a tick as a droppable event', () => {
    const queue = queueOf(2, [state('door', 'open', true), tick(1), message('m')]);
    expect(queue.take()).toEqual([state('door', 'open', true), message('m')]);
  });

  it('when nothing droppable is waiting drops the oldest event of any kind', () => {
    const queue = queueOf(2, [message('m1'), state('door', 'open', true), message('m2')]);
    expect(queue.take()).toEqual([state('door', 'open', true), message('m2')]);
    expect(queue.dropped).toBe(1);
  });

  it('drops the newcomer itself when it is the only droppable event', () => {
    const queue = queueOf(2, [message('m1'), message('m2'), collision('c')]);
    expect(queue.take()).toEqual([message('m1'), message('m2')]);
  });

  it('starts a fresh state_change after its waiting one was dropped', () => {
    const queue = queueOf(1, [state('door', 'open', false), message('m'), state('door', 'open', true)]);
    expect(queue.take()).toEqual([state('door', 'open', true)]);
    expect(queue.dropped).toBe(2);
  });

  it('counts every dropped event, across takes', () => {
    const queue = queueOf(1, [message('1'), message('2'), message('3')]);
    expect(queue.dropped).toBe(2);
    queue.take();
    queue.push(message('4'));
    queue.push(message('5'));
    expect(queue.dropped).toBe(3);
  });

  it('does not count coalescing as dropping', () => {
    const queue = queueOf(2, [tick(1), tick(2), tick(3), state('x', 'y', 1), state('x', 'y', 2)]);
    expect(queue.dropped).toBe(0);
    expect(queue.size).toBe(2);
  });

  it('is empty after take(), and coalescing starts over', () => {
    const queue = queueOf(10, [tick(1), state('door', 'open', true)]);
    expect(queue.take()).toHaveLength(2);
    expect(queue.size).toBe(0);
    expect(queue.take()).toEqual([]);
    queue.push(tick(2));
    expect(queue.take()).toEqual([tick(2)]);
  });

  it('keeps coalescing right after many holes were squeezed out', () => {
    const queue = new EventQueue(1000);
    queue.push(message('first'));
    for (let i = 0; i < 200; i++) queue.push(state('hero', 'hp', i));
    queue.push(message('last'));
    queue.push(state('hero', 'hp', 'final'));
    expect(queue.size).toBe(3);
    expect(queue.take()).toEqual([message('first'), message('last'), state('hero', 'hp', 'final')]);
  });

  // ── property tests ─────────────────────────────────────────────────────────────────────────

  const topics: Topic[] = ['tick', 'collision', 'audio', 'state_change', 'agent_message'];
  const anEvent = fc
    .record({ topic: fc.constantFrom(...topics), key: fc.integer({ min: 0, max: 3 }), n: fc.integer({ min: 0, max: 1000 }) })
    .map(({ topic, key, n }): QueuedEvent => {
      switch (topic) {
        case 'tick':
          return tick(n, key + 1);
        case 'collision':
          return collision(`e${key}`);
        case 'audio':
          return audio(`s${n}`);
        case 'state_change':
          return state(`e${key % 2}`, `f${key >> 1}`, n);
        default:
          return message(`m${n}`);
      }
    });
  const aStep = fc.oneof({ weight: 20, arbitrary: anEvent.map((event) => ({ push: event })) }, { weight: 1, arbitrary: fc.constant({ take: true as const }) });

  it('never holds more than its capacity, and size always equals what take() returns (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(aStep, { maxLength: 300 }), (capacity, steps) => {
        const queue = new EventQueue(capacity);
        for (const step of steps) {
          if ('take' in step) {
            const size = queue.size;
            expect(queue.take()).toHaveLength(size);
          } else queue.push(step.push);
          expect(queue.size).toBeLessThanOrEqual(capacity);
          expect(queue.size).toBeGreaterThanOrEqual(0);
        }
      }),
      { numRuns: 300 },
    );
  });

  /** The queue's rules, written as plainly as possible over an array. */
  class ModelQueue {
    events: QueuedEvent[] = [];
    dropped = 0;
    constructor(readonly capacity: number) {}
    push(event: QueuedEvent): void {
      const key = (e: QueuedEvent) =>
        e.topic === 'tick' ? 'tick' : e.topic === 'state_change' ? `${String(e.payload['entity'])}/${String(e.payload['field'])}` : undefined;
      const k = key(event);
      const at = k === undefined ? -1 : this.events.findIndex((e) => key(e) === k);
      if (at >= 0) {
        const [previous] = this.events.splice(at, 1);
        if (event.topic === 'tick') {
          const count = (e: QueuedEvent) => (typeof e.payload['ticks'] === 'number' ? e.payload['ticks'] : 1);
          event = {
            ...event,
            payload: {
              ...event.payload,
              dt_ms: (previous!.payload['dt_ms'] as number) + (event.payload['dt_ms'] as number),
              ticks: count(previous!) + count(event),
            },
          };
        }
      }
      this.events.push(event);
      if (this.events.length > this.capacity) {
        let victim = this.events.findIndex((e) => e.topic === 'tick' || e.topic === 'collision' || e.topic === 'audio');
        if (victim < 0) victim = 0;
        this.events.splice(victim, 1);
        this.dropped++;
      }
    }
  }

  it('behaves like a plain array model of its rules under any stream of pushes and takes (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(aStep, { maxLength: 300 }), (capacity, steps) => {
        const queue = new EventQueue(capacity);
        const model = new ModelQueue(capacity);
        for (const step of steps) {
          if ('take' in step) {
            expect(queue.take()).toEqual(model.events);
            model.events = [];
          } else {
            queue.push(step.push);
            model.push(step.push);
          }
          expect(queue.dropped).toBe(model.dropped);
        }
        expect(queue.take()).toEqual(model.events);
      }),
      { numRuns: 300 },
    );
  });
});

describe('emit to a character that several sessions control', () => {
  it('reaches each of its sessions, and the one left after another closes', async () => {
    const { makeCapsule, connectRaw, pass } = await import('../helpers.js');
    const { capsule, clock } = makeCapsule();
    const settle = () => pass(clock, 20, 20); // past an edge_small agent's 12.5 ms between deliveries
    const options = { agentModel: { class: 'edge_small' as const }, subscriptions: ['agent_message'] };
    const [ada1, ada2, bo] = [
      await connectRaw(capsule, { character: 'ada', ...options }),
      await connectRaw(capsule, { character: 'ada', ...options }),
      await connectRaw(capsule, { character: 'bo', ...options }),
    ];
    const heard = () => [ada1, ada2, bo].map((peer) => peer.ofType('event').map((e) => e.payload['text']));
    capsule.emit('agent_message', { from: 'x', text: 'one' }, { to: 'ada' });
    await settle();
    expect(heard()).toEqual([['one'], ['one'], []]);
    capsule.session(ada1.sessionId)!.close('gone');
    capsule.emit('agent_message', { from: 'x', text: 'two' }, { to: ['ada', 'bo'] });
    await settle();
    expect(heard()).toEqual([['one'], ['one', 'two'], ['two']]);
    capsule.session(ada2.sessionId)!.close('gone');
    capsule.emit('agent_message', { from: 'x', text: 'three' }, { to: 'ada' });
    await settle();
    expect(heard()).toEqual([['one'], ['one', 'two'], ['two']]);
  });

  it('reaches a character named twice in `to` once', async () => {
    const { makeCapsule, connectRaw, pass } = await import('../helpers.js');
    const { capsule, clock } = makeCapsule();
    const bo = await connectRaw(capsule, { character: 'bo', agentModel: { class: 'edge_small' }, subscriptions: ['agent_message'] });
    capsule.emit('agent_message', { from: 'x', text: 'hello' }, { to: ['bo', 'bo'] });
    await pass(clock, 20, 20);
    expect(bo.ofType('event').map((e) => e.payload['text'])).toEqual(['hello']);
  });
});
