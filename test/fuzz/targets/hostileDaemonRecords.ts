// The pi-daemon records a hostile host sends DaemonClient (hostileHost.ts): answers and events near
// true ones with any field odd, missing or added (numbered near the session's own stream or
// anywhere, from this host or another), the changes made to a true answer or event on its way, and
// the fates of answers, events and reconnections drawn from them.

import fc from 'fast-check';
import { DAEMON_WIRE_ERROR_CODES } from '../../../src/pi/index.js';
import { PROBE, SESSIONS } from './daemonStage.js';
import { anyNumber, hostileJson, hostileText, plainText, REMOVE, Sym } from './hostileValues.js';
import { fateOf, type Change, type ConnectFate, type Fate } from './proxyFates.js';

/** What becomes of one event the host sends. */
export type EventFate = { kind: 'pass' | 'swallow' | 'twice' | 'late' } | { kind: 'change'; changes: Change[] } | { kind: 'shift'; by: number };

const idChoice: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.nat(7).map((n) => new Sym('pending', n)) },
  { weight: 2, arbitrary: fc.nat(15).map((n) => new Sym('previous', n)) },
  fc.constantFrom('r0', 'r1', 'r999999', 'unknown', ''),
  hostileText,
  anyNumber,
);
/** Host ids: the host's own, another instance's (a restart), or not an id. */
const hostChoice: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(new Sym('host')) },
  { weight: 2, arbitrary: fc.nat(2).map((n) => new Sym('otherHost', n)) },
  fc.constant(''),
  fc.constant('x'.repeat(513)),
  hostileText,
  anyNumber,
);
const sessionChoice: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.nat(3).map((n) => new Sym('attached', n)) },
  fc.constantFrom(...SESSIONS, PROBE, 'npc-never-opened', ''),
  hostileText,
);
/** A generation or sequence near the session's own (`rel` away), or anywhere at all. */
const countNear = (name: 'gen' | 'seq', spread: number): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 4, arbitrary: fc.integer({ min: -2, max: spread }).map((rel) => new Sym(name, rel)) }, { weight: 2, arbitrary: anyNumber });
const versionChoice: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.constant('2.0') },
  fc.constantFrom('1.0', '2.1', '2.99', '2', '3.0', '2.0 ', ''),
  hostileText,
  anyNumber,
);

const wireError = fc.record(
  {
    code: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...DAEMON_WIRE_ERROR_CODES) },
      fc.constantFrom('timeout', 'closed', 'unknown_error', 'invalid_response', 'too_many_pending', 'quota_exceeded', ''),
      hostileText,
      anyNumber,
    ),
    message: fc.oneof({ weight: 6, arbitrary: hostileText }, anyNumber),
    retryable: fc.oneof({ weight: 6, arbitrary: fc.boolean() }, fc.constantFrom('yes', 0, null)),
    details: fc.oneof(fc.dictionary(plainText, hostileJson, { maxKeys: 4 }), hostileJson),
  },
  { requiredKeys: ['code', 'message', 'retryable'] },
);

const handshakeData = fc.record(
  {
    protocolVersion: versionChoice,
    supportedProtocolVersions: fc.oneof(
      { weight: 4, arbitrary: fc.constant(['1.0', '2.0']) },
      fc.constantFrom(['1.0'], ['3.0', '3.1'], [], ['2.7'], ['2.0', 5], '2.0', null),
      fc.array(hostileText, { maxLength: 3 }),
    ),
    capabilities: hostileJson,
    limits: hostileJson,
    host: fc.record({ hostInstanceId: hostChoice, ready: fc.oneof(fc.boolean(), hostileJson), draining: fc.boolean() }, { requiredKeys: [] }),
  },
  { requiredKeys: ['supportedProtocolVersions', 'host'] },
);
const responseData: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: handshakeData },
  fc.record(
    { created: fc.oneof(fc.boolean(), hostileJson), session: fc.oneof(fc.record({ sessionId: sessionChoice, generation: countNear('gen', 2) }), hostileJson) },
    { requiredKeys: [] },
  ),
  {
    weight: 2,
    arbitrary: fc.record(
      { attached: fc.oneof(fc.boolean(), hostileJson), generation: countNear('gen', 2), sequence: countNear('seq', 40) },
      { requiredKeys: [] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        result: fc.oneof(
          fc.record({ text: fc.oneof({ weight: 3, arbitrary: hostileText }, anyNumber, fc.constant(null)), sessionId: sessionChoice }, { requiredKeys: [] }),
          hostileJson,
        ),
        session: hostileJson,
      },
      { requiredKeys: [] },
    ),
  },
  fc.record(
    { queued: fc.oneof(fc.boolean(), hostileJson), aborted: fc.oneof(fc.boolean(), hostileJson), closed: fc.oneof(fc.boolean(), hostileJson) },
    { requiredKeys: [] },
  ),
  hostileJson,
);

