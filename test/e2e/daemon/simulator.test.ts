// The DaemonSimulator (test/pi/daemonSimulator.ts) against the real pi-daemon 0.3.3: one scripted
// sequence of commands is run on a raw connection to each — a fresh real daemon with the stub model,
// and the simulator on a socket of its own — and every step's outcome is compared: the answer (ok,
// its protocolVersion, sessionId and sequence, the error's code, retryable flag and details, the
// stable part of its data: flags, generations, sequences, states and the fields a snapshot has) and
// the events that came with it (names, sequences, requestIds and their stable data). Request ids are
// the same on both sides, so they compare too.
//
// Left out on purpose, where the simulator does not model the real daemon (its header says so):
// the text of an aborted turn (the real one depends on timing), the events while a slow turn streams
// (pi runs one more model turn per steered message), host memory, metrics and recovery.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DaemonSimulator } from '../../pi/daemonSimulator.js';
import { RawDaemonConnection, type RawRecord } from '../../pi/daemonRawConnection.js';
import { startStubModel, STUB_MODEL_ID, STUB_PROVIDER, type StubModel } from '../stubModel.js';
import { describeWithRealDaemon, startRealDaemon, type RealDaemon } from './realDaemon.js';

const REPLY = 'hello there';
/** Small, so that the script can reach connection_busy with a few wakes in flight. */
const MAX_IN_FLIGHT = 3;

/** One side of the comparison: where it listens, and how its next turn is made slow. */
interface Side {
  socket: string;
  workDir: string;
  /** A cwd outside the host's roots. */
  outside: string;
  /** The next turn runs until aborted (the real one streams slowly; the simulator's is held). */
  slowTurn(): void;
  /** The next turn's reply. */
  nextReply(text: string): void;
}

/** A step's outcome, reduced to what both sides must agree on. */
interface Outcome {
  step: string;
  answer?: unknown;
  events?: unknown[];
}

describeWithRealDaemon('the DaemonSimulator against the real pi-daemon 0.3.3', () => {
  let stub: StubModel;
  let daemon: RealDaemon;
  let simDir: string;
  let closeSim: (() => Promise<void>) | undefined;
  const outcomes: { real: Outcome[]; simulator: Outcome[] } = { real: [], simulator: [] };

  beforeAll(async () => {
    stub = await startStubModel({ fallbackReply: REPLY });
    daemon = await startRealDaemon({ modelBaseUrl: stub.baseUrl, args: ['--max-in-flight-requests-per-connection', String(MAX_IN_FLIGHT)] });
    outcomes.real = await runScript({
      socket: daemon.socket,
      workDir: daemon.workDir,
      outside: dirname(daemon.workDir),
      // Its first letter comes after 3 s: the steps taken while it runs see no streaming (it is aborted first).
      slowTurn: () => stub.script({ text: 'a reply that would stream slowly', chunkChars: 1, chunkDelayMs: 3000 }),
      nextReply: (text) => stub.script(text),
    });

    simDir = mkdtempSync(join(tmpdir(), 'aicc-sim-'));
    const workDir = join(simDir, 'work');
    const sim = new DaemonSimulator({
      fallbackReply: REPLY,
      maxInFlight: MAX_IN_FLIGHT,
      allowedRoots: [workDir],
      model: { provider: STUB_PROVIDER, id: STUB_MODEL_ID },
    });
    const server = await sim.listen(join(simDir, 'sim.sock'));
    closeSim = server.close;
    outcomes.simulator = await runScript({
      socket: join(simDir, 'sim.sock'),
      workDir,
      outside: simDir,
      slowTurn: () => sim.scriptTurns({ text: 'never', hold: true }),
      nextReply: (text) => sim.scriptTurns(text),
    });
  }, 120_000);

  afterAll(async () => {
    await closeSim?.();
    if (simDir !== undefined) rmSync(simDir, { recursive: true, force: true });
    await daemon?.dispose();
    await stub?.close();
  });

  it('ran the same steps on both', () => {
    expect(outcomes.simulator.map((o) => o.step)).toEqual(outcomes.real.map((o) => o.step));
    expect(outcomes.real.length).toBeGreaterThan(60);
  });

  it('agrees with the real daemon at every step: answers, codes, retryable flags, events', () => {
    const disagreements = outcomes.real.flatMap((real, i) => {
      const simulated = outcomes.simulator[i];
      return JSON.stringify(simulated) === JSON.stringify(real) ? [] : [{ step: real.step, real, simulator: simulated }];
    });
    expect(disagreements).toEqual([]);
  });
});

