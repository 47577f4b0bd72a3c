// A session's deliveries read the capsule's event log from a cursor instead of copying every event
// into a queue of its own. What an agent receives must not change for it: this pins the log-based
// delivery against a model that is exactly the old way — every event the session hears pushed into
// its own EventQueue at once, and each delivery taking the queue.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventDelivery, type DeliveryHost, type DeliveryOutlet, type DeliverySession } from '../../src/runtime/delivery.js';
import { EventLog, topicBit, topicMask, type LogEntry } from '../../src/runtime/eventLog.js';
import { coalescingKey, EventQueue, type QueuedEvent } from '../../src/runtime/events.js';
import { ManualClock } from '../../src/base/clock.js';
import { TOPICS, type JsonObject, type Topic } from '../../src/protocol/messages.js';
import type { SentEvent } from '../../src/runtime/resumeReplay.js';

type Op =
  | { kind: 'broadcast'; topic: Topic; entity: number; field: number }
  | { kind: 'own'; topic: Topic; entity: number; field: number }
  | { kind: 'resubscribe'; topics: Topic[] }
  | { kind: 'deliver' }
  | { kind: 'count' };

const topic = fc.constantFrom(...TOPICS);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('broadcast' as const), topic, entity: fc.nat(3), field: fc.nat(1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('own' as const), topic, entity: fc.nat(3), field: fc.nat(1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('resubscribe' as const), topics: fc.subarray([...TOPICS]) }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'deliver' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'count' as const }) },
);

let made = 0;
function payloadOf(topic: Topic, entity: number, field: number): JsonObject {
  const n = ++made;
  switch (topic) {
    case 'tick':
      return { tick: n, dt_ms: 100, time_ms: n * 100 };
    case 'state_change':
      return { entity: `e${entity}`, field: `f${field}`, value: n };
    case 'collision':
      return { a: `e${entity}`, b: 'wall', n };
    case 'audio':
      return { source: `e${entity}`, sound: 'ding', n };
    default:
      return { from: `e${entity}`, text: `said ${n}` };
  }
}

/** What an agent sees of an event. */
const seen = (event: SentEvent) => ({ topic: event.topic, payload: event.payload, meta: event.meta });

function harness(options: { logSize: number; queueSize: number; topics: readonly Topic[] }) {
  const clock = new ManualClock();
  const log = new EventLog(options.logSize);
  const delivered: SentEvent[][] = [];
  let batch: SentEvent[] = [];
  const session: DeliverySession & { topicMask: number } = {
    // A budget of 0 ms: every delivery is due at once.
    agentModel: { class: 'edge_small', expected_full_response_ms: 0 },
    topicMask: topicMask(options.topics),
    backlog: 0,
  };
  const outlet: DeliveryOutlet = {
    cork: () => (batch = []),
    sendEvent: (event) => batch.push(event),
    uncork: () => delivered.push(batch),
  };
  const host: DeliveryHost = {
    clock,
    log,
    settings: { tickIntervalMs: 100, maxBufferedBytes: Infinity, eventQueueSize: options.queueSize },
    soon: (task) => task(),
  };
  const delivery = new EventDelivery(host, session, outlet);
  return { log, delivery, session, delivered };
}

describe('EventDelivery over the capsule’s event log', () => {
  it('delivers exactly what a queue of the session’s own would have (property)', () => {
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 120 }),
        fc.integer({ min: 16, max: 64 }),
        fc.integer({ min: 1, max: 12 }),
        fc.subarray([...TOPICS]),
        (ops, logSize, queueSize, initial) => {
          const { log, delivery, session, delivered } = harness({ logSize, queueSize, topics: initial });
          // The model: the old way.
          const model = new EventQueue(queueSize);
          let heard = new Set<Topic>(initial);
          let modelDropped = 0;
          const expected: SentEvent[][] = [];
          for (const step of ops) {
            switch (step.kind) {
              case 'broadcast': {
                const payload = payloadOf(step.topic, step.entity, step.field);
                const key = coalescingKey({ topic: step.topic, payload });
                const entry: LogEntry = { topic: step.topic, payload, key, bit: topicBit(step.topic), superseded: false };
                log.append(entry);
                if (heard.has(step.topic)) {
                  const before = model.dropped;
                  model.push(entry);
                  modelDropped += model.dropped - before;
                }
                break;
              }
              case 'own': {
                const payload = payloadOf(step.topic, step.entity, step.field);
                const event: QueuedEvent = { topic: step.topic, payload, key: coalescingKey({ topic: step.topic, payload }) };
                delivery.push(event); // delivers at once too: the cadence is 0
                const before = model.dropped;
                model.push(event);
                modelDropped += model.dropped - before;
                expected.push(takeModel(model));
                break;
              }
              case 'resubscribe':
                delivery.catchUp();
                session.topicMask = topicMask(step.topics);
                heard = new Set(step.topics);
                break;
              case 'deliver': {
                delivery.poll();
                const batch = takeModel(model);
                if (batch.length > 0) expected.push(batch);
                break;
              }
              case 'count':
                expect(delivery.waiting).toBe(model.size);
                expect(delivery.droppedTotal).toBe(modelDropped);
                break;
            }
          }
          expect(delivered.map((batch) => batch.map(seen))).toEqual(expected.map((batch) => batch.map(seen)));
        },
      ),
      { numRuns: 400, seed: 14 },
    );
  });

  it('walks the log range without copying it, for a session with nothing of its own waiting', () => {
    const { log, delivery, delivered } = harness({ logSize: 64, queueSize: 256, topics: ['state_change', 'tick'] });
    const entries = [0, 1, 2].map((n): LogEntry => {
      const payload = { entity: `e${n}`, field: 'hp', value: n };
      return { topic: 'state_change', payload, key: coalescingKey({ topic: 'state_change', payload }), bit: topicBit('state_change'), superseded: false };
    });
    for (const entry of entries) log.append(entry);
    delivery.poll();
    // The very objects the log holds: encoded once for every session, kept once for resume.
    expect(delivered[0]).toHaveLength(3);
    delivered[0]!.forEach((event, n) => expect(event).toBe(entries[n]));
  });

  it('takes what the log is about to forget into the session’s own queue, keeping its bound', () => {
    const { log, delivery, delivered } = harness({ logSize: 16, queueSize: 4, topics: ['collision'] });
    for (let n = 0; n < 40; n++)
      log.append({ topic: 'collision', payload: { a: 'x', b: `rock${n}` }, key: null, bit: topicBit('collision'), superseded: false });
    expect(log.start).toBeGreaterThan(0);
    expect(delivery.waiting).toBe(4);
    expect(delivery.droppedTotal).toBe(36);
    delivery.poll();
    expect(delivered[0]!.map((event) => event.payload['b'])).toEqual(['rock36', 'rock37', 'rock38', 'rock39']);
    expect(delivered[0]![0]!.meta).toEqual({ dropped_events: 36 });
  });
});

/** A delivery of the model queue, as EventDelivery makes one: dropped_events on the first event. */
function takeModel(queue: EventQueue): SentEvent[] {
  const dropped = queue.dropped;
  const batch = queue.take();
  queue.dropped = 0;
  return batch.map((event, index) =>
    index === 0 && dropped > 0 ? { topic: event.topic, payload: event.payload, meta: { ...event.meta, dropped_events: dropped } } : event,
  );
}
