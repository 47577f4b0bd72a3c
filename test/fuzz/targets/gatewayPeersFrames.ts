// pi-peers frames a hostile page sends the gateway in relay and host mode: records close to real
// ones, doubled, cut, corrupted, split by line breaks or polluting prototypes; what a page checks
// of every pi-peers record it gets back; and the well-formed hello both modes greet with.

import fc from 'fast-check';
import type { FuzzContext } from '../harness/context.js';
import peersSchema from '../../../schemas/pi-peers-1.0.schema.json';
import type { Record_ } from '../../node/gateway/helpers.js';
import type { RecordCheck } from './gatewayPage.js';
import { deepRecord, depth, dropUndefined, json, notText, sizedFrame, sometimes, weird, type PageFrame } from './gatewayPageFrames.js';
import type { Exchange } from './gatewayRun.js';

/**
 * pi-peers error codes (the schema's ErrorCode enum) but internal_error: the schema documents it,
 * but behind a fake peer that never fails it could only come from a bug of the gateway's.
 */
export const PEERS_CODES: ReadonlySet<string> = new Set(peersSchema.$defs.ErrorCode.enum.filter((code) => code !== 'internal_error'));

const peersId = fc.oneof(
  { weight: 30, arbitrary: fc.nat(9999).map((n) => `r${n}`) },
  fc.constantFrom(undefined, '', 'r1', '__proto__', 'hello-1', 'x'.repeat(100_000)),
  fc.integer(),
  fc.constantFrom(null, true, [], {}),
  weird,
);
const peersType = fc.oneof(
  { weight: 30, arbitrary: fc.constantFrom('get_state', 'get_state', 'get_last_assistant_text', 'prompt', 'prompt', 'steer', 'follow_up', 'abort') },
  fc.constantFrom(undefined, 'hello', 'response', 'event', 'list', 'GET_STATE', '__proto__', 'toString'),
  weird,
  fc.integer(),
  fc.constant(null),
);
const version = fc.oneof(
  { weight: 3, arbitrary: fc.constant('1.0') },
  fc.constantFrom('1.1', '1.10', '0.9', '2.0', '01.0', '1.0.0', '1', '', '1e3', '99999999999999999999.0', '-1.0'),
  fc.integer(),
  fc.constant(null),
  weird,
);
// fakePi.mjs exits on the prompt "die": a page cannot know that, and the run must go on.
const message = fc
  .oneof({ weight: 8, arbitrary: fc.string({ minLength: 1, maxLength: 60 }) }, fc.constant(undefined), weird, json)
  .map((m) => (m === 'die' ? 'die?' : m));

/** A pi-peers record close to a real one: any field replaced, dropped or added, a token now and then. */
export const peersRecord: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    id: peersId,
    type: peersType,
    message,
    protocol: sometimes(fc.oneof(fc.record({ version, minVersion: version }, { requiredKeys: [] }), json), 3),
    from: sometimes(fc.oneof(fc.record({ id: weird, label: weird, host: weird }), fc.record({ id: weird }), json), 4),
    hops: sometimes(fc.oneof(fc.integer({ min: -1, max: 5 }), fc.constantFrom(0, 1.5, 2 ** 53, 1e300, '2', null)), 4),
    awaitsReply: sometimes(fc.oneof({ weight: 3, arbitrary: fc.boolean() }, json), 6),
    // A get_state with settledAbove is held until a run settles, 20 s without holdMs: kept rare.
    settledAbove: sometimes(fc.oneof(fc.nat(3), fc.constantFrom(-1, 0.5, 2 ** 53, '1', null)), 10),
    holdMs: sometimes(fc.constantFrom(0, 1, 5, 20, -5, 'x', null), 1),
    token: sometimes(fc.oneof(weird, fc.constant('agent-token-guess')), 25),
    extra: sometimes(json, 4),
  })
  .map(dropUndefined);

const peersHello = fc
  .record({
    id: peersId,
    type: fc.constant('hello'),
    protocol: fc.record({ version, minVersion: version }),
    from: sometimes(fc.record({ id: weird, label: weird, host: weird }), 2),
  })
  .map(dropUndefined);

/** Strings that hold a second record after a line break: one frame must stay one record. */
const smuggled = fc.constantFrom(
  '{"id":"s1","type":"get_state","note":"x\\n{\\"id\\":\\"s2\\",\\"type\\":\\"hello\\",\\"token\\":\\"t\\"}"}',
  '{"id":"s1","type":"get_state","note":"x\u2028{\\"id\\":\\"s2\\",\\"type\\":\\"prompt\\",\\"message\\":\\"m\\"}\u2029"}',
  '{"id":"s1","type":"prompt","message":"a\\r{\\"id\\":\\"s2\\",\\"type\\":\\"hello\\"}"}',
);