/** The script: every step the comparison makes, in order. Paths are each side's own. */
async function runScript(side: Side): Promise<Outcome[]> {
  const d = await Driver.open(side.socket);
  const open = (extra: Record<string, unknown> = {}, mode = 'memory') => ({
    cwd: side.workDir,
    session: { mode },
    resources: { extensions: 'none', skills: 'none', promptTemplates: 'none', themes: 'none', contextFiles: 'none', tools: 'none', ...extra },
  });
  const S1 = { sessionId: 's1', generation: 1 };
  try {
    await d.req('handshake', 'handshake');
    await d.req('open a memory session', 'open', S1, open());
    await d.req('the same open again: a no-op', 'open', S1, open());
    await d.req('attach', 'attach', S1);
    await d.req('status of the host', 'status');
    await d.req('status of a session: the snapshot itself', 'status', { sessionId: 's1' });
    await d.req('status of a session never opened', 'status', { sessionId: 'nobody' });
    await d.req('steer while idle', 'steer', { ...S1, idempotencyKey: 'st-idle' }, { message: 'now' });
    await d.req('followUp while idle', 'followUp', { ...S1, idempotencyKey: 'fu-idle' }, { message: 'later' });
    await d.req('open at a lower generation', 'open', { ...S1, generation: 0 }, open());
    await d.req('open at this generation with another policy', 'open', S1, open({ systemPrompt: 'another' }));
    await d.req('attach at a higher generation', 'attach', { ...S1, generation: 2 });
    await d.req('wake at a higher generation', 'wake', { ...S1, generation: 2, idempotencyKey: 'w0' }, { prompt: 'x' });
    await d.req('wake a session never opened', 'wake', { sessionId: 'nobody', generation: 1, idempotencyKey: 'w0' }, { prompt: 'x' });
    await d.req('wake a memory session without waitForTerminal', 'wake', { ...S1, idempotencyKey: 'w0' }, { prompt: 'x', waitForTerminal: false });
    await d.req('wake', 'wake', { ...S1, idempotencyKey: 'w1' }, { prompt: 'hello' });
    await d.req('wake again with its key: a memory session runs it again', 'wake', { ...S1, idempotencyKey: 'w1' }, { prompt: 'hello' });
    await d.req('abort with nothing running', 'abort', S1);
    await d.req('open with a cwd outside the roots', 'open', { sessionId: 'outside', generation: 1 }, { ...open(), cwd: side.outside });
    await d.req('open with a name', 'open', { sessionId: 'n1', generation: 1 }, { ...open(), name: 'shared' });
    await d.req('open with a name in use', 'open', { sessionId: 'n2', generation: 1 }, { ...open(), name: 'shared' });
    await d.req("open named after another session's id", 'open', { sessionId: 'n3', generation: 1 }, { ...open(), name: 'n1' });
    await d.req('detach', 'detach', S1);
    await d.req('detach again: nothing to detach', 'detach', S1);
    await d.req('attach again', 'attach', S1);
    await d.req('close, retaining the session', 'close', S1);
    await d.req('status of a closed session', 'status', { sessionId: 's1' });
    await d.req('status of the host: the closed session is dormant', 'status');
    await d.req('reopen a closed memory session at its generation', 'open', S1, open());
    await d.req('close a dormant session at another generation', 'close', { ...S1, generation: 5 });
    await d.req('reopen at the next generation', 'open', { ...S1, generation: 2 }, open());
    await d.req('attach the next generation', 'attach', { ...S1, generation: 2 });
    await d.req('close without retaining', 'close', { ...S1, generation: 2 }, { retainSession: false });
    await d.req('reopen at that generation: the session was deleted', 'open', { ...S1, generation: 2 }, open());
    await d.req('close a session never opened', 'close', { sessionId: 'nobody', generation: 1 });

    const D = { sessionId: 'd1', generation: 1 };
    await d.req('open a durable session', 'open', D, open({}, 'new'));
    await d.req('attach it', 'attach', D);
    await d.req('wake it', 'wake', { ...D, idempotencyKey: 'k1' }, { prompt: 'one' });
    await d.req('wake it again with the key: the journal answers', 'wake', { ...D, idempotencyKey: 'k1' }, { prompt: 'one' });
    await d.req('the key with another prompt', 'wake', { ...D, idempotencyKey: 'k1' }, { prompt: 'two' });
    const ticket = d.send('wake', { ...D, idempotencyKey: 'k2' }, { prompt: 'three', waitForTerminal: false });
    await d.take('wake a durable session without waitForTerminal: a ticket', ticket, { events: false });
    await d.events('its turn runs in the events', (e) => e.event === 'sessionIdle' && e.requestId === ticket);

    const B = { sessionId: 'big', generation: 1 };
    await d.req('open a session for a long reply', 'open', B, open());
    await d.req('attach it', 'attach', B);
    // 600 KB: its line fits the host's 1 MiB once, not twice (an update carries the delta and the message so far).
    side.nextReply('é'.repeat(300_000));
    await d.req('a reply whose updates pass the line limit: eventDropped in their place', 'wake', { ...B, idempotencyKey: 'big' }, { prompt: 'say a lot' });
    await d.req('close it', 'close', B, { retainSession: false });

    const R = { sessionId: 'r1', generation: 1 };
    await d.req('open a session for a slow turn', 'open', R, open());
    await d.req('attach it', 'attach', R);
    side.slowTurn();
    const slow = d.send('wake', { ...R, idempotencyKey: 'slow' }, { prompt: 'take your time' });
    await d.events('the slow wake is accepted and its turn starts', (e) => e.event === 'agentStart' && e.requestId === slow, ['promptAccepted', 'agentStart']);
    await d.req('status while it runs', 'status', { sessionId: 'r1' }, {}, { events: false });
    await d.req('steer while it runs', 'steer', { ...R, idempotencyKey: 'st1' }, { message: 'faster' }, { events: false });
    await d.req('the same steer again', 'steer', { ...R, idempotencyKey: 'st1' }, { message: 'faster' }, { events: false });
    await d.req("the steer's key with another message", 'steer', { ...R, idempotencyKey: 'st1' }, { message: 'slower' }, { events: false });
    await d.req('followUp while it runs', 'followUp', { ...R, idempotencyKey: 'fu1' }, { message: 'and then?' }, { events: false });
    await d.req('close while it runs', 'close', R, {}, { events: false });
    await d.req('open the next generation while it runs', 'open', { ...R, generation: 2 }, open(), { events: false });
    const queued = d.send('wake', { ...R, idempotencyKey: 'queued' }, { prompt: 'after you' });
    await d.events('a wake while one runs waits its turn', (e) => e.event === 'promptAccepted' && e.requestId === queued, ['promptAccepted']);
    await d.req('status with a wake waiting', 'status', { sessionId: 'r1' }, {}, { events: false });
    d.raw({ protocolVersion: '2.0', requestId: slow, operation: 'status', payload: {} });
    await d.take('a requestId still in flight, again', slow, { events: false });
    const third = d.send('wake', { ...R, idempotencyKey: 'third' }, { prompt: 'me too' });
    await d.req(`a request past ${MAX_IN_FLIGHT} in flight on the connection`, 'status', {}, {}, { events: false });
    await d.elsewhere('abort the running turn, from another connection', 'abort', R);
    // pi ran a model turn more for each message steered in, the simulator none: sequences part here.
    await d.take('the aborted wake answers with what it had', slow, { events: false, partial: true, sequences: false });
    await d.take('the waiting wake runs next', queued, { events: false, sequences: false });
    await d.take('and the one after it', third, { events: false, sequences: false });
    d.skipEvents();
    await d.req('close it for good', 'close', R, { retainSession: false }, { events: false });
    d.skipEvents();

    await d.req('drain with nothing running', 'drain', {}, { timeoutMs: 1000 });
    await d.req('open while draining', 'open', { sessionId: 'late', generation: 1 }, open());
    await d.req('wake while draining', 'wake', { ...D, idempotencyKey: 'k3' }, { prompt: 'four' });
    await d.req('steer while draining (idle)', 'steer', { ...D, idempotencyKey: 'st2' }, { message: 'hi' });
    await d.req('attach while draining', 'attach', D);
    await d.req('status while draining', 'status');
    await d.req('drain again', 'drain', {}, { timeoutMs: 1000 });

    await d.line('a line that is not JSON', '{oops');
    await d.line('JSON that is not an object', '[1,2]');
    await d.line('another major version', JSON.stringify({ protocolVersion: '3.0', requestId: 'v3', operation: 'handshake', payload: {} }), 'v3');
    await d.line('a command with no protocolVersion', JSON.stringify({ requestId: 'nv', operation: 'handshake', payload: {} }), 'nv');
    await d.line('a version that is not major.minor', JSON.stringify({ protocolVersion: 'two', requestId: 'bv', operation: 'handshake', payload: {} }), 'bv');
    await d.line('an unknown operation', JSON.stringify({ protocolVersion: '2.0', requestId: 'uo', operation: 'teleport', payload: {} }), 'uo');
    await d.line(
      'a wake with no idempotencyKey',
      JSON.stringify({ protocolVersion: '2.0', requestId: 'nk', operation: 'wake', ...D, payload: { prompt: 'x' } }),
      'nk',
    );
    await d.line('a protocol 1.0 handshake', JSON.stringify({ protocolVersion: '1.0', requestId: 'v1', operation: 'handshake', payload: {} }), 'v1');
    await d.line(
      'a line over 1 MiB',
      JSON.stringify({ protocolVersion: '2.0', requestId: 'big', operation: 'status', payload: {}, pad: 'x'.repeat(1024 * 1024) }),
      'big',
    );
    return d.outcomes;
  } finally {
    d.close();
  }
}

