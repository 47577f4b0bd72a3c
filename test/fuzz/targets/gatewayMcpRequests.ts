// Hostile requests to the gateway's MCP endpoint (gatewayMcp.ts runs them): mostly POSTs to an open
// session with the right key and headers, so that they reach the transport and the MCP SDK's server,
// carrying JSON-RPC messages, batches and values that are almost right — a request that is also a
// result, a member JSON-RPC has not, params of every type, ids of every type and few enough of them
// that a batch repeats one, cancellations of a sibling — and now and then a wrong header, path,
// method or session, a body that is not JSON or not UTF-8, an initialize (which opens a session the
// run then abandons).

import fc from 'fast-check';
import { anyNumber, nest, plainText } from './hostileValues.js';

/** Which session a request names: one the run holds open, none, one that never was, or one that holds the key. */
export type SessionPick = 'live' | 'none' | 'unknown' | 'key';

export type Body = { kind: 'json'; value: unknown } | { kind: 'text'; text: string } | { kind: 'bytes'; bytes: Uint8Array } | { kind: 'none' };

export interface HostileRequest {
  method: string;
  /** Under /mcp/: `cleo` (lent) most of the time. */
  character: string;
  session: SessionPick;
  /** Headers over the well-formed ones; undefined removes one. `<key>` in a value becomes the gateway key. */
  headers: Record<string, string | undefined>;
  body: Body;
}

const METHODS = [
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'completion/complete',
  'logging/setLevel',
  'initialize',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
  'nope',
  '',
];

/** Few ids, so that a batch repeats one and a request names one still waiting; and ids of every other type. */
const id: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.nat(12) },
  { weight: 2, arbitrary: fc.constantFrom('a', 'b', '1', '') },
  { weight: 1, arbitrary: anyNumber },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, [1], { id: 1 }) },
);

/** Any JSON value, shallow or nested past what a reader should take. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: plainText },
  { weight: 1, arbitrary: anyNumber },
  { weight: 1, arbitrary: fc.constantFrom(nest(200, true), nest(200, false), nest(5_000, true)) },
);

const toolCall = fc.record(
  {
    name: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('look', 'go', 'observe', 'say', 'take', 'nope') }, { weight: 1, arbitrary: anyValue }),
    arguments: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom({}, { direction: 'south' }, { direction: 'north' }, { text: 'hello' }, { item: 'lute' }) },
      { weight: 2, arbitrary: fc.dictionary(fc.constantFrom('direction', 'text', 'item', '__proto__', 'x'), anyValue, { maxKeys: 3 }) },
      { weight: 1, arbitrary: anyValue },
    ),
  },
  { requiredKeys: [] },
);

/** Params: right for the method, a near miss (_meta of the wrong type), or a value of any type. */
const params: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: toolCall },
  { weight: 2, arbitrary: fc.constantFrom({ uri: 'aicc://cleo/news' }, { uri: 'aicc://bram/news' }, { uri: 5 }, { level: 'debug' }, {}) },
  { weight: 2, arbitrary: fc.record({ requestId: id, reason: fc.option(plainText, { nil: undefined }) }, { requiredKeys: ['requestId'] }) },
  {
    weight: 1,
    arbitrary: fc.record({ _meta: fc.oneof(fc.constant({ progressToken: 1 }), anyValue) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      protocolVersion: fc.constantFrom('2025-06-18', '2024-11-05', '1999-01-01'),
      capabilities: fc.constant({}),
      clientInfo: fc.constant({ name: 'fuzz', version: '1' }),
    }),
  },
  { weight: 2, arbitrary: anyValue },
);

const method = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...METHODS) }, { weight: 1, arbitrary: plainText });

/** A request the character's server serves, in the right shape (its params may still be refused). */
const servedRequest = fc
  .record(
    {
      jsonrpc: fc.constant('2.0'),
      id,
      call: fc.oneof(
        { weight: 4, arbitrary: toolCall.map((params) => ({ method: 'tools/call', params })) },
        {
          weight: 4,
          arbitrary: fc.constantFrom(
            { method: 'ping' },
            { method: 'tools/list' },
            { method: 'tools/list', params: { cursor: 'x' } },
            { method: 'resources/list' },
            { method: 'resources/read', params: { uri: 'aicc://cleo/news' } },
            { method: 'resources/read', params: { uri: 'aicc://bram/news' } },
            { method: 'resources/subscribe', params: { uri: 'aicc://cleo/news' } },
            { method: 'resources/unsubscribe', params: { uri: 'aicc://cleo/news' } },
            { method: 'prompts/list' },
            { method: 'logging/setLevel', params: { level: 'debug' } },
            { method: 'tools/call', params: { name: 'look', arguments: {}, _meta: { progressToken: 1 } } },
          ),
        },
      ),
    },
    { requiredKeys: ['jsonrpc', 'id', 'call'] },
  )
  .map(({ call, ...message }) => ({ ...message, ...call }));

const notification = fc.oneof(
  fc.constant({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    method: fc.constant('notifications/cancelled'),
    params: fc.record({ requestId: id, reason: fc.constant('fuzz') }, { requiredKeys: ['requestId'] }),
  }),
  fc.constant({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } }),
  fc.constant({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }),
);