/** A response: near-valid, any field odd, missing or added. `Sym('this')` stands for the request it answers. */
const responseRecord: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    protocolVersion: versionChoice,
    kind: fc.oneof({ weight: 12, arbitrary: fc.constant('response') }, fc.constantFrom('event', 'Response', 'notice'), hostileText),
    requestId: fc.oneof({ weight: 6, arbitrary: fc.constant(new Sym('this')) }, idChoice),
    hostInstanceId: hostChoice,
    sessionId: sessionChoice,
    sequence: countNear('seq', 40),
    ok: fc.oneof({ weight: 8, arbitrary: fc.boolean() }, fc.constantFrom('true', 1, null)),
    data: responseData,
    error: fc.oneof({ weight: 4, arbitrary: wireError }, hostileJson),
  },
  { requiredKeys: ['protocolVersion', 'kind', 'requestId', 'hostInstanceId', 'ok'] },
);

const EVENTS = [
  'promptAccepted',
  'agentStart',
  'turnStart',
  'messageStart',
  'messageUpdate',
  'messageEnd',
  'toolStart',
  'toolUpdate',
  'toolEnd',
  'turnEnd',
  'queueUpdate',
  'agentSettled',
  'agentEnd',
  'sessionIdle',
  'requestFailed',
  'opened',
  'sessionDormant',
  'sessionDeleted',
  'sessionClosed',
];

/** An event, near-valid: of a session attached or not, numbered near its stream or anywhere, from this host or another. */
const eventRecord: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    protocolVersion: versionChoice,
    kind: fc.oneof({ weight: 12, arbitrary: fc.constant('event') }, fc.constantFrom('response', 'Event'), hostileText),
    event: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...EVENTS) }, hostileText, anyNumber),
    hostInstanceId: hostChoice,
    sessionId: sessionChoice,
    generation: countNear('gen', 2),
    sequence: countNear('seq', 300),
    requestId: idChoice,
    data: hostileJson,
  },
  { requiredKeys: ['protocolVersion', 'kind', 'event', 'hostInstanceId', 'sessionId', 'generation', 'sequence'] },
);

/** Records nobody asked for: mostly events, some answers to nothing, some of no kind at all. */
export const unsolicited = fc.oneof(
  { weight: 5, arbitrary: eventRecord },
  { weight: 2, arbitrary: responseRecord },
  fc.record({ kind: fc.oneof(anyNumber, fc.constant(null), hostileText), requestId: idChoice }, { requiredKeys: [] }),
);

const responsePaths: string[][] = [
  ['protocolVersion'],
  ['kind'],
  ['requestId'],
  ['hostInstanceId'],
  ['ok'],
  ['error'],
  ['error', 'code'],
  ['error', 'retryable'],
  ['error', 'message'],
  ['error', 'details'],
  ['data'],
  ['data', 'generation'],
  ['data', 'sequence'],
  ['data', 'attached'],
  ['data', 'result'],
  ['data', 'result', 'text'],
  ['data', 'created'],
  ['data', 'session'],
  ['data', 'supportedProtocolVersions'],
  ['data', 'host'],
  ['data', 'host', 'hostInstanceId'],
  ['data', 'queued'],
  ['data', 'aborted'],
  ['data', 'closed'],
  ['sessionId'],
  ['sequence'],
];
const change: fc.Arbitrary<Change> = fc.record({
  path: fc.constantFrom(...responsePaths),
  value: fc.oneof(fc.constant(REMOVE), idChoice, hostChoice, countNear('seq', 40), versionChoice, hostileJson),
});
const eventPaths: string[][] = [
  ['sequence'],
  ['generation'],
  ['hostInstanceId'],
  ['sessionId'],
  ['protocolVersion'],
  ['event'],
  ['requestId'],
  ['data'],
  ['kind'],
];
const eventChange: fc.Arbitrary<Change> = fc.record({
  path: fc.constantFrom(...eventPaths),
  value: fc.oneof(
    { weight: 3, arbitrary: anyNumber },
    fc.constant(REMOVE),
    hostChoice,
    sessionChoice,
    countNear('gen', 2),
    idChoice,
    versionChoice,
    hostileJson,
  ),
});

/** What becomes of one answer: progress is agentStart events naming the request (its timeout starts again). */
export const fate: fc.Arbitrary<Fate> = fateOf({
  reason: plainText,
  change,
  progress: { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }).map((count) => ({ count, type: 'agentStart' })) },
  forge: { weight: 5, arbitrary: responseRecord },
});
export const eventFate: fc.Arbitrary<EventFate> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom({ kind: 'swallow' as const }, { kind: 'twice' as const }, { kind: 'late' as const }) },
  { weight: 3, arbitrary: fc.array(eventChange, { minLength: 1, maxLength: 2 }).map((changes) => ({ kind: 'change' as const, changes })) },
  {
    weight: 2,
    arbitrary: fc.oneof(fc.integer({ min: -3, max: 6 }), fc.constantFrom(255, 256, 257, 1e6, 2 ** 53, 2 ** 60)).map((by) => ({ kind: 'shift' as const, by })),
  },
);

/** A reconnection refused, never answered, closed at once or dropped as it is accepted (pi-daemon's connect() does not throw or come late). */
export const connectFate: fc.Arbitrary<ConnectFate> = fc.constantFrom<ConnectFate>(
  { kind: 'ok' },
  { kind: 'reject', message: 'connection refused' },
  { kind: 'never' },
  { kind: 'closed' },
  { kind: 'flaky' },
);
