// DaemonClient (pi-daemon protocol v2) under a hostile host. The client talks to a DaemonSimulator
// (the project's model of pi-daemon 0.3.3) through a proxy that decides the fate of each answer —
// passed, lost, late, doubled, altered (protocolVersion "1.0", another hostInstanceId, an id reused,
// data of another operation), made up or unreadable, or the link dropped — and of each event —
// doubled, held back, renumbered anywhere in the integer range (past 2^53, negative, fractional),
// moved to another generation, host or session. Between answers it sends events and answers nobody
// asked for. Each batch ends with the clock run past every timeout (every call settled, failures
// DaemonErrors with documented codes); then the proxy turns honest and the client must still
// answer: a status, and a wake on a freshly opened and attached session whose events all arrive,
// in order, with no report. A sequence the stream code cannot count past freezes the thread: the
// harness's watchdog reports that as a hang.

import fc from 'fast-check';
import type { FuzzContext, FuzzTarget } from '../harness/context.js';
import type { Frame } from '../../../src/links/codec.js';
import type { Link } from '../../../src/links/link.js';
import { createMemoryLinkPair } from '../../../src/links/memory.js';
import { ManualClock } from '../../../src/runtime/clock.js';
import type { InboundLimits } from '../../../src/runtime/inbound.js';
import { validateDaemonCommand } from '../../../src/pi/generated/daemon-validators.js';
import { DAEMON_WIRE_ERROR_CODES, DaemonClient, DaemonError, DEFAULT_DAEMON_LIMITS, type DaemonClientOptions, type DaemonEvent, type DaemonLocalErrorCode, type DaemonProblemKind, type SessionRef, type StreamReport } from '../../../src/pi/index.js';
import { DaemonSimulator } from '../../pi/daemonSimulator.js';
import { draw } from './agentFrames.js';
import { anyNumber, Calls, codeOf, hostileJson, hostileText, kindOf, materialize, plainText, rawFrame, REMOVE, resolve, runClock, seenIn, setPath, settle, stringify, Sym, watch, type RawFrame } from './peersClient.js';

// ── what the docs allow DaemonClient to say ────────────────────────────────────────────────────

const LOCAL_CODES: Record<DaemonLocalErrorCode, true> = { timeout: true, closed: true, invalid_response: true, invalid_request: true, too_many_pending: true, unknown_error: true };
/** The codes pi-daemon sends (docs: DAEMON_WIRE_ERROR_CODES) and the client's own. */
const DAEMON_CODES: ReadonlySet<string> = new Set([...DAEMON_WIRE_ERROR_CODES, ...Object.keys(LOCAL_CODES)]);
const PROBLEM_KINDS: ReadonlySet<string> = new Set(Object.keys({ oversized_frame: true, malformed_frame: true, too_deep: true, forbidden_key: true, schema_violation: true } satisfies Record<DaemonProblemKind, true>));
const STREAM_KINDS: ReadonlySet<string> = new Set(Object.keys({ gap: true, duplicate: true, late: true, stale: true, invalid: true } satisfies Record<StreamReport['kind'], true>));
const STALE_REASONS: ReadonlySet<string> = new Set(Object.keys({ host: true, generation: true, unattached: true } satisfies Record<Extract<StreamReport, { kind: 'stale' }>['reason'], true>));
const RECONNECT_REASON = /^DaemonClient: (reconnect refused: |gave up reconnecting after \d+ attempts \(last: )/;

const TIMEOUT_MS = 1_000;
const SESSIONS = ['npc-a', 'npc-b', 'npc-c'];
const PROBE = 'probe';
const PROBE_REPLY = 'still here';
const OPEN = { cwd: '/game', session: { mode: 'memory' as const } };

// ── the hostile host ───────────────────────────────────────────────────────────────────────────

interface Change {
  path: string[];
  value: unknown;
}

/** What becomes of one answer. */
type Fate =
  | { kind: 'pass' }
  | { kind: 'swallow' }
  | { kind: 'late' }
  | { kind: 'drop'; when: 'before' | 'lost' | 'sent'; reason: string }
  | { kind: 'twice'; change: Change | undefined }
  /** Events naming the request first (its timeout starts again), then the answer. */
  | { kind: 'progress'; count: number }
  | { kind: 'change'; changes: Change[] }
  | { kind: 'forge'; record: Record<string, unknown> }
  | { kind: 'garble'; frame: RawFrame };

/** What becomes of one event the host sends. */
type EventFate = { kind: 'pass' | 'swallow' | 'twice' | 'late' } | { kind: 'change'; changes: Change[] } | { kind: 'shift'; by: number };

/** `flaky`: the link drops in the turn the handshake is answered (a host that dies as it accepts). */
type ConnectFate = { kind: 'ok' | 'reject' | 'never' | 'closed' | 'flaky' };

const PASS: Fate = { kind: 'pass' };
/** The answer goes out, and the link drops in the same turn. */
const DIES_AS_IT_ANSWERS: Fate = { kind: 'drop', when: 'sent', reason: 'died as it answered' };

const idChoice: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.nat(7).map((n) => new Sym('pending', n)) },
  { weight: 2, arbitrary: fc.nat(15).map((n) => new Sym('previous', n)) },
  fc.constantFrom('r0', 'r1', 'r999999', 'unknown', ''),
  hostileText,
  anyNumber,
);
/** Host ids: the host's own, another instance's (a restart), or not an id. */
const hostChoice: fc.Arbitrary<unknown> = fc.oneof({ weight: 6, arbitrary: fc.constant(new Sym('host')) }, { weight: 2, arbitrary: fc.nat(2).map((n) => new Sym('otherHost', n)) }, fc.constant(''), fc.constant('x'.repeat(513)), hostileText, anyNumber);
const sessionChoice: fc.Arbitrary<unknown> = fc.oneof({ weight: 6, arbitrary: fc.nat(3).map((n) => new Sym('attached', n)) }, fc.constantFrom(...SESSIONS, PROBE, 'npc-never-opened', ''), hostileText);
/** A generation or sequence near the session's own (`rel` away), or anywhere at all. */
const countNear = (name: 'gen' | 'seq', spread: number): fc.Arbitrary<unknown> => fc.oneof({ weight: 4, arbitrary: fc.integer({ min: -2, max: spread }).map((rel) => new Sym(name, rel)) }, { weight: 2, arbitrary: anyNumber });
const versionChoice: fc.Arbitrary<unknown> = fc.oneof({ weight: 8, arbitrary: fc.constant('2.0') }, fc.constantFrom('1.0', '2.1', '2.99', '2', '3.0', '2.0 ', ''), hostileText, anyNumber);

