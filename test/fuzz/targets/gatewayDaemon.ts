// The gateway in daemon mode under hostile pages (the run is in gatewayRun.ts): pi-daemon protocol v2
// records relayed byte for byte to a fake daemon on a Unix socket (test/node/gateway/daemonHelpers.ts),
// which answers every line. After each batch the daemon's lines are checked: each one a frame a
// page sent (raw CR and LF turned to spaces, nothing split off, nothing added but the gateway's
// namespace in front of the sessionId of a command naming a session, which always has it), none an `open`
// the gateway's policy refuses (filesystem tools, stored sessions), and none a drain, a host-wide
// status or an operation the gateway does not know (for admin gateways only). Now and then the daemon goes
// away: a page must then get daemon_unavailable and a 4502, and the next daemon must be served.

import { join } from 'node:path';
import fc from 'fast-check';
import type { FuzzContext, FuzzTarget } from '../harness/context.js';
import { DAEMON_WIRE_ERROR_CODES } from '../../../src/pi/daemonError.js';
import { DAEMON_SUBPROTOCOL, KEY_PREFIX, SUBPROTOCOL } from '../../../src/node/gateway/access.js';
import { toDaemon } from '../../../src/node/gateway/daemonIsolation.js';
import { startGateway } from '../../../src/node/gateway/server.js';
import { startFakeDaemon, type FakeDaemon } from '../../node/gateway/daemonHelpers.js';
import { KEY, ORIGIN, tempDir, type Record_ } from '../../node/gateway/helpers.js';
import { checkedLog } from './gatewayCloses.js';
import { handshakes } from './gatewayHandshakes.js';
import { FuzzPage, type RecordCheck } from './gatewayPage.js';
import { deepRecord, depth, dropUndefined, json, notText, sizedFrame, sometimes, weird, type PageFrame } from './gatewayPageFrames.js';
import { fuzzGateway, type Exchange } from './gatewayRun.js';
import { sleep, until } from './gatewayWaits.js';

/** The daemon's line limit here; the gateway then takes WebSocket messages up to twice that. */
const MAX_LINE_BYTES = 64 * 1024;

/**
 * Codes a page may get: the daemon's (DAEMON_WIRE_ERROR_CODES but internal_error, which the fake
 * daemon never sends) and the gateway's own refusals, listed in `aicc gateway --help`.
 */
const DAEMON_CODES: ReadonlySet<string> = new Set([
  ...DAEMON_WIRE_ERROR_CODES.filter((code) => code !== 'internal_error'),
  'invalid_json',
  'invalid_utf8',
  'line_too_large',
  'denied_by_gateway',
  'daemon_unavailable',
]);

/** What reaches past a page's own sessions: the gateway (not an admin one) never passes these on. */
const KNOWN_OPERATIONS: ReadonlySet<string> = new Set(['handshake', 'open', 'wake', 'steer', 'followUp', 'status', 'abort', 'attach', 'detach', 'close']);
function reachesPastSessions(record: Record_): boolean {
  const operation = record['operation'];
  return typeof operation === 'string' && (!KNOWN_OPERATIONS.has(operation) || (operation === 'status' && !('sessionId' in record)));
}

/** A command the gateway lets through naming one session (its sessionId a string): it reaches the daemon in the gateway's namespace. */
function namesSession(record: Record_): boolean {
  const operation = record['operation'];
  return typeof record['sessionId'] === 'string' && typeof operation === 'string' && KNOWN_OPERATIONS.has(operation) && operation !== 'handshake';
}

const isObject = (value: unknown): value is Record_ => value !== null && typeof value === 'object';

/** Whether an `open` breaks the gateway's policy (default: memory sessions, no tools): written apart from checkPolicy. */
function breaksPolicy(record: Record_): boolean {
  const payload = record['payload'];
  if (record['operation'] !== 'open' || !isObject(payload)) return false;
  const resources = payload['resources'];
  if (isObject(resources) && 'tools' in resources && resources['tools'] !== 'none') return true;
  const session = isObject(payload['session']) ? payload['session'] : {};
  return session['mode'] !== 'memory' || 'path' in session || 'sessionDir' in session || 'agentDir' in payload;
}