/** Drives one connection through the script and reduces what comes back to Outcomes. */
class Driver {
  readonly outcomes: Outcome[] = [];
  /** Index in the connection's records of the first event no step has taken yet. */
  private seen = 0;
  private sent = 0;

  private constructor(
    private readonly path: string,
    private connection: RawDaemonConnection,
  ) {}

  static async open(path: string): Promise<Driver> {
    return new Driver(path, await RawDaemonConnection.open(path));
  }

  /** Sends a command, not waiting: returns its requestId. */
  send(operation: string, fields: Record<string, unknown> = {}, payload: Record<string, unknown> = {}): string {
    const requestId = `q${++this.sent}`;
    this.connection.write({ protocolVersion: '2.0', requestId, operation, payload, ...fields });
    return requestId;
  }

  /** Sends one command on a connection of its own (this one may be full) and records its answer. */
  async elsewhere(step: string, operation: string, fields: Record<string, unknown> = {}, payload: Record<string, unknown> = {}): Promise<void> {
    const connection = await RawDaemonConnection.open(this.path);
    try {
      const requestId = `q${++this.sent}`;
      connection.write({ protocolVersion: '2.0', requestId, operation, payload, ...fields });
      this.outcomes.push({ step, answer: reduceAnswer(await connection.answer(requestId), false) });
    } finally {
      connection.close();
    }
  }