const wireError = fc.record(
  {
    code: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...DAEMON_WIRE_ERROR_CODES) }, fc.constantFrom('timeout', 'closed', 'unknown_error', 'invalid_response', 'too_many_pending', 'quota_exceeded', ''), hostileText, anyNumber),
    message: fc.oneof({ weight: 6, arbitrary: hostileText }, anyNumber),
    retryable: fc.oneof({ weight: 6, arbitrary: fc.boolean() }, fc.constantFrom('yes', 0, null)),
    details: fc.oneof(fc.dictionary(plainText, hostileJson, { maxKeys: 4 }), hostileJson),
  },
  { requiredKeys: ['code', 'message', 'retryable'] },
);

const handshakeData = fc.record(
  {
    protocolVersion: versionChoice,
    supportedProtocolVersions: fc.oneof({ weight: 4, arbitrary: fc.constant(['1.0', '2.0']) }, fc.constantFrom(['1.0'], ['3.0', '3.1'], [], ['2.7'], ['2.0', 5], '2.0', null), fc.array(hostileText, { maxLength: 3 })),
    capabilities: hostileJson,
    limits: hostileJson,
    host: fc.record({ hostInstanceId: hostChoice, ready: fc.oneof(fc.boolean(), hostileJson), draining: fc.boolean() }, { requiredKeys: [] }),
  },
  { requiredKeys: ['supportedProtocolVersions', 'host'] },
);
const responseData: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: handshakeData },
  fc.record({ created: fc.oneof(fc.boolean(), hostileJson), session: fc.oneof(fc.record({ sessionId: sessionChoice, generation: countNear('gen', 2) }), hostileJson) }, { requiredKeys: [] }),
  { weight: 2, arbitrary: fc.record({ attached: fc.oneof(fc.boolean(), hostileJson), generation: countNear('gen', 2), sequence: countNear('seq', 40) }, { requiredKeys: [] }) },
  { weight: 2, arbitrary: fc.record({ result: fc.oneof(fc.record({ text: fc.oneof({ weight: 3, arbitrary: hostileText }, anyNumber, fc.constant(null)), sessionId: sessionChoice }, { requiredKeys: [] }), hostileJson), session: hostileJson }, { requiredKeys: [] }) },
  fc.record({ queued: fc.oneof(fc.boolean(), hostileJson), aborted: fc.oneof(fc.boolean(), hostileJson), closed: fc.oneof(fc.boolean(), hostileJson) }, { requiredKeys: [] }),
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

const EVENTS = ['promptAccepted', 'agentStart', 'turnStart', 'messageStart', 'messageUpdate', 'messageEnd', 'toolStart', 'toolUpdate', 'toolEnd', 'turnEnd', 'queueUpdate', 'agentSettled', 'agentEnd', 'sessionIdle', 'requestFailed', 'opened', 'sessionDormant', 'sessionDeleted', 'sessionClosed'];

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

const responsePaths: string[][] = [['protocolVersion'], ['kind'], ['requestId'], ['hostInstanceId'], ['ok'], ['error'], ['error', 'code'], ['error', 'retryable'], ['error', 'message'], ['error', 'details'], ['data'], ['data', 'generation'], ['data', 'sequence'], ['data', 'attached'], ['data', 'result'], ['data', 'result', 'text'], ['data', 'created'], ['data', 'session'], ['data', 'supportedProtocolVersions'], ['data', 'host'], ['data', 'host', 'hostInstanceId'], ['data', 'queued'], ['data', 'aborted'], ['data', 'closed'], ['sessionId'], ['sequence']];
const change: fc.Arbitrary<Change> = fc.record({ path: fc.constantFrom(...responsePaths), value: fc.oneof(fc.constant(REMOVE), idChoice, hostChoice, countNear('seq', 40), versionChoice, hostileJson) });
const eventPaths: string[][] = [['sequence'], ['generation'], ['hostInstanceId'], ['sessionId'], ['protocolVersion'], ['event'], ['requestId'], ['data'], ['kind']];
const eventChange: fc.Arbitrary<Change> = fc.record({ path: fc.constantFrom(...eventPaths), value: fc.oneof({ weight: 3, arbitrary: anyNumber }, fc.constant(REMOVE), hostChoice, sessionChoice, countNear('gen', 2), idChoice, versionChoice, hostileJson) });

