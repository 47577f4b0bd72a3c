// The pi-peers records a hostile agent sends PeersClient (hostileAgent.ts): answers near a true
// one with any field odd, missing or added, records nobody asked for, the changes made to a true
// answer on its way, and the fates of requests and reconnections drawn from them.

import fc from 'fast-check';
import { PEERS_ERROR_CODES } from '../../../src/pi/index.js';
import { anyNumber, hostileJson, hostileText, plainText, REMOVE, SECRET_KEY, Sym } from './hostileValues.js';
import { fateOf, type Change, type ConnectFate, type Fate } from './proxyFates.js';

/** Ids a hostile record may name: its request's, one waiting, one answered, the hello's, or none of ours. */
const idChoice: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.nat(7).map((n) => new Sym('pending', n)) },
  { weight: 2, arbitrary: fc.nat(15).map((n) => new Sym('previous', n)) },
  fc.constant(new Sym('hello')),
  fc.uuid(),
  hostileText,
  anyNumber,
  fc.constant(null),
);

const versionText = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('1.0', '1.1', '1.9', '2.0', '0.9', '10.0', '1.10') },
  fc.constantFrom('1', '1.0.0', '', ' 1.0', 'v1.0', '01.00', '1.0\n', '99999999999999999999.0'),
  hostileText,
);
const versionRange = fc.record({ version: versionText, minVersion: versionText }, { requiredKeys: [] });
/** Mostly `good`, sometimes anything. */
const mostly = <T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof({ weight: 9, arbitrary: good }, hostileJson);

/** get_state data close to an AgentState (and to the gateway's held answer), any field odd. */
const stateData = fc.record(
  {
    id: mostly(fc.constant('sim-agent')),
    label: mostly(plainText),
    host: mostly(fc.constant('sim-host')),
    cwd: mostly(fc.constant('/sim')),
    idle: mostly(fc.boolean()),
    settled: mostly(fc.nat(6)),
    status: hostileText,
    protocol: fc.oneof(versionRange, hostileJson),
    schemaVersion: versionText,
    pid: anyNumber,
    token: hostileText,
    held: mostly(fc.boolean()),
    lastAssistantText: fc.oneof(hostileText, fc.constant(null), anyNumber),
    [SECRET_KEY]: hostileJson,
  },
  { requiredKeys: ['id', 'label', 'host', 'cwd'] },
);
const responseData = fc.oneof(
  { weight: 3, arbitrary: stateData },
  fc.record({ protocol: fc.oneof({ weight: 3, arbitrary: versionRange }, hostileJson), id: plainText }, { requiredKeys: [] }),
  fc.record({ text: fc.oneof(hostileText, fc.constant(null), anyNumber) }, { requiredKeys: [] }),
  fc.record({ disposition: fc.oneof(fc.constantFrom('started', 'queued', 'handled'), hostileText) }, { requiredKeys: [] }),
  hostileJson,
);

/** A response: near-valid, any field odd, missing or added. Its id stands for the request it answers. */
const responseRecord: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    type: fc.oneof({ weight: 12, arbitrary: fc.constant('response') }, fc.constantFrom('Response', 'response ', 'event'), hostileText),
    id: fc.oneof({ weight: 6, arbitrary: fc.constant(new Sym('this')) }, idChoice),
    command: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('hello', 'get_state', 'get_last_assistant_text', 'prompt', 'follow_up', 'steer', 'abort', 'parse') },
      hostileText,
      anyNumber,
    ),
    success: fc.oneof({ weight: 8, arbitrary: fc.boolean() }, fc.constantFrom('true', 1, null, 0)),
    data: responseData,
    error: fc.oneof({ weight: 6, arbitrary: hostileText }, anyNumber, fc.constant(null)),
    errorCode: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...PEERS_ERROR_CODES) },
      fc.constantFrom('quota_exceeded', 'timeout', 'closed', 'unknown_error', 'invalid_response', 'aborted', ''),
      hostileText,
      anyNumber,
      fc.constant(null),
    ),
    retryable: fc.oneof({ weight: 6, arbitrary: fc.boolean() }, fc.constantFrom('yes', 0, null)),
    [SECRET_KEY]: hostileJson,
  },
  { requiredKeys: ['type', 'id', 'command', 'success'] },
);

const PI_EVENTS = [
  'agent_start',
  'agent_end',
  'agent_settled',
  'turn_start',
  'turn_end',
  'message_start',
  'message_update',
  'message_end',
  'tool_execution_start',
  'tool_execution_update',
  'tool_execution_end',
  'queue_update',
  'auto_compaction_start',
  'auto_retry_start',
  'extension_ui_request',
  'extension_error',
  'hello',
  'get_state',
  'prompt',
];

/** Records nobody asked for: pi's events and unknown types (an id among them is progress), answers to nothing, types that are not strings. */
export const unsolicited: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record(
      {
        type: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...PI_EVENTS) }, hostileText),
        id: idChoice,
        message: hostileJson,
        messages: hostileJson,
        data: hostileJson,
        method: hostileText,
      },
      { requiredKeys: ['type'] },
    ),
  },
  { weight: 3, arbitrary: responseRecord },
  fc.record({ type: fc.oneof(anyNumber, fc.constant(null), fc.boolean(), fc.array(plainText, { maxLength: 2 })), id: idChoice }, { requiredKeys: [] }),
);

const change: fc.Arbitrary<Change> = fc.record({
  path: fc.constantFrom(
    ['id'],
    ['command'],
    ['success'],
    ['error'],
    ['errorCode'],
    ['retryable'],
    ['type'],
    ['data'],
    ['data', 'settled'],
    ['data', 'idle'],
    ['data', 'id'],
    ['data', 'label'],
    ['data', 'cwd'],
    ['data', 'token'],
    ['data', 'held'],
    ['data', 'lastAssistantText'],
    ['data', 'protocol'],
    ['data', 'protocol', 'version'],
    ['data', 'protocol', 'minVersion'],
    ['data', 'text'],
    ['data', 'disposition'],
    [SECRET_KEY],
  ),
  value: fc.oneof(fc.constant(REMOVE), idChoice, hostileJson),
});

/** What becomes of one request: progress is records of pi's events or of unknown types. */
export const fate: fc.Arbitrary<Fate> = fateOf({
  reason: hostileText,
  change,
  progress: { weight: 2, arbitrary: fc.record({ count: fc.integer({ min: 1, max: 4 }), type: fc.oneof(fc.constantFrom(...PI_EVENTS), plainText) }) },
  forge: { weight: 6, arbitrary: responseRecord },
});

export const connectFate: fc.Arbitrary<ConnectFate> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      { kind: 'ok' as const },
      { kind: 'throw' as const },
      { kind: 'never' as const },
      { kind: 'late' as const },
      { kind: 'closed' as const },
      { kind: 'flaky' as const },
    ),
  },
  hostileText.map((message) => ({ kind: 'reject' as const, message })),
);