  raw(record: Record<string, unknown>): void {
    this.connection.write(record);
  }

  /** Sends a command and records its answer, and the events that came since the last step. */
  async req(
    step: string,
    operation: string,
    fields: Record<string, unknown> = {},
    payload: Record<string, unknown> = {},
    options: { events?: boolean } = {},
  ): Promise<void> {
    await this.take(step, this.send(operation, fields, payload), options);
  }

  /**
   * Records the next answer to `requestId`. `partial`: an aborted turn's, whose text is left out;
   * `sequences: false`: its sequences are left out.
   */
  async take(step: string, requestId: string, options: { events?: boolean; partial?: boolean; sequences?: boolean } = {}): Promise<void> {
    const answer = await this.connection.answer(requestId);
    const reduced = reduceAnswer(answer, options.partial === true);
    const outcome: Outcome = { step, answer: options.sequences === false ? withoutSequences(reduced) : reduced };
    if (options.events !== false) outcome.events = this.drainEvents();
    this.outcomes.push(outcome);
  }

  /**
   * Waits for the event `until` takes, and records the events since the last step — all of them, or
   * only those named in `only` (when others may or may not have come yet, by timing).
   */
  async events(step: string, until: (event: RawRecord) => boolean, only?: string[]): Promise<void> {
    await this.connection.event(step, until, this.seen);
    const index = this.connection.records.findIndex((r, i) => i >= this.seen && r.kind === 'event' && until(r));
    const taken = this.connection.records.slice(this.seen, index + 1).filter((r) => r.kind === 'event');
    this.seen = index + 1;
    this.outcomes.push({ step, events: taken.filter((e) => only === undefined || only.includes(String(e.event))).map(reduceEvent) });
  }