const fate: fc.Arbitrary<Fate> = fc.oneof(
  { weight: 12, arbitrary: fc.constant(PASS) },
  { weight: 2, arbitrary: fc.constant({ kind: 'swallow' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'late' as const }) },
  { weight: 1, arbitrary: fc.record({ when: fc.constantFrom('before' as const, 'lost' as const, 'sent' as const), reason: plainText }).map((drop) => ({ kind: 'drop' as const, ...drop })) },
  { weight: 2, arbitrary: fc.option(change, { nil: undefined }).map((second) => ({ kind: 'twice' as const, change: second })) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }).map((count) => ({ kind: 'progress' as const, count })) },
  { weight: 8, arbitrary: fc.array(change, { minLength: 1, maxLength: 3 }).map((changes) => ({ kind: 'change' as const, changes })) },
  { weight: 5, arbitrary: responseRecord.map((record) => ({ kind: 'forge' as const, record })) },
  { weight: 2, arbitrary: rawFrame.map((frame) => ({ kind: 'garble' as const, frame })) },
);
const eventFate: fc.Arbitrary<EventFate> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom({ kind: 'swallow' as const }, { kind: 'twice' as const }, { kind: 'late' as const }) },
  { weight: 3, arbitrary: fc.array(eventChange, { minLength: 1, maxLength: 2 }).map((changes) => ({ kind: 'change' as const, changes })) },
  { weight: 2, arbitrary: fc.oneof(fc.integer({ min: -3, max: 6 }), fc.constantFrom(255, 256, 257, 1e6, 2 ** 53, 2 ** 60)).map((by) => ({ kind: 'shift' as const, by })) },
);

/** One connection through the proxy: its end towards the client, and towards the simulator. */
interface Tap {
  client: Link;
  host: Link;
  handshaken: boolean;
  fates: Map<string, Fate>;
}

/** The proxy, with everything the host does wrong. */
class HostileHost {
  honest = false;
  readonly fates: Fate[] = [];
  readonly eventFates: EventFate[] = [];
  readonly connects: ConnectFate[] = [];
  readonly closeReasons = new Set<string>();
  private late: Array<() => void> = [];
  private tap: Tap | undefined;
  private readonly recent: string[] = [];
  /** Requests not answered yet, with the session each names. */
  private readonly open = new Map<string, string | undefined>();
  /** Sessions the client asked to attach (forged events go to them). */
  private readonly attached = new Set<string>([PROBE]);
  private lastRequest = 0;

  constructor(
    readonly sim: DaemonSimulator,
    private readonly context: FuzzContext,
    private readonly act: () => void,
    readonly limits: InboundLimits,
  ) {}

  link(): Link {
    const [clientEnd, proxyEnd] = createMemoryLinkPair();
    const [proxyToHost, hostEnd] = createMemoryLinkPair();
    this.sim.serve(hostEnd);
    const tap: Tap = { client: proxyEnd, host: proxyToHost, handshaken: false, fates: new Map() };
    proxyEnd.listen({ message: (frame) => this.fromClient(tap, frame), close: (reason) => proxyToHost.close(reason) });
    proxyToHost.listen({
      message: (frame) => this.fromHost(tap, frame),
      close: (reason) => {
        this.closeReasons.add(reason);
        proxyEnd.close(reason);
      },
    });
    this.tap = tap;
    return clientEnd;
  }

  connect(): Promise<Link> {
    const next = this.honest ? { kind: 'ok' as const } : (this.connects.shift() ?? { kind: 'ok' as const });
    if (next.kind !== 'ok') this.act();
    switch (next.kind) {
      case 'ok':
        return Promise.resolve(this.link());
      case 'reject':
        return Promise.reject(new Error('connection refused'));
      case 'never':
        return new Promise<Link>(() => {});
      case 'closed': {
        const link = this.link();
        this.close(this.tap!, 'closed before the handshake');
        return Promise.resolve(link);
      }
      case 'flaky':
        this.fates.unshift(DIES_AS_IT_ANSWERS);
        return Promise.resolve(this.link());
    }
  }

  unsolicited(frame: { record: Record<string, unknown> } | RawFrame): void {
    const tap = this.tap;
    if (tap === undefined || !tap.client.open) return; // a link that dropped takes nothing: not counted as sent
    this.act();
    if ('record' in frame) this.send(tap, frame.record, undefined);
    else tap.client.send(this.raw(frame, undefined));
  }

  flush(): void {
    const late = this.late;
    this.late = [];
    for (const send of late) send();
  }

  /** A new client talks to this host: its request ids start again at r1. */
  newClient(): void {
    this.lastRequest = 0;
  }

  calm(): void {
    this.fates.length = 0;
    this.eventFates.length = 0;
    this.connects.length = 0;
    this.flush();
  }