const requestId = fc.oneof(
  { weight: 30, arbitrary: fc.nat(9999).map((n) => `q${n}`) },
  fc.constantFrom(undefined, '', 'x'.repeat(512), 'x'.repeat(513), '__proto__'),
  fc.integer(),
  fc.constant(null),
  weird,
);
const protocolVersion = fc.oneof(
  { weight: 20, arbitrary: fc.constant('2.0') },
  fc.constantFrom(undefined, '2.1', '2.10', '1.0', '3.0', '2', '2.0.0', ''),
  fc.integer(),
  fc.constant(null),
  weird,
);
const operation = fc.oneof(
  {
    weight: 20,
    arbitrary: fc.constantFrom('handshake', 'open', 'open', 'open', 'prompt', 'steer', 'abort', 'status', 'close', 'subscribe', 'attach', 'drain'),
  },
  fc.constantFrom(undefined, 'OPEN', '__proto__'),
  weird,
  fc.integer(),
);
const session = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record({
        mode: fc.oneof({ weight: 6, arbitrary: fc.constant('memory') }, fc.constantFrom('new', 'open', 'continue', 'MEMORY', undefined, 1)),
        path: sometimes(weird, 6),
        sessionDir: sometimes(weird, 8),
        id: sometimes(weird, 2),
      })
      .map(dropUndefined),
  },
  json,
);
const resources = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record({
        tools: fc.oneof({ weight: 6, arbitrary: fc.constant('none') }, fc.constantFrom('all', 'read', 'None', ['read'], null, {}, undefined)),
        skills: sometimes(json, 2),
      })
      .map(dropUndefined),
  },
  json,
);
const openPayload = fc.record({ session, resources, agentDir: sometimes(weird, 8), model: sometimes(json, 3), extra: sometimes(json, 4) }).map(dropUndefined);
const command = fc
  .record({
    protocolVersion,
    requestId,
    operation,
    payload: fc.oneof({ weight: 4, arbitrary: openPayload }, json, fc.constant(undefined)),
    sessionId: sometimes(weird, 3),
    idempotencyKey: sometimes(weird, 6),
    extra: sometimes(json, 5),
  })
  .map(dropUndefined);

/** Opens the policy may read differently than a daemon would: duplicate keys, prototypes, odd types. */
const policyProbes = fc.constantFrom(
  '{"protocolVersion":"2.0","requestId":"p1","operation":"open","payload":{"session":{"mode":"memory"},"resources":{"tools":"all","tools":"none"}}}',
  '{"protocolVersion":"2.0","requestId":"p2","operation":"open","payload":{"session":{"mode":"new","mode":"memory"}}}',
  '{"protocolVersion":"2.0","requestId":"p3","operation":"open","operation":"status","payload":{"resources":{"tools":"all"}}}',
  '{"protocolVersion":"2.0","requestId":"p4","operation":"open","payload":{"session":{"mode":"memory"},"__proto__":{"agentDir":"/root"}}}',
  '{"protocolVersion":"2.0","requestId":"p5","operation":"open","payload":{"session":{"mode":"memory"},"resources":{"__proto__":{"tools":"all"}}}}',
  '{"protocolVersion":"2.0","requestId":"p6","operation":"open","payload":[{"session":{"mode":"memory"}}]}',
  '{"protocolVersion":"2.0","requestId":"p7","operation":"open","payload":{"session":{"mode":"memory","path":null}}}',
  '{"protocolVersion":"2.0","requestId":"p8","operation":"open","payload":{"session":{"mode":"memory"},"resources":{"tools":null}}}',
  '{"protocolVersion":"2.0","requestId":"p9","operation":"open","payload":{"session":{"mode":"memory"},"agentDir":null}}',
);