  /** Forgets the events so far (those of a turn whose streaming depends on timing). */
  skipEvents(): void {
    this.seen = this.connection.records.length;
  }

  /**
   * Sends a line on a connection of its own and records the answer, and whether the host then closed
   * the connection: a handshake after it is answered, or the connection closes.
   */
  async line(step: string, line: string, requestId?: string): Promise<void> {
    const connection = await RawDaemonConnection.open(this.path);
    try {
      connection.writeLine(line);
      const first = await connection.firstResponse();
      connection.write({ protocolVersion: '2.0', requestId: 'after', operation: 'handshake', payload: {} });
      const closed = await connection.closedOrAnswered('after');
      this.outcomes.push({
        step,
        answer: {
          ...(reduceAnswer(first, false) as object),
          requestId: first.requestId === requestId ? 'as sent' : String(first.requestId).replace(/^invalid-.*/, 'invalid-…'),
          closed,
        },
      });
    } finally {
      connection.close();
    }
  }

  close(): void {
    this.connection.close();
  }

  private drainEvents(): unknown[] {
    const events = this.connection.records.slice(this.seen).filter((r) => r.kind === 'event');
    this.seen = this.connection.records.length;
    return events.map(reduceEvent);
  }
}

// ── reductions: what must agree ──────────────────────────────────────────────────────────────

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function reduceAnswer(answer: RawRecord, partial: boolean): unknown {
  const base = { protocolVersion: answer['protocolVersion'], ok: answer['ok'], sessionId: answer['sessionId'] ?? null, sequence: answer['sequence'] ?? null };
  if (answer['ok'] !== true) {
    const error = answer['error'] as { code: string; retryable: boolean; details?: Record<string, unknown> };
    // invalid_field's details name the field in the host's own words.
    return { ...base, code: error.code, retryable: error.retryable, details: error.code === 'invalid_field' ? 'some' : (error.details ?? null) };
  }
  return { ...base, data: reduceData(answer['data'], partial) };
}