  private fromClient(tap: Tap, frame: Frame): void {
    if (typeof frame !== 'string') return this.context.problem('DaemonClient sent a line that is not text');
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(frame) as Record<string, unknown>;
    } catch {
      return this.context.problem('DaemonClient sent a line that is not JSON');
    }
    if (!validateDaemonCommand(record) || record['protocolVersion'] !== '2.0') return this.context.problem('DaemonClient sent a command its schema refuses');
    const id = record['requestId'] as string;
    // Request ids count up for the client's life: never one twice, on any connection.
    const n = /^r(\d+)$/.exec(id)?.[1];
    if (n === undefined || Number(n) <= this.lastRequest) this.context.problem('DaemonClient reused a requestId, or sent one out of its r1, r2, … order');
    this.lastRequest = Math.max(this.lastRequest, Number(n ?? 0));
    if (record['operation'] === 'handshake') tap.handshaken = true;
    else if (!tap.handshaken) this.context.problem('DaemonClient sent a command before its handshake');
    const sessionId = typeof record['sessionId'] === 'string' ? record['sessionId'] : undefined;
    if (record['operation'] === 'attach' && sessionId !== undefined && this.attached.size < 16) this.attached.add(sessionId);
    this.recent.push(id);
    if (this.recent.length > 16) this.recent.shift();
    this.open.set(id, sessionId);
    if (this.open.size > 64) this.open.delete(this.open.keys().next().value!);
    const next = this.honest ? PASS : (this.fates.shift() ?? PASS);
    if (next.kind !== 'pass') this.act();
    switch (next.kind) {
      // The host still gets the command (its state stays that of the client's requests); what it answers is not passed on.
      case 'forge':
        this.send(tap, next.record, id);
        break;
      case 'garble':
        tap.client.send(this.raw(next.frame, id));
        break;
      case 'drop':
        if (next.when === 'before') return this.close(tap, next.reason);
        break;
      case 'progress':
        for (let i = 0; i < next.count; i++) this.send(tap, { protocolVersion: '2.0', kind: 'event', event: 'agentStart', hostInstanceId: new Sym('host'), sessionId: sessionId ?? new Sym('attached'), generation: new Sym('gen', 0), sequence: new Sym('seq', 1), requestId: id }, id);
        break;
      default:
    }
    tap.fates.set(id, next);
    tap.host.send(frame);
  }

  private fromHost(tap: Tap, frame: Frame): void {
    const record = JSON.parse(frame as string) as Record<string, unknown>;
    if (record['kind'] === 'event') return this.event(tap, frame, record);
    const id = String(record['requestId']);
    const next = tap.fates.get(id) ?? PASS;
    tap.fates.delete(id);
    this.open.delete(id);
    switch (next.kind) {
      case 'change':
        for (const { path, value } of next.changes) setPath(record, path, this.resolve(value, id));
        return this.send(tap, record, id);
      case 'twice':
        tap.client.send(frame);
        if (next.change !== undefined) setPath(record, next.change.path, this.resolve(next.change.value, id));
        return this.send(tap, record, id);
      case 'late':
        this.late.push(() => tap.client.send(frame));
        if (this.late.length > 64) this.late.shift();
        return;
      case 'drop':
        if (next.when === 'sent') tap.client.send(frame);
        return this.close(tap, next.reason);
      case 'swallow':
      case 'forge':
      case 'garble':
        return;
      default:
        tap.client.send(frame);
    }
  }

  private event(tap: Tap, frame: Frame, record: Record<string, unknown>): void {
    const next = this.honest ? undefined : this.eventFates.shift();
    if (next === undefined) return tap.client.send(frame);
    this.act();
    switch (next.kind) {
      case 'swallow':
        return;
      case 'twice':
        tap.client.send(frame);
        return tap.client.send(frame);
      case 'late':
        this.late.push(() => tap.client.send(frame));
        return;
      case 'shift':
        record['sequence'] = (record['sequence'] as number) + next.by;
        return this.send(tap, record, undefined);
      case 'change':
        for (const { path, value } of next.changes) setPath(record, path, this.resolve(value, undefined, record['sessionId'] as string));
        return this.send(tap, record, undefined);
      default:
        tap.client.send(frame);
    }
  }

  private close(tap: Tap, reason: string): void {
    this.closeReasons.add(reason);
    tap.client.close(reason);
    tap.host.close(reason);
  }

  private send(tap: Tap, record: Record<string, unknown>, self: string | undefined): void {
    // A forged event's numbers are relative to its own session: that is resolved first.
    const session = record['sessionId'] instanceof Sym ? this.resolve(record['sessionId'], self) : record['sessionId'];
    tap.client.send(stringify(this.resolve({ ...record, sessionId: session }, self, typeof session === 'string' ? session : undefined)));
  }

  private raw(frame: RawFrame, self: string | undefined): Frame {
    const shape = (pad: string): unknown => this.resolve({ protocolVersion: '2.0', kind: 'response', requestId: self ?? new Sym('pending'), hostInstanceId: new Sym('host'), ok: true, data: { pad } }, self);
    return materialize(frame, this.limits, '', shape);
  }

  private resolve(value: unknown, self: string | undefined, session?: string): unknown {
    return resolve(value, (sym) => this.symbol(sym, self, session), '');
  }

  private symbol(sym: Sym, self: string | undefined, session: string | undefined): unknown {
    const pick = (ids: readonly string[]): string => ids[sym.n % Math.max(1, ids.length)] ?? 'r0';
    const of = session ?? (self === undefined ? undefined : this.open.get(self)) ?? PROBE;
    switch (sym.name) {
      case 'this':
        return self ?? pick([...this.open.keys()]);
      case 'pending':
        return pick([...this.open.keys()]);
      case 'previous':
        return pick(this.recent);
      case 'host':
        return this.sim.hostInstanceId;
      case 'otherHost':
        return `${this.sim.hostInstanceId}-r${sym.n}`;
      case 'attached':
        return pick([...this.attached]);
      case 'gen':
        return (this.sim.session(of)?.generation ?? 1) + sym.n;
      case 'seq':
        return (this.sim.session(of)?.sequence ?? 0) + sym.n;
      default:
        return undefined;
    }
  }
}