/** One JSON-RPC message, well-formed or nearly. */
const message: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 12, arbitrary: servedRequest },
  { weight: 4, arbitrary: notification },
  // A request or a notification of any method, with params of any kind.
  { weight: 3, arbitrary: fc.record({ jsonrpc: fc.constant('2.0'), id, method, params }, { requiredKeys: ['jsonrpc', 'id', 'method'] }) },
  { weight: 2, arbitrary: fc.record({ jsonrpc: fc.constant('2.0'), method, params }, { requiredKeys: ['jsonrpc', 'method'] }) },
  // A response, to nobody.
  { weight: 1, arbitrary: fc.record({ jsonrpc: fc.constant('2.0'), id, result: anyValue }) },
  { weight: 1, arbitrary: fc.record({ jsonrpc: fc.constant('2.0'), id, error: fc.record({ code: anyNumber, message: anyValue }, { requiredKeys: [] }) }) },
  // A request that is also a response.
  {
    weight: 1,
    arbitrary: fc.record(
      { jsonrpc: fc.constant('2.0'), id, method, result: fc.oneof(fc.constant({}), anyValue), error: fc.constant({ code: 1, message: 'x' }) },
      { requiredKeys: ['jsonrpc', 'id', 'method'] },
    ),
  },
  // A member JSON-RPC has not, a wrong or missing version.
  {
    weight: 1,
    arbitrary: fc.record({ jsonrpc: fc.constantFrom('2.0', '1.0', 2, undefined), id, method, extra: anyValue }, { requiredKeys: ['id', 'method'] }),
  },
  // Anything.
  { weight: 1, arbitrary: anyValue },
);

/** The body of a POST: one message, a batch (now and then empty, or over 100), any value, or not JSON at all. */
const body: fc.Arbitrary<Body> = fc.oneof(
  { weight: 10, arbitrary: message.map((value) => ({ kind: 'json' as const, value })) },
  { weight: 6, arbitrary: fc.array(message, { minLength: 1, maxLength: 6 }).map((value) => ({ kind: 'json' as const, value })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Body>(
      { kind: 'json', value: [] },
      { kind: 'json', value: Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' })) },
      { kind: 'json', value: [[{ jsonrpc: '2.0', id: 1, method: 'ping' }]] },
    ),
  },
  { weight: 1, arbitrary: anyValue.map((value) => ({ kind: 'json' as const, value })) },
  {
    weight: 1,
    arbitrary: fc
      .oneof(plainText, fc.constantFrom('{', '[{"jsonrpc":"2.0","id":1,', 'null', '1e400', '{"jsonrpc":"2.0","id":1e400,"method":"ping"}', ''))
      .map((text) => ({ kind: 'text' as const, text })),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ kind: 'bytes' as const, bytes })) },
);

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
};

/** Header changes: mostly none, else one or two hostile ones. */
const headers: fc.Arbitrary<Record<string, string | undefined>> = fc.oneof(
  { weight: 12, arbitrary: fc.constant({}) },
  {
    weight: 4,
    arbitrary: fc
      .array(
        fc.constantFrom<[string, string | undefined]>(
          ['accept', 'application/json'],
          ['accept', 'text/event-stream'],
          ['accept', undefined],
          ['accept', '*/*'],
          ['content-type', 'text/plain'],
          ['content-type', 'application/json; charset=utf-8'],
          ['content-type', 'application/jsonx'],
          ['content-type', undefined],
          ['mcp-protocol-version', '1999-01-01'],
          ['mcp-protocol-version', '2025-06-18'],
          ['mcp-protocol-version', '<key>'],
          ['authorization', undefined],
          ['authorization', 'Bearer not-the-gateway-key-0000'],
          ['authorization', 'Basic <key>'],
          ['authorization', 'Bearer <key> extra'],
          ['origin', 'http://evil.example'],
          ['origin', 'http://<key>.example'],
          ['host', 'rebind.example'],
          ['host', '<key>.example'],
        ),
        { minLength: 1, maxLength: 2 },
      )
      .map((pairs) => Object.fromEntries(pairs)),
  },
);

export const hostileRequest: fc.Arbitrary<HostileRequest> = fc.record({
  method: fc.oneof(
    { weight: 30, arbitrary: fc.constant('POST') },
    { weight: 2, arbitrary: fc.constantFrom('GET', 'DELETE') },
    { weight: 1, arbitrary: fc.constantFrom('PUT', 'PATCH', 'OPTIONS') },
  ),
  character: fc.oneof(
    { weight: 30, arbitrary: fc.constant('cleo') },
    { weight: 1, arbitrary: fc.constantFrom('bram', '', '%zz', 'a/b', '<key>', 'x'.repeat(65)) },
  ),
  session: fc.oneof(
    { weight: 30, arbitrary: fc.constant<SessionPick>('live') },
    { weight: 3, arbitrary: fc.constant<SessionPick>('none') },
    { weight: 1, arbitrary: fc.constantFrom<SessionPick>('unknown', 'key') },
  ),
  headers,
  body: fc.oneof({ weight: 30, arbitrary: body }, { weight: 1, arbitrary: fc.constant<Body>({ kind: 'json', value: INITIALIZE }) }),
});

/** The ids of the requests (a method and an id) in a parsed body, in order. */
export function requestIds(parsed: unknown): unknown[] {
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  return messages.flatMap((message) =>
    message !== null && typeof message === 'object' && !Array.isArray(message) && 'method' in message && 'id' in message
      ? [(message as { id: unknown }).id]
      : [],
  );
}