/** The stable part of a success's data: shapes by their keys, and values that do not depend on the clock, paths or pi's ids. */
function reduceData(data: unknown, partial: boolean): unknown {
  if (!isObject(data)) return data;
  if ('supportedProtocolVersions' in data || 'packageVersion' in data) {
    const capabilities = data['capabilities'] as Record<string, unknown>;
    const limits = data['limits'] as Record<string, unknown>;
    return {
      protocolVersion: data['protocolVersion'],
      supportedProtocolVersions: data['supportedProtocolVersions'] ?? null,
      operations: capabilities['operations'],
      transport: capabilities['transport'],
      durable: capabilities['durable'],
      maxInFlightRequestsPerConnection: limits['maxInFlightRequestsPerConnection'],
      maxLineBytes: limits['maxLineBytes'],
      multiplexer: limits['multiplexer'],
      host: reduceHost(data['host'] as Record<string, unknown>),
    };
  }
  if ('uptimeMs' in data) return reduceHost(data);
  if ('created' in data) return { created: data['created'], session: reduceSnapshot(data['session']) };
  if ('result' in data) {
    const result = data['result'] as Record<string, unknown>;
    // An aborted turn's text is what had streamed by then, if anything (none: no `text` at all): left out.
    const keys = Object.keys(result).filter((key) => !(partial && key === 'text'));
    return {
      result: { keys: keys.sort(), ...(!partial && { text: shortStrings(result['text']) }), model: result['model'], thinkingLevel: result['thinkingLevel'] },
      session: reduceSnapshot(data['session']),
    };
  }
  if ('ticket' in data) {
    const ticket = data['ticket'] as Record<string, unknown>;
    return { ticket: { keys: Object.keys(ticket).sort(), ...pick(ticket, ['idempotencyKey', 'operation', 'state', 'sessionId', 'generation', 'requestId']) } };
  }
  if ('sessionId' in data && 'lastUsedAt' in data) return reduceSnapshot(data);
  return data;
}

function reduceHost(host: Record<string, unknown>): unknown {
  return {
    ...pick(host, ['ready', 'durable', 'draining', 'limits', 'activeTurns', 'queuedTurns', 'retainedSessions', 'dormantSessions']),
    sessions: (host['sessions'] as unknown[]).map(reduceSnapshot),
  };
}

function reduceSnapshot(session: unknown): unknown {
  if (!isObject(session)) return session;
  return { keys: Object.keys(session).sort(), ...pick(session, ['sessionId', 'generation', 'state', 'sequence', 'queuedTurns', 'activeRequestId', 'model']) };
}

function reduceEvent(event: RawRecord): unknown {
  const data = shortStrings(event['data']);
  const reduced: Record<string, unknown> = {
    event: event.event,
    sequence: event.sequence,
    generation: event['generation'],
    sessionId: event['sessionId'],
    requestId: event.requestId ?? null,
    protocolVersion: event['protocolVersion'],
  };
  if (!isObject(data)) reduced['data'] = data ?? null;
  else if (event.event === 'messageStart' || event.event === 'messageEnd') reduced['role'] = (data['message'] as Record<string, unknown>)['role'];
  else if (event.event === 'messageUpdate') reduced['update'] = pick(data['assistantMessageEvent'] as Record<string, unknown>, ['type', 'delta', 'content']);
  else if (event.event === 'turnEnd' || event.event === 'sessionEvicted') reduced['keys'] = Object.keys(data).sort();
  else reduced['data'] = data;
  return reduced;
}

/** Long texts by their length (a failure's diff stays readable). */
function shortStrings(value: unknown): unknown {
  if (typeof value === 'string') return value.length > 200 ? `(${value.length} characters)` : value;
  if (Array.isArray(value)) return value.map(shortStrings);
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, shortStrings(v)]));
}

function withoutSequences(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSequences);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'sequence')
      .map(([key, v]) => [key, withoutSequences(v)]),
  );
}

function pick(record: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => key in record).map((key) => [key, record[key]]));
}