// ── the caller ─────────────────────────────────────────────────────────────────────────────────

type Ref = { session: string; generation: 'current' | 'next' | number };

type DaemonCall =
  | { kind: 'handshake' }
  | { kind: 'open'; ref: Ref; mode: 'memory' | 'new'; systemPrompt: string | undefined }
  | { kind: 'attach' | 'detach' | 'abort'; ref: Ref }
  | { kind: 'wake'; ref: Ref; prompt: string; key: 'default' | 'explicit' | 'reuse'; waitForTerminal: boolean | undefined }
  | { kind: 'steer' | 'followUp'; ref: Ref; message: string; key: 'default' | 'explicit' | 'reuse' }
  | { kind: 'status'; session: string | undefined }
  | { kind: 'close'; ref: Ref; retain: boolean | undefined }
  | { kind: 'drain' };

type Step =
  | { kind: 'frame'; frame: { record: Record<string, unknown> } | RawFrame }
  | { kind: 'call'; call: DaemonCall; fate: Fate }
  | { kind: 'events'; fates: EventFate[] }
  | { kind: 'connect'; fate: ConnectFate }
  | { kind: 'settle' }
  | { kind: 'tick'; ms: number }
  | { kind: 'flush' }
  /** The host process restarts (a new hostInstanceId, every connection closed). */
  | { kind: 'restart' }
  /** The caller disconnects the client. */
  | { kind: 'disconnect' };

const ref: fc.Arbitrary<Ref> = fc.record({
  session: fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...SESSIONS) }, fc.constantFrom('', 'x'.repeat(513))),
  generation: fc.oneof({ weight: 6, arbitrary: fc.constant('current' as const) }, { weight: 2, arbitrary: fc.constant('next' as const) }, fc.nat(3), fc.constantFrom(-1, 1.5, 2 ** 53)),
});
const key = fc.constantFrom('default' as const, 'explicit' as const, 'reuse' as const);
const message = fc.oneof({ weight: 9, arbitrary: plainText }, fc.constant(''));

const daemonCall: fc.Arbitrary<DaemonCall> = fc.oneof(
  fc.constant({ kind: 'handshake' as const }),
  { weight: 3, arbitrary: fc.record({ ref, mode: fc.constantFrom('memory' as const, 'memory' as const, 'new' as const), systemPrompt: fc.option(plainText, { nil: undefined }) }).map((open) => ({ kind: 'open' as const, ...open })) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom('attach' as const, 'attach' as const, 'detach' as const, 'abort' as const), ref }) },
  { weight: 4, arbitrary: fc.record({ ref, prompt: message, key, waitForTerminal: fc.option(fc.boolean(), { nil: undefined }) }).map((wake) => ({ kind: 'wake' as const, ...wake })) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('steer' as const, 'followUp' as const), ref, message, key }) },
  { weight: 2, arbitrary: fc.option(fc.constantFrom(...SESSIONS, PROBE), { nil: undefined }).map((session) => ({ kind: 'status' as const, session })) },
  fc.record({ ref, retain: fc.option(fc.boolean(), { nil: undefined }) }).map((close) => ({ kind: 'close' as const, ...close })),
);

const unsolicited = fc.oneof({ weight: 5, arbitrary: eventRecord }, { weight: 2, arbitrary: responseRecord }, fc.record({ kind: fc.oneof(anyNumber, fc.constant(null), hostileText), requestId: idChoice }, { requiredKeys: [] }));

// Weighted so that a batch of 60 steps drains, restarts or disconnects about one time in eight.
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 160, arbitrary: fc.oneof({ weight: 4, arbitrary: unsolicited.map((record) => ({ record })) }, rawFrame).map((frame) => ({ kind: 'frame' as const, frame })) },
  { weight: 160, arbitrary: fc.record({ call: daemonCall, fate }).map((call) => ({ kind: 'call' as const, ...call })) },
  { weight: 40, arbitrary: fc.array(eventFate, { minLength: 1, maxLength: 6 }).map((fates) => ({ kind: 'events' as const, fates })) },
  { weight: 16, arbitrary: fc.constantFrom({ kind: 'ok' as const }, { kind: 'reject' as const }, { kind: 'never' as const }, { kind: 'closed' as const }, { kind: 'flaky' as const }).map((next) => ({ kind: 'connect' as const, fate: next })) },
  { weight: 64, arbitrary: fc.constant({ kind: 'settle' as const }) },
  { weight: 32, arbitrary: fc.integer({ min: 1, max: 2 * TIMEOUT_MS }).map((ms) => ({ kind: 'tick' as const, ms })) },
  { weight: 16, arbitrary: fc.constant({ kind: 'flush' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'call' as const, call: { kind: 'drain' as const }, fate: PASS }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'disconnect' as const }) },
);

const clientPlan = fc.record({
  reconnect: fc.option(fc.record({ maxAttempts: fc.integer({ min: 1, max: 4 }), baseDelayMs: fc.integer({ min: 1, max: 100 }), maxDelayMs: fc.integer({ min: 50, max: 400 }) }), { nil: undefined, freq: 3 }),
  maxPending: fc.constantFrom(2, 8, 64),
  maxAttached: fc.constantFrom(SESSIONS.length + 1, 256),
  limits: fc.option(fc.record({ maxFrameBytes: fc.integer({ min: 2_048, max: 65_536 }), maxDepth: fc.integer({ min: 6, max: 40 }) }), { nil: undefined, freq: 2 }),
  keys: fc.constantFrom('counter', 'default'),
  handshake: fc.oneof({ weight: 6, arbitrary: fc.constant(PASS) }, { weight: 3, arbitrary: fate }, fc.constant(DIES_AS_IT_ANSWERS)),
});
type ClientPlan = typeof clientPlan extends fc.Arbitrary<infer T> ? T : never;