function daemonFrames(): fc.Arbitrary<PageFrame> {
  const text = command.map((record) => JSON.stringify(record));
  const fields = '"protocolVersion":"2.0","requestId":"d","operation":"status"';
  return fc
    .oneof(
      { weight: 60, arbitrary: text },
      { weight: 3, arbitrary: policyProbes },
      // Raw line breaks as whitespace (each must reach the daemon as a space), breaks inside strings.
      { weight: 3, arbitrary: fc.tuple(text, fc.constantFrom('\n', '\r', '\r\n', '\n\n', '\u2028', '\t')).map(([t, gap]) => t.replaceAll(',', `,${gap}`)) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '{"protocolVersion":"2.0","requestId":"s1","operation":"status","payload":{"note":"a\u2028b\u2029c"}}',
          '{"protocolVersion":"2.0","requestId":"s2","operation":"status","payload":{"note":"x\\n{\\"operation\\":\\"open\\"}"}}',
        ),
      },
      // Deep, within the line limit: the gateway passes it on as it is, never re-serialized.
      { weight: 1, arbitrary: fc.tuple(depth, fc.boolean()).map(([d, arrays]) => deepRecord(fields, Math.min(d, 12_000), arrays)) },
      // What ends the connection (an error record first): a second record after a line break, cut or
      // broken text, a binary frame, a record over the line limit, a message over the WebSocket limit.
      { weight: 1, arbitrary: fc.tuple(text, text, fc.constantFrom('\n', '\r\n')).map(([a, b, gap]) => `${a}${gap}${b}`) },
      // (JSON that is not an object — null, [], "x" — is answered with invalid_field, and the connection stays.)
      { weight: 1, arbitrary: fc.tuple(text, fc.nat()).map(([t, n]) => t.slice(0, n % (t.length + 1))) },
      { weight: 1, arbitrary: fc.oneof(notText, fc.constantFrom('null', '[]', '"x"', '{', ' ', 'NaN')) },
      { weight: 1, arbitrary: fc.oneof(sizedFrame(MAX_LINE_BYTES, fields), sizedFrame(2 * MAX_LINE_BYTES, fields)) },
      // An empty frame gets no answer (as the daemon gives an empty line none), so it would count
      // here as a request never answered: a blank one instead, which is answered.
    )
    .map((frame) => (frame === '' ? ' ' : frame));
}

function inspectDaemon(context: FuzzContext): RecordCheck {
  return (record, where) => {
    if (record['kind'] !== 'response') return false;
    if (record['ok'] !== false) {
      context.tally('answer ok');
      return true;
    }
    const error = isObject(record['error']) ? record['error'] : {};
    context.code(error['code'], DAEMON_CODES, `${where}: an error code`);
    context.tally(`answer ${String(error['code'])}`);
    // The gateway's own refusals must be records the schema takes (the daemon's are its own affair).
    if (isObject(error['details']) && error['details']['source'] === 'aicc-gateway') {
      const id = record['requestId'];
      if (
        typeof id !== 'string' ||
        id.length < 1 ||
        id.length > 512 ||
        typeof record['protocolVersion'] !== 'string' ||
        !/^2\.[0-9]+$/.test(record['protocolVersion']) ||
        typeof record['hostInstanceId'] !== 'string' ||
        typeof error['retryable'] !== 'boolean' ||
        typeof error['message'] !== 'string'
      ) {
        context.problem(`${where}: a gateway refusal the schema would not take: ${JSON.stringify(record).slice(0, 160)}`);
      }
    }
    return true;
  };
}

const command_ =
  (operation: string) =>
  (id: string): Exchange => ({
    record: { protocolVersion: '2.0', requestId: id, operation, payload: {} },
    answers: (r) => r['kind'] === 'response' && r['requestId'] === id,
    served: (r) => r['ok'] === true && r['hostInstanceId'] === 'fake-host',
  });