const protoPolluters = fc.constantFrom(
  '{"__proto__":{"token":"x"},"id":"p1","type":"get_state"}',
  '{"id":"p2","type":"get_state","__proto__":{"type":"hello","token":"x"}}',
  '{"id":"p3","type":"hello","protocol":{"__proto__":{"version":"1.0","minVersion":"1.0"}}}',
  '{"id":"p4","type":"prompt","message":"m","constructor":{"prototype":{"token":"x"}}}',
  '{"id":"__proto__","type":"prompt","message":"m"}',
  '{"id":"p5","type":"__proto__"}',
  '{"id":"p6","type":"hello","protocol":{"version":"1.0","minVersion":"1.0"},"from":{"__proto__":{"id":"i","label":"l","host":"h"}}}',
  '{"id":"toString","type":"follow_up","message":"m"}',
  '{"id":"hasOwnProperty","type":"get_state","settledAbove":{"valueOf":1}}',
);

/** JSON text as a hostile page writes it: records whole, doubled, cut, corrupted, split by line breaks. */
export function peersFrames(maxPayload: number): fc.Arbitrary<PageFrame> {
  const text = fc.oneof({ weight: 6, arbitrary: peersRecord }, peersHello).map((record) => JSON.stringify(record));
  const fields = fc.constantFrom(
    '"id":"d","type":"get_state"',
    '"id":"d","type":"hello","protocol":{"version":"1.0","minVersion":"1.0"}',
    '"id":"d","type":"prompt","message":"m"',
  );
  return fc.oneof(
    { weight: 24, arbitrary: text },
    // A duplicate key: JSON.parse keeps the last one, the gateway must act on what it forwards.
    {
      weight: 2,
      arbitrary: fc
        .tuple(text, fc.constantFrom('"id":"dup"', '"type":"hello"', '"token":"x"', '"id":1', '"__proto__":{"token":"t"}', '"type":"get_state"'))
        .map(([t, field]) => (t.length > 2 ? `{${field},${t.slice(1)}` : t)),
    },
    // NDJSON smuggling: two records in one frame, raw line breaks as whitespace, breaks inside strings.
    { weight: 2, arbitrary: fc.tuple(text, text, fc.constantFrom('\n', '\r\n', '\r', '\u2028', ' ')).map(([a, b, gap]) => `${a}${gap}${b}`) },
    { weight: 2, arbitrary: fc.tuple(text, fc.constantFrom('\n', '\r', '\r\n', '\u2028', '\t')).map(([t, gap]) => t.replaceAll(',', `,${gap}`)) },
    { weight: 1, arbitrary: smuggled },
    { weight: 2, arbitrary: fc.tuple(text, fc.nat()).map(([t, n]) => t.slice(0, n % (t.length + 1))) },
    {
      weight: 1,
      arbitrary: fc.tuple(text, fc.nat(), fc.string({ minLength: 1, maxLength: 3 })).map(([t, n, junk]) => {
        const at = n % (t.length + 1);
        return t.slice(0, at) + junk + t.slice(at + 1);
      }),
    },
    { weight: 1, arbitrary: protoPolluters },
    { weight: 1, arbitrary: fc.tuple(fields, depth, fc.boolean()).map(([f, d, arrays]) => deepRecord(f, d, arrays)) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.string(),
        fc.constantFrom(
          'null',
          'true',
          '0',
          '""',
          '[]',
          '{}',
          '{',
          '\uFEFF{"id":"b","type":"get_state"}',
          '{"id":"a","type":"get_state"}{"id":"b"}',
          'NaN',
          '[{"id":"a","type":"get_state"}]',
        ),
      ),
    },
    { weight: 2, arbitrary: notText },
    // Around the payload limit (1 MiB by default): one draw in four, as they cost the most.
    { weight: 1, arbitrary: fc.nat(3).chain((n) => (n === 0 ? sizedFrame(maxPayload, '"id":"big","type":"get_state"') : text)) },
  );
}

/** A pi-peers record a page got: a failure's errorCode must be documented. True for a response. */
export function inspectPeers(context: FuzzContext): RecordCheck {
  return (record, where) => {
    if (record['type'] !== 'response') return false;
    const deliveredAs = (record['data'] as Record_ | undefined)?.['deliveredAs'];
    context.tally(
      record['success'] !== true ? `answer ${String(record['errorCode'])}` : typeof deliveredAs === 'string' ? `delivered as ${deliveredAs}` : 'answer ok',
    );
    if (record['success'] === false) context.code(record['errorCode'], PEERS_CODES, `${where}: an errorCode`);
    else if (record['success'] !== true) context.problem(`${where}: a response without a boolean success: ${JSON.stringify(record).slice(0, 120)}`);
    return true;
  };
}

/** The greeting relay and host mode open a connection with: a well-formed hello, answered with success. */
export const peersGreeting = (id: string): Exchange => ({
  record: { id, type: 'hello', protocol: { version: '1.0', minVersion: '1.0' } },
  answers: (r) => r['type'] === 'response' && r['id'] === id,
  served: (r) => r['success'] === true,
});