interface Session {
  client: DaemonClient;
  host: HostileHost;
  plan: ClientPlan;
  lastKey: () => string | undefined;
  usedKey: string | undefined;
  /** Sessions this client was asked to attach: no event of another may be delivered. */
  attachedEver: Set<string>;
  closedByUs: boolean;
  closed: boolean;
}

export const target: FuzzTarget = async (context) => {
  const clock = new ManualClock();
  const calls = new Calls(context);
  let acts = 0;
  const act = (): void => {
    acts++;
    context.sent();
  };

  const failed =
    (where: string, idempotencyKey?: string) =>
    (error: unknown): string | undefined => {
      if (!(error instanceof DaemonError)) return `${where} rejected with ${kindOf(error)}, not a DaemonError`;
      context.code(error.code, DAEMON_CODES, `${where} DaemonError`);
      context.seen(error.message, `${where} error message`);
      seenIn(context, error.details, `${where} error details`);
      if (typeof error.retryable !== 'boolean') return `${where}: a DaemonError without a boolean retryable`;
      // Once the command went out, a failure names the key to retry it with.
      if (idempotencyKey !== undefined && error.details.local !== true && error.details.idempotencyKey !== idempotencyKey) return `${where}: a failure does not name its idempotencyKey`;
      return undefined;
    };

  const fresh = async (n: number): Promise<Session> => {
    const plan = draw(clientPlan, context.seed + 2, n, 1)[0]!;
    const limits = { ...DEFAULT_DAEMON_LIMITS, ...plan.limits };
    const sim = new DaemonSimulator({ clock, hostInstanceId: `host-${n}`, fallbackReply: PROBE_REPLY });
    const host = new HostileHost(sim, context, act, limits);
    let made = 0;
    let last: string | undefined;
    const options: DaemonClientOptions = { clock, requestTimeoutMs: TIMEOUT_MS, wakeTimeoutMs: 3 * TIMEOUT_MS, maxPendingRequests: plan.maxPending, maxAttachedSessions: plan.maxAttached, limits };
    if (plan.reconnect !== undefined) options.reconnect = { ...plan.reconnect, connect: () => host.connect() };
    if (plan.keys === 'counter') options.newIdempotencyKey = () => (last = `k${++made}`);

    // A hostile first handshake: refused with a documented code (the link closed), or accepted,
    // and then the client it gave must work like any other.
    let client: DaemonClient | undefined;
    if (plan.handshake.kind !== 'pass') {
      host.fates.push(plan.handshake);
      const link = host.link();
      const hostile = watch(DaemonClient.connect(link, options));
      if (!(await runClock(clock, () => hostile.settled, TIMEOUT_MS / 4, 3 * TIMEOUT_MS))) context.problem('DaemonClient.connect never settled after a hostile handshake');
      client = hostile.value;
      if (hostile.settled && client === undefined) {
        const problem = failed('DaemonClient.connect')(hostile.error);
        if (problem !== undefined) context.problem(problem);
        if (link.open) context.problem('DaemonClient.connect rejected and left its link open');
        host.newClient();
      }
      host.calm();
    }
    if (client === undefined) {
      const connected = watch(DaemonClient.connect(host.link(), options));
      await runClock(clock, () => connected.settled, TIMEOUT_MS / 4, 2 * TIMEOUT_MS);
      client = connected.value;
      if (client === undefined) throw new Error(`DaemonClient.connect to an honest host did not resolve: ${kindOf(connected.error)}`);
    }
    const session: Session = { client, host, plan, lastKey: () => last, usedKey: undefined, attachedEver: new Set([PROBE]), closedByUs: false, closed: false };
    listen(session);
    return session;
  };

  /** Everything the client emits is checked as it comes. */
  const listen = (session: Session): void => {
    const { client, plan } = session;
    client.on('event', (event: DaemonEvent) => {
      context.tally(`event ${event.sessionId === PROBE ? 'probe' : 'batch'}`);
      if (!Number.isSafeInteger(event.sequence) || !Number.isSafeInteger(event.generation) || event.sequence < 0 || event.generation < 0) context.problem('DaemonClient delivered an event numbered outside 0..2^53 − 1');
      if (event.hostInstanceId !== client.host.hostInstanceId) context.problem('DaemonClient delivered an event of another host than its own');
      if (!session.attachedEver.has(event.sessionId)) context.problem('DaemonClient delivered an event of a session never attached');
    });
    client.on('stream', (report: StreamReport) => {
      context.tally(`stream ${report.kind}${report.kind === 'stale' ? ` ${report.reason}` : ''}`);
      context.code(report.kind, STREAM_KINDS, 'DaemonClient stream report');
      if (report.kind === 'stale') context.code(report.reason, STALE_REASONS, 'DaemonClient stale report');
      if (report.kind === 'gap' && !(Number.isSafeInteger(report.from) && Number.isSafeInteger(report.to) && report.from <= report.to)) context.problem('DaemonClient reported a gap that is not a range of whole numbers');
    });
    client.on('problem', (problem) => {
      context.tally(`problem ${problem.kind}`);
      context.code(problem.kind, PROBLEM_KINDS, 'DaemonClient problem event');
      context.seen(problem.message, 'problem message');
      if (problem.requestId !== undefined) context.seen(problem.requestId, 'problem requestId');
    });
    client.on('host', ({ previousHostInstanceId, hostInstanceId }) => {
      context.tally('host changed');
      if (previousHostInstanceId === hostInstanceId || hostInstanceId !== client.host.hostInstanceId) context.problem('a host event that names no change, or not the host now in use');
    });
    client.on('reconnect', (report) => {
      context.tally(`reconnect${report.hostChanged ? ' (new host)' : ''}`);
      if (report.hostChanged !== (report.hostInstanceId !== report.previousHostInstanceId) || !(report.attempt >= 1)) context.problem('a reconnect report whose hostChanged does not match its ids');
      for (const lost of report.lost) {
        const problem = failed('reconnect re-attach')(lost.error);
        if (problem !== undefined) context.problem(problem);
      }
    });
    client.on('disconnect', ({ reason }) => {
      context.tally('disconnect');
      context.seen(reason, 'disconnect reason');
    });
    client.on('close', ({ reason }) => {
      session.closed = true;
      context.seen(reason, 'close reason');
      const byUs = session.closedByUs && reason === 'DaemonClient.disconnect()';
      const reconnectEnded = plan.reconnect !== undefined && RECONNECT_REASON.test(reason);
      if (!byUs && !reconnectEnded && !session.host.closeReasons.has(reason)) context.problem(`DaemonClient closed for a reason the docs do not give: ${reason.slice(0, 60)}`);
      context.tally(byUs ? 'close: by the caller' : reconnectEnded ? 'close: reconnect ended' : 'close: link dropped');
    });
  };

  const refOf = (session: Session, r: Ref): SessionRef => {
    const current = session.host.sim.session(r.session)?.generation ?? 1;
    return { sessionId: r.session, generation: r.generation === 'current' ? current : r.generation === 'next' ? current + 1 : r.generation };
  };
  const keyFor = (session: Session, choice: 'default' | 'explicit' | 'reuse'): string | undefined => (choice === 'explicit' || (choice === 'reuse' && session.usedKey === undefined) ? `key-${acts}` : choice === 'reuse' ? session.usedKey : undefined);
  const keyed = (session: Session, given: string | undefined): string | undefined => {
    const used = given ?? (session.plan.keys === 'counter' ? session.lastKey() : undefined);
    session.usedKey = used;
    return used;
  };

  const call = (session: Session, spec: DaemonCall): void => {
    const { client } = session;
    const where = `DaemonClient.${spec.kind}`;
    switch (spec.kind) {
      case 'handshake':
        return calls.track(client.handshake(), where, (info) => (typeof info.hostInstanceId === 'string' && info.hostInstanceId !== '' && info.protocolVersion === '2.0' ? undefined : 'handshake resolved with host info it should have refused'), failed(where));
      case 'open':
        return calls.track(client.open(refOf(session, spec.ref), spec.systemPrompt === undefined ? { ...OPEN, session: { mode: spec.mode } } : { ...OPEN, session: { mode: spec.mode }, systemPrompt: spec.systemPrompt }), where, (opened) => (typeof opened.created === 'boolean' && typeof opened.session === 'object' ? undefined : 'open resolved with data that is not { created, session }'), failed(where));
      case 'attach':
        session.attachedEver.add(spec.ref.session);
        return calls.track(client.attach(refOf(session, spec.ref)), where, (attached) => (Number.isSafeInteger(attached.generation) && Number.isSafeInteger(attached.sequence) && attached.sequence >= 0 ? undefined : 'attach resolved with numbers outside 0..2^53 − 1'), failed(where));
      case 'detach':
        return calls.track(client.detach(refOf(session, spec.ref)), where, () => undefined, failed(where));
      case 'abort':
        return calls.track(client.abort(refOf(session, spec.ref)), where, (aborted) => (typeof aborted === 'boolean' ? undefined : 'abort resolved with no boolean'), failed(where));
      case 'wake': {
        const given = keyFor(session, spec.key);
        const options = { prompt: spec.prompt, ...(given !== undefined && { idempotencyKey: given }), ...(spec.waitForTerminal !== undefined && { waitForTerminal: spec.waitForTerminal }) };
        const answer = client.wake(refOf(session, spec.ref), options);
        const used = keyed(session, given);
        return calls.track(answer, where, (woke) => (woke.idempotencyKey === used || used === undefined ? (woke.terminal && typeof woke.result.text !== 'string' ? 'wake resolved with no text' : undefined) : 'wake answered with another idempotencyKey'), failed(where, used));
      }
      case 'steer':
      case 'followUp': {
        const given = keyFor(session, spec.key);
        const answer = spec.kind === 'steer' ? client.steer(refOf(session, spec.ref), spec.message, given) : client.followUp(refOf(session, spec.ref), spec.message, given);
        return calls.track(answer, where, () => undefined, failed(where, keyed(session, given)));
      }
      case 'status':
        return calls.track(client.status(spec.session), where, () => undefined, failed(where));
      case 'close':
        return calls.track(client.close(refOf(session, spec.ref), spec.retain === undefined ? {} : { retainSession: spec.retain }), where, (closed) => (typeof closed === 'boolean' ? undefined : 'close resolved with no boolean'), failed(where));
      case 'drain':
        return calls.track(client.drain(), where, () => undefined, failed(where));
    }
  };

  /**
   * The client still works with an honest host: a status is answered, and a wake on a session
   * opened at a new generation and attached answers with its text, its events all delivered in
   * order and none reported.
   */
  let generation = 0;
  const probe = async (session: Session): Promise<void> => {
    const { client } = session;
    const ask = async <T>(promise: Promise<T>, what: string, maxMs: number): Promise<T | undefined> => {
      const watched = watch(promise);
      await runClock(clock, () => watched.settled, TIMEOUT_MS / 2, maxMs);
      if (!watched.settled || watched.error !== undefined) context.problem(`${what} after hostile records was not answered (${watched.settled ? codeOf(watched.error) : 'no answer'})`);
      return watched.value;
    };
    if ((await ask(client.status(), 'a status', 2 * TIMEOUT_MS)) === undefined) return;
    const ref = { sessionId: PROBE, generation: ++generation };
    const events: DaemonEvent[] = [];
    const reports: StreamReport[] = [];
    const offEvent = client.on('event', (event) => event.sessionId === PROBE && event.generation === ref.generation && events.push(event));
    const offStream = client.on('stream', (report) => report.sessionId === PROBE && report.generation === ref.generation && reports.push(report));
    try {
      if ((await ask(client.open(ref, OPEN), 'an open', 2 * TIMEOUT_MS)) === undefined) return;
      const attached = await ask(client.attach(ref), 'an attach', 2 * TIMEOUT_MS);
      if (attached === undefined) return;
      const woke = await ask(client.wake(ref, { prompt: 'still there?' }), 'a wake', 4 * TIMEOUT_MS);
      if (woke === undefined) return;
      if (!woke.terminal || woke.result.text !== PROBE_REPLY) context.problem('a wake after hostile records answered with another text');
      const sequences = events.map((event) => event.sequence);
      const expected = sequences.map((_, i) => attached.sequence + 1 + i);
      if (events.length === 0 || events.at(-1)!.event !== 'sessionIdle' || sequences.some((n, i) => n !== expected[i])) context.problem('the events of a wake after hostile records did not all arrive, in order');
      if (reports.length > 0) context.problem(`the events of a wake after hostile records were reported (${reports[0]!.kind})`);
    } finally {
      offEvent();
      offStream();
    }
  };

  /** The batch sessions open and attached, so that the next batch's wakes bring events for the hostile fates to act on. */
  const stage = async (session: Session): Promise<void> => {
    for (const sessionId of SESSIONS) {
      const current = session.host.sim.session(sessionId);
      if (current !== undefined && current.attached > 0 && !current.running) continue;
      // A batch may have opened it at 2^53, past which there is no next generation: closed, it starts again at 1.
      const past = current !== undefined && !Number.isSafeInteger(current.generation + 1);
      const ref = { sessionId, generation: past ? 1 : (current?.generation ?? 0) + 1 };
      session.attachedEver.add(sessionId);
      const closed = past ? session.client.close({ sessionId, generation: current.generation }) : Promise.resolve(true);
      const staged = watch(closed.then(() => session.client.open(ref, OPEN)).then(() => session.client.attach(ref)));
      await runClock(clock, () => staged.settled, TIMEOUT_MS / 2, 2 * TIMEOUT_MS);
      if (staged.error !== undefined) context.problem(`an open and attach with an honest host failed (${codeOf(staged.error)})`);
    }
  };

  let clients = 0;
  let session = await fresh(clients++);
  for (let batch = 0; acts < context.frames; batch++) {
    for (const next of draw(step, context.seed, batch, 60)) {
      if (session.closed) break;
      switch (next.kind) {
        case 'frame':
          session.host.unsolicited(next.frame);
          break;
        case 'call':
          session.host.fates.push(next.fate);
          call(session, next.call);
          break;
        case 'events':
          session.host.eventFates.push(...next.fates);
          break;
        case 'connect':
          session.host.connects.push(next.fate);
          break;
        case 'settle':
          await settle();
          break;
        case 'tick':
          clock.advance(next.ms);
          break;
        case 'flush':
          session.host.flush();
          break;
        case 'restart':
          act();
          session.host.sim.restart();
          break;
        case 'disconnect':
          session.closedByUs = true;
          session.client.disconnect();
      }
    }
    session.host.calm();
    const quiet = (): boolean => calls.pending === 0 && session.client.state !== 'reconnecting';
    await runClock(clock, quiet, TIMEOUT_MS / 4, 30 * TIMEOUT_MS);
    // A drained host refuses everything for good: it restarts, as the process would be replaced.
    if (session.host.sim.draining) {
      session.host.sim.restart();
      await runClock(clock, quiet, TIMEOUT_MS / 4, 30 * TIMEOUT_MS);
    }
    calls.reportUnsettled();
    if (session.client.state === 'reconnecting') context.problem('DaemonClient still reconnecting to an honest host after every backoff');
    clock.advance(3 * TIMEOUT_MS + 1);
    await settle();
    session.host.honest = true;
    if (session.client.state === 'closed' || batch % 25 === 24) {
      session.closedByUs = true;
      session.client.disconnect();
      session = await fresh(clients++);
      session.host.honest = true;
    }
    await probe(session);
    await stage(session);
    session.host.honest = false;
    const sim = session.host.sim;
    sim.received.length = 0;
    sim.receivedLines.length = 0;
    sim.turns.length = 0;
    if (batch % 10 === 0) await context.breathe();
  }
  session.closedByUs = true;
  session.client.disconnect();
};