export const target: FuzzTarget = async (context) => {
  context.secret(KEY);
  const home = tempDir('aicc-fuzz-daemon-');
  const socketPath = join(home.path, 'daemon.sock');
  const expected = new Set<string>();
  let daemon: FakeDaemon = await startFakeDaemon(socketPath);
  const inspect = inspectDaemon(context);
  const gateway = await startGateway({
    target: { kind: 'daemon', socketPath, maxLineBytes: MAX_LINE_BYTES },
    origins: [ORIGIN],
    key: KEY,
    log: checkedLog(context, 'daemon'),
  });

  /** The gateway's namespace on the daemon, once a line has shown it. */
  let namespace: string | undefined;
  /** Whether `line` is a frame a page sent, the namespace put in front of its sessionId where it names a session. */
  const sent = (line: string): boolean => {
    if (expected.has(line)) return true;
    const found = /gw-[0-9a-f]{16}:/.exec(line)?.[0];
    if (found === undefined) return false;
    if (namespace !== undefined && found !== namespace) context.problem(`daemon: a second namespace ${found} after ${namespace}`);
    namespace ??= found;
    for (const frame of expected) {
      try {
        if (toDaemon(frame, JSON.parse(frame) as Record_, namespace) === line) return true;
      } catch {
        // Not JSON: it went as it came, or not at all.
      }
    }
    return false;
  };

  /** Every line the daemon got is a frame a page sent, whole, and none breaks the policy. */
  const checkLines = (): void => {
    for (const line of daemon.lines) {
      if (line.includes('\r')) context.problem('daemon: a line reached the daemon with a raw CR');
      if (!sent(line)) context.problem(`daemon: the daemon got a line no page sent: ${line.slice(0, 80)}`);
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch {
        context.problem(`daemon: the daemon got a line that is not JSON: ${line.slice(0, 80)}`);
        continue;
      }
      if (!isObject(record) || Array.isArray(record)) context.problem(`daemon: the daemon got a line that is not a JSON object: ${line.slice(0, 80)}`);
      else if (breaksPolicy(record)) context.problem(`daemon: an open the policy refuses reached the daemon: ${line.slice(0, 120)}`);
      else if (reachesPastSessions(record))
        context.problem(`daemon: a drain, a host-wide status or an unknown operation reached the daemon: ${line.slice(0, 120)}`);
      else if (namesSession(record) && (namespace === undefined || !(record['sessionId'] as string).startsWith(namespace)))
        context.problem(`daemon: a command naming a session reached the daemon outside the gateway's namespace: ${line.slice(0, 120)}`);
    }
    daemon.lines.splice(0);
  };

  /** The daemon goes away: a page gets daemon_unavailable and 4502; then a new daemon takes over. */
  const outage = async (): Promise<void> => {
    checkLines();
    await daemon.close();
    const page = new FuzzPage(`${gateway.url}/`, [DAEMON_SUBPROTOCOL, `${KEY_PREFIX}${KEY}`], ORIGIN, context, inspect, 'daemon page with no daemon');
    const refused = page.next((r) => r['kind'] === 'response', 5000);
    await page.opened;
    const answer = await refused;
    await Promise.race([page.closed, sleep(3000)]);
    const code = (answer?.['error'] as Record_ | undefined)?.['code'];
    if (code !== 'daemon_unavailable' || page.closeCode !== 4502)
      context.problem(`daemon: with no daemon a page got ${String(code)} and ${page.closeCode}, not daemon_unavailable and 4502`);
    await page.close();
    context.sent();
    daemon = await startFakeDaemon(socketPath);
  };

  try {
    await fuzzGateway(context, {
      name: 'daemon',
      gateway,
      path: '/',
      subprotocol: DAEMON_SUBPROTOCOL,
      frames: daemonFrames(),
      handshakes: handshakes(DAEMON_SUBPROTOCOL, SUBPROTOCOL, '/'),
      inspect,
      greeting: command_('handshake'),
      // A handshake: status without a sessionId (every session on the host) is for admin gateways only.
      request: command_('handshake'),
      // One frame in about fifteen ends the connection: look for the close after each few.
      chunk: 4,
      exactAnswers: true,
      sending: (text) => void expected.add(text.replace(/[\r\n]/g, ' ')),
      async checkPeer(open, batch) {
        if (!(await until(() => daemon.sockets.size <= open, 3000)))
          context.problem(`daemon: the daemon holds ${daemon.sockets.size} connections after batch ${batch}; at most ${open} expected`);
        checkLines();
        expected.clear();
      },
      async extra(batch) {
        if (batch % 10 === 7) await outage();
      },
    });
  } finally {
    await gateway.close();
    await daemon.close();
    home.remove();
  }
};
