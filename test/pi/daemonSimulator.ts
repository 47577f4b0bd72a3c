// A pi-daemon protocol v2 host for fast tests of DaemonClient's own logic, and of what is built on it.
// It agrees with pi-daemon 0.3.3 wherever test/e2e/daemon/simulator.test.ts runs one script against
// both and compares them step by step (answers and their shapes, error codes and retryable flags,
// event names and sequences); what it cannot model it leaves out, and the real daemon covers.
//
// What it models, as the real one does it:
// - the line: a bad JSON line (invalid_json) or an oversized one (line_too_large) is answered, then
//   the connection is closed; those answers, duplicate_request_id and connection_busy say
//   protocolVersion "1.0" (the host's default, before it read the command's own);
// - the handshake: "1.0" in its data, the versions in supportedProtocolVersions; another major is
//   incompatible_protocol, then a close;
// - sessions: open (a no-op at the same generation and policy, session_policy_conflict at another
//   policy, a higher generation replaces an idle one, a lower is stale_generation), a catalog that
//   outlives closes, evictions and restarts (a memory session cannot be opened again at its
//   generation: ephemeral_session_unavailable; a durable one can), names (session_name_conflict),
//   cwd roots (cwd_not_allowed, with `allowedRoots`), capacity (session_capacity);
// - subscriptions per connection and (session, generation): attach and detach; only close clears
//   them, so an evicted session reopened at its generation streams to its old subscribers, numbered
//   from 1 again;
// - wakes: a turn's events as pi-daemon sends them; a wake while one runs waits its turn (at most
//   `maxSessionQueueDepth`, then session_queue_full); the same key while in flight joins it; a
//   durable session answers a completed key from its journal (another prompt: idempotency_conflict),
//   a memory one runs it again; without waitForTerminal a durable session answers with a ticket, a
//   memory one refuses (durable_admission_unavailable);
// - its limit on what it sends: an event over it goes as `eventDropped`, an answer as an
//   outbound_record_too_large refusal;
// - steer and followUp only while a turn runs (else session_not_running, retryable); abort; close
//   (idle only, else session_busy; retained dormant by default); drain (waits for turns up to its
//   timeoutMs on the clock, aborts the rest; afterwards open and wake are host_draining, retryable);
//   restart (a new hostInstanceId; durable sessions come back, memory ones do not).
//
// What it leaves out: the model (each wake takes the next scripted turn: a text, or a function of
// the prompt and the messages steered in, finishing at once, after a delay on the injected clock,
// or when the test says — where pi-daemon runs one more model turn per steered message); host tools;
// protocol 1.x beyond the handshake (answered `not_simulated`); idle eviction on a timer (a test
// calls `evict`). Serve it in memory (`link()`) or on a Unix socket (`listen(path)`).

import { createServer, type Server, type Socket } from 'node:net';
import type { Frame } from '../../src/protocol/codec.js';
import type { Link } from '../../src/links/link.js';
import { createMemoryLinkPair } from '../../src/links/memory.js';
import { socketLink } from '../../src/node/socketLink.js';
import { realClock, type Clock, type TimerId } from '../../src/base/clock.js';
import { DAEMON_DRAIN_TIMEOUT_MS, type DaemonCommand } from '../../src/pi/daemonProtocol.js';
import { lineText, readLine, type SimFailure } from './daemonSimLine.js';
import {
  handshakeData,
  HOST_DEFAULT_VERSION,
  hostStatus,
  snapshot,
  turnEndEvents,
  turnStartEvents,
  wakeTicket,
  type HostSource,
  type SnapshotSource,
} from './daemonSimRecords.js';
import type { DaemonSimulatorOptions, ScriptedTurn, TurnRecord, TurnView } from './daemonSimScript.js';

export type { DaemonSimulatorOptions, ScriptedTurn, TurnRecord, TurnView } from './daemonSimScript.js';

interface Connection {
  link: Link;
  inFlight: Set<string>;
  /** sessionId → the generation this connection is attached to (pi-daemon's own bookkeeping). */
  subscriptions: Map<string, number>;
}

/** The host's catalog: every session opened, until closed with retainSession false. */
interface Retained {
  sessionId: string;
  generation: number;
  policy: string;
  durable: boolean;
  name: string | undefined;
  /** The conversation pi keeps for it (a wake's `result.sessionId`). */
  conversationId: string;
  /** Durable sessions' request journal: completed wakes by idempotency key. */
  completed: Map<string, { fingerprint: string; result: unknown }>;
}

interface Session extends SnapshotSource {
  record: Retained;
  mode: string;
  thinkingLevel: string;
  eventVersion: string;
  running: Running | undefined;
  /** Wakes admitted behind the running one. */
  queue: Wake[];
  /** Wakes admitted and not answered, by idempotency key (a retry joins). */
  inFlight: Map<string, Wake>;
  /** steer/followUp idempotency keys → what they carried. */
  controls: Map<string, string>;
}

interface Waiter {
  connection: Connection;
  requestId: string;
  version: string;
}

interface Wake {
  key: string;
  fingerprint: string;
  prompt: string;
  requestId: string;
  /** Who waits for the answer: the wake's own request (with waitForTerminal) and those that joined it. */
  waiters: Waiter[];
}

type Step = Exclude<ScriptedTurn, string | ((turn: TurnView) => string)>;

interface Running {
  wake: Wake;
  turn: TurnRecord;
  step: Step;
  timer?: TimerId;
}

interface Request {
  connection: Connection;
  command: DaemonCommand;
}

type Failure = SimFailure;

interface Drain extends Waiter {
  timeoutMs: number;
  timer: TimerId;
}

export class DaemonSimulator {
  hostInstanceId: string;
  /** What the handshake offers; change it to model an upgraded host. */
  supportedProtocolVersions: string[];
  /** Admission: false answers open and wake with host_not_ready (retryable). */
  ready = true;
  draining = false;
  /** Every command received, as parsed, in order; and every line. */
  readonly received: Array<Record<string, unknown>> = [];
  readonly receivedLines: string[] = [];
  readonly turns: TurnRecord[] = [];
  private readonly sessions = new Map<string, Session>();
  private readonly catalog = new Map<string, Retained>();
  private readonly connections: Connection[] = [];
  private readonly script: ScriptedTurn[] = [];
  private readonly failures: Array<{ operation: string; failure: Failure }> = [];
  private readonly holds: Array<{ operation: string; release?: () => void }> = [];
  private readonly drains: Drain[] = [];
  private readonly clock: Clock;
  private readonly startedAt: number;
  private restarts = 0;
  private unreadable = 0;
  private tickets = 0;

  constructor(private readonly options: DaemonSimulatorOptions = {}) {
    this.clock = options.clock ?? realClock();
    this.startedAt = this.clock.now();
    this.hostInstanceId = options.hostInstanceId ?? 'sim-host-1';
    this.supportedProtocolVersions = [...(options.supportedProtocolVersions ?? ['1.0', '2.0'])];
  }

  /** Serves one more link (a new connection to the same host). */
  serve(link: Link): void {
    const connection: Connection = { link, inFlight: new Set(), subscriptions: new Map() };
    this.connections.push(connection);
    link.listen({ message: (frame) => this.receive(connection, frame), close: () => this.forget(connection) });
  }

  /** A fresh memory link pair, served: returns the client's end. */
  link(): Link {
    const [client, server] = createMemoryLinkPair();
    this.serve(server);
    return client;
  }

  /** Listens on a Unix socket; each connection is served as an NDJSON link. */
  async listen(socketPath: string): Promise<{ close(): Promise<void> }> {
    const sockets = new Set<Socket>();
    // The link itself allows longer lines, so that this host can answer line_too_large as pi-daemon does.
    const server: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      this.serve(socketLink(socket, { maxLineBytes: this.maxLineBytes * 4 }));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => resolve());
    });
    return {
      close: () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          server.close(() => resolve());
        }),
    };
  }

  /** The next wakes' turns, in order. */
  scriptTurns(...turns: ScriptedTurn[]): void {
    this.script.push(...turns);
  }

  /** Finishes the running turn of `sessionId` (or the only one running) now, optionally with this text. */
  finishTurn(sessionId?: string, text?: string): void {
    const session = [...this.sessions.values()].find((s) => s.running !== undefined && (sessionId === undefined || s.sessionId === sessionId));
    if (session === undefined) throw new Error('DaemonSimulator.finishTurn: no turn is running');
    this.finish(session, session.running!, { text });
  }

  /** A turn is running on `sessionId` (or on any session). */
  running(sessionId?: string): boolean {
    return [...this.sessions.values()].some((s) => s.running !== undefined && (sessionId === undefined || s.sessionId === sessionId));
  }

  /** The next request of `operation` ('*': any) fails with this error. */
  failNext(operation: string, failure: Failure): void {
    this.failures.push({ operation, failure });
  }

  /** The next request of `operation` is not answered until the returned function is called. */
  holdNext(operation: string): () => void {
    const hold: { operation: string; release?: () => void } = { operation };
    this.holds.push(hold);
    return () => hold.release?.();
  }

  /** Sends a raw line on the newest open connection: malformed, oversized, a forged event, anything. */
  sendLine(frame: Frame): void {
    this.current().link.send(frame);
  }

  sendRecord(record: Record<string, unknown>): void {
    this.sendLine(JSON.stringify(record));
  }

  /** An event of an open session to its subscribers, numbered as the host numbers them. */
  emit(sessionId: string, event: string, data?: unknown, requestId?: string): void {
    const session = this.sessions.get(sessionId);
    if (session === undefined) throw new Error(`DaemonSimulator.emit: no session ${sessionId}`);
    this.event(session, event, data, requestId);
  }

  /**
   * What the host's idle sweep does after `--idle-session-ttl-ms`: the idle session leaves memory
   * (`sessionDormant`, `sessionEvicted`), stays in the catalog, and every subscription to it stays.
   */
  evict(sessionId: string): void {
    const session = this.sessions.get(sessionId);
    if (session === undefined || session.pendingTurns > 0) throw new Error(`DaemonSimulator.evict: ${sessionId} is not an idle open session`);
    this.event(session, 'sessionDormant', { reason: 'idle_eviction' });
    this.event(session, 'sessionEvicted', { idleForMs: Math.max(0, this.clock.now() - session.lastUsedAt) });
    this.sessions.delete(sessionId);
  }

  /** An open session's state, for assertions (undefined once closed, evicted, or lost in a restart). */
  session(sessionId: string): { generation: number; sequence: number; mode: string; running: boolean; attached: number } | undefined {
    const s = this.sessions.get(sessionId);
    if (s === undefined) return undefined;
    const attached = this.connections.filter((c) => c.subscriptions.get(sessionId) === s.generation).length;
    return { generation: s.generation, sequence: s.sequence, mode: s.mode, running: s.running !== undefined, attached };
  }

  /** The catalog's record of a session: open, or dormant (closed with retainSession, evicted, or a restart's memory session). */
  retained(sessionId: string): { generation: number; durable: boolean; dormant: boolean } | undefined {
    const record = this.catalog.get(sessionId);
    return record === undefined ? undefined : { generation: record.generation, durable: record.durable, dormant: !this.sessions.has(sessionId) };
  }

  /** Closes the newest connection, as a network drop would. */
  drop(reason = 'simulated drop'): void {
    this.current().link.close(reason);
  }

  /**
   * The host process restarts: a new hostInstanceId, every connection closed, every turn gone.
   * Durable sessions are recovered, idle, at their generation (pi-daemon reopens them: sequence 1);
   * memory sessions are not, though the catalog keeps them.
   */
  restart(): void {
    this.restarts += 1;
    this.hostInstanceId = `${this.options.hostInstanceId ?? 'sim-host-1'}-r${this.restarts}`;
    for (const session of this.sessions.values()) if (session.running?.timer !== undefined) this.clock.clearTimeout(session.running.timer);
    for (const drain of this.drains.splice(0)) this.clock.clearTimeout(drain.timer);
    this.draining = false;
    for (const connection of [...this.connections]) connection.link.close('host restarted');
    for (const [sessionId, session] of [...this.sessions]) {
      if (!session.record.durable) {
        this.sessions.delete(sessionId);
        continue;
      }
      Object.assign(session, {
        sequence: 1,
        state: 'idle',
        pendingTurns: 0,
        activeRequestId: undefined,
        lastUsedAt: this.clock.now(),
        running: undefined,
        queue: [],
        inFlight: new Map(),
        controls: new Map(),
      });
    }
  }

  get openConnections(): number {
    return this.connections.filter((c) => c.link.open).length;
  }

  private get maxLineBytes(): number {
    return this.options.maxLineBytes ?? 1024 * 1024;
  }

  private get limits(): HostSource['limits'] {
    return { maxSessions: this.options.maxSessions ?? 128, maxConcurrentTurns: 4, maxSessionQueueDepth: this.options.maxSessionQueueDepth ?? 32 };
  }

  private current(): Connection {
    const connection = this.connections.filter((c) => c.link.open).at(-1);
    if (connection === undefined) throw new Error('DaemonSimulator: no open connection');
    return connection;
  }

  private forget(connection: Connection): void {
    const index = this.connections.indexOf(connection);
    if (index >= 0) this.connections.splice(index, 1);
  }

  // ── the line and the command ───────────────────────────────────────────────────────────────

  private receive(connection: Connection, frame: Frame): void {
    const text = lineText(frame);
    this.receivedLines.push(text);
    const reading = readLine(text, this.maxLineBytes);
    // Every JSON object is kept as received, refused or not.
    if (reading.record !== undefined) this.received.push(reading.record);
    if (reading.kind === 'v1') return this.v1(connection, reading.requestId, reading.version, reading.record);
    if (reading.kind === 'refused') {
      this.refuseLine(connection, reading.requestId, reading.version, reading.failure);
      if (reading.ends) connection.link.close(reading.failure.code);
      return;
    }
    const { command } = reading;
    const operation = command.operation;
    // Connection-level refusals are made before the command's version is taken: "1.0".
    if (connection.inFlight.has(command.requestId))
      return this.refuseLine(connection, command.requestId, HOST_DEFAULT_VERSION, { code: 'duplicate_request_id', message: 'requestId is already in flight' });
    if (connection.inFlight.size >= (this.options.maxInFlight ?? 64))
      return this.refuseLine(connection, command.requestId, HOST_DEFAULT_VERSION, {
        code: 'connection_busy',
        message: 'connection request capacity reached',
        retryable: true,
      });
    const request: Request = { connection, command };
    const failure = this.take(this.failures, (f) => f.operation === '*' || f.operation === operation);
    if (failure !== undefined) return this.fail(request, failure.failure);
    const hold = this.take(this.holds, (h) => h.operation === '*' || h.operation === operation);
    if (hold !== undefined) {
      connection.inFlight.add(command.requestId);
      hold.release = () => {
        connection.inFlight.delete(command.requestId);
        this.handle(request);
      };
      return;
    }
    this.handle(request);
  }

  /** Protocol 1.x: the handshake is answered as 0.3.3 answers a v1 one; nothing else is simulated. */
  private v1(connection: Connection, requestId: string | undefined, version: string, fields: Record<string, unknown>): void {
    if (fields['operation'] === 'handshake' && requestId !== undefined) {
      return this.send(connection, {
        protocolVersion: version,
        kind: 'response',
        requestId,
        hostInstanceId: this.hostInstanceId,
        ok: true,
        data: handshakeData(this.hostSource(), this.connectionLimits(), this.supportedProtocolVersions, false, this.clock.now()),
      });
    }
    this.refuseLine(connection, requestId, version, {
      code: 'not_simulated',
      message: 'DaemonSimulator: protocol 1.x is not simulated beyond the handshake; test it against the real pi-daemon',
    });
  }

  private handle(request: Request): void {
    switch (request.command.operation) {
      case 'handshake':
        return this.ok(request, handshakeData(this.hostSource(), this.connectionLimits(), this.supportedProtocolVersions, true, this.clock.now()));
      case 'status':
        return this.status(request);
      case 'drain':
        return this.drain(request);
      case 'open':
        return this.open(request);
      case 'attach':
      case 'detach':
        return this.subscription(request);
      case 'wake':
        return this.wake(request);
      case 'steer':
      case 'followUp':
        return this.queue(request);
      case 'abort':
        return this.abort(request);
      case 'close':
        return this.close(request);
    }
  }

  // ── the host ───────────────────────────────────────────────────────────────────────────────

  private hostSource(): HostSource {
    const sessions = [...this.sessions.values()];
    return {
      hostInstanceId: this.hostInstanceId,
      ready: this.ready,
      draining: this.draining,
      startedAt: this.startedAt,
      limits: this.limits,
      sessions,
      retainedSessions: this.catalog.size,
      dormantSessions: [...this.catalog.keys()].filter((id) => !this.sessions.has(id)).length,
    };
  }

  private connectionLimits() {
    return { maxInFlightRequestsPerConnection: this.options.maxInFlight ?? 64, maxLineBytes: this.maxLineBytes };
  }

  /** open and wake only: pi-daemon admits every other operation while starting or draining. */
  private admitting(request: Request): boolean {
    if (!this.ready) this.fail(request, { code: 'host_not_ready', message: 'durable state must be recovered before admitting requests', retryable: true });
    else if (this.draining) this.fail(request, { code: 'host_draining', message: `host is draining; ${request.command.operation} rejected`, retryable: true });
    else return true;
    return false;
  }

  private status(request: Request): void {
    const { sessionId } = request.command;
    if (sessionId === undefined) return this.ok(request, hostStatus(this.hostSource(), this.clock.now()));
    const session = this.sessions.get(sessionId);
    if (session === undefined) return this.fail(request, { code: 'session_not_found', message: 'logical session is not open' });
    // The snapshot itself, not wrapped in { session }.
    this.ok(request, snapshot(session, this.clock.now()));
  }

  private drain(request: Request): void {
    if (!this.draining) {
      this.draining = true;
      // Each open session hears it once, when the host starts draining.
      for (const session of this.sessions.values()) this.event(session, 'hostDraining', {});
    }
    const timeoutMs = (request.command.payload as { timeoutMs?: number }).timeoutMs ?? DAEMON_DRAIN_TIMEOUT_MS;
    if (!this.busy()) return this.ok(request, { draining: true, timeoutMs, timedOut: false, abortedTurns: 0 });
    const { connection, command } = request;
    connection.inFlight.add(command.requestId);
    const drain: Drain = { connection, requestId: command.requestId, version: command.protocolVersion, timeoutMs, timer: 0 };
    drain.timer = this.clock.setTimeout(() => this.drainTimedOut(drain), timeoutMs);
    this.drains.push(drain);
  }

  private busy(): boolean {
    return [...this.sessions.values()].some((s) => s.pendingTurns > 0);
  }

  /** A turn ended: drains waiting for the last one answer. */
  private drained(): void {
    if (this.drains.length === 0 || this.busy()) return;
    for (const drain of this.drains.splice(0)) {
      this.clock.clearTimeout(drain.timer);
      this.answer(drain, { draining: true, timeoutMs: drain.timeoutMs, timedOut: false, abortedTurns: 0 });
    }
  }

  /** The drain's time is up: every queued wake fails with `aborted`, every running turn is aborted. */
  private drainTimedOut(drain: Drain): void {
    const index = this.drains.indexOf(drain);
    if (index < 0) return;
    this.drains.splice(index, 1);
    let abortedTurns = 0;
    for (const session of this.sessions.values()) {
      for (const wake of session.queue.splice(0)) {
        abortedTurns += 1;
        session.pendingTurns -= 1;
        session.inFlight.delete(wake.key);
        for (const waiter of wake.waiters) this.failWaiter(waiter, session, { code: 'aborted', message: 'logical session turn was aborted', retryable: true });
      }
      if (session.running !== undefined) {
        abortedTurns += 1;
        this.finish(session, session.running, { aborted: true });
      }
    }
    this.answer(drain, { draining: true, timeoutMs: drain.timeoutMs, timedOut: true, abortedTurns });
  }

  // ── sessions ───────────────────────────────────────────────────────────────────────────────

  private open(request: Request): void {
    if (!this.admitting(request)) return;
    const { sessionId, generation } = request.command as DaemonCommand & SessionFields;
    const payload = request.command.payload as {
      cwd: string;
      session: { mode: string };
      name?: string;
      model?: { provider: string; id: string; thinkingLevel?: string };
    };
    const policy = canonicalJson(payload);
    const live = this.sessions.get(sessionId);
    const retained = this.catalog.get(sessionId);
    const stale = (current: number): void =>
      this.fail(request, {
        code: 'stale_generation',
        message: 'session generation is stale',
        details: { currentGeneration: current, receivedGeneration: generation },
      });
    const conflict = (which: string, at: number): void =>
      this.fail(request, { code: 'session_policy_conflict', message: `open policy differs for the ${which} generation`, details: { generation: at } });
    if (live === undefined && retained !== undefined) {
      if (generation < retained.generation) return stale(retained.generation);
      if (generation === retained.generation && policy !== retained.policy) return conflict('retained', retained.generation);
    }
    if (live !== undefined) {
      if (generation < live.generation) return stale(live.generation);
      if (generation === live.generation) {
        if (policy !== live.record.policy) return conflict('current', live.generation);
        live.lastUsedAt = this.clock.now();
        return this.ok(request, { created: false, session: snapshot(live, this.clock.now()) }, live.sequence);
      }
      if (live.pendingTurns > 0)
        return this.fail(request, {
          code: 'session_busy',
          message: 'cannot replace a session generation while turns are pending',
          retryable: true,
          details: { currentGeneration: live.generation },
        });
    } else if (this.sessions.size >= this.limits.maxSessions) {
      return this.fail(request, {
        code: 'session_capacity',
        message: 'logical session capacity reached',
        retryable: true,
        details: { maxSessions: this.limits.maxSessions },
      });
    }
    const roots = this.options.allowedRoots;
    if (roots !== undefined && !roots.some((root) => payload.cwd === root || payload.cwd.startsWith(`${root.replace(/\/$/, '')}/`))) {
      return this.fail(request, { code: 'cwd_not_allowed', message: 'logical session cwd is outside allowed roots' });
    }
    const sameIncarnation = retained !== undefined && retained.generation === generation;
    if (sameIncarnation && !retained.durable)
      return this.fail(request, { code: 'ephemeral_session_unavailable', message: 'memory-only session cannot be reopened after eviction or restart' });
    for (const other of this.catalog.values()) {
      if (other.sessionId === sessionId) continue;
      if (payload.name !== undefined && (other.name === payload.name || other.sessionId === payload.name))
        return this.fail(request, { code: 'session_name_conflict', message: 'session name is already in use', details: { name: payload.name } });
      if (other.name === sessionId)
        return this.fail(request, { code: 'session_name_conflict', message: 'session ID conflicts with an existing session name', details: { sessionId } });
    }
    if (live !== undefined) this.sessions.delete(sessionId);
    const durable = payload.session.mode !== 'memory';
    const record: Retained = sameIncarnation
      ? retained
      : { sessionId, generation, policy, durable, name: payload.name, conversationId: `sim-conversation-${sessionId}-${generation}`, completed: new Map() };
    this.catalog.set(sessionId, record);
    const model =
      payload.model === undefined ? (this.options.model ?? { provider: 'sim', id: 'sim-model' }) : { provider: payload.model.provider, id: payload.model.id };
    const session: Session = {
      sessionId,
      generation,
      state: 'idle',
      sequence: 0,
      pendingTurns: 0,
      lastUsedAt: this.clock.now(),
      activeRequestId: undefined,
      model,
      record,
      mode: payload.session.mode,
      thinkingLevel: payload.model?.thinkingLevel ?? 'off',
      eventVersion: request.command.protocolVersion,
      running: undefined,
      queue: [],
      inFlight: new Map(),
      controls: new Map(),
    };
    this.sessions.set(sessionId, session);
    // The event before the answer: the answer's sequence counts it.
    this.event(session, 'opened', { state: 'idle' }, request.command.requestId);
    this.ok(request, { created: true, session: snapshot(session, this.clock.now()) }, session.sequence);
  }

  /** The open session a command names, or a refusal: not open, or another generation. */
  private require(request: Request): Session | undefined {
    const { sessionId, generation } = request.command as DaemonCommand & SessionFields;
    const session = this.sessions.get(sessionId);
    if (session === undefined) this.fail(request, { code: 'session_not_found', message: 'logical session is not open' });
    else if (session.generation !== generation)
      this.fail(request, {
        code: 'stale_generation',
        message: 'session generation does not match',
        details: { currentGeneration: session.generation, receivedGeneration: generation },
      });
    else return session;
    return undefined;
  }

  private subscription(request: Request): void {
    const session = this.require(request);
    if (session === undefined) return;
    const { connection, command } = request;
    const generation = command.generation!;
    if (command.operation === 'attach') {
      connection.subscriptions.set(session.sessionId, generation);
      return this.ok(request, { attached: true, generation, sequence: session.sequence }, session.sequence);
    }
    const detached = connection.subscriptions.get(session.sessionId) === generation;
    if (detached) connection.subscriptions.delete(session.sessionId);
    this.ok(request, { detached, generation, sequence: session.sequence }, session.sequence);
  }

  private close(request: Request): void {
    const { sessionId, generation } = request.command as DaemonCommand & SessionFields;
    const retain = (request.command.payload as { retainSession?: boolean }).retainSession ?? true;
    const live = this.sessions.get(sessionId);
    const retained = this.catalog.get(sessionId);
    if (live === undefined) {
      if (retained === undefined) return this.ok(request, { closed: false });
      if (retained.generation !== generation)
        return this.fail(request, {
          code: 'stale_generation',
          message: 'session generation does not match',
          details: { currentGeneration: retained.generation, receivedGeneration: generation },
        });
      if (!retain) {
        this.catalog.delete(sessionId);
        // Numbered 1 outside any incarnation, as pi-daemon numbers it.
        this.publish(
          sessionId,
          generation,
          { event: 'sessionDeleted', sequence: 1, requestId: request.command.requestId, data: {} },
          request.command.protocolVersion,
        );
      }
      this.unsubscribeAll(sessionId);
      return this.ok(request, { closed: true });
    }
    if (live.generation !== generation)
      return this.fail(request, {
        code: 'stale_generation',
        message: 'session generation does not match',
        details: { currentGeneration: live.generation, receivedGeneration: generation },
      });
    if (live.pendingTurns > 0) return this.fail(request, { code: 'session_busy', message: 'cannot close a session with pending turns', retryable: true });
    this.event(live, retain ? 'sessionDormant' : 'sessionDeleted', {}, request.command.requestId);
    this.event(live, 'sessionClosed', { retainSession: retain }, request.command.requestId);
    this.sessions.delete(sessionId);
    if (!retain) this.catalog.delete(sessionId);
    this.unsubscribeAll(sessionId);
    this.ok(request, { closed: true });
  }

  private unsubscribeAll(sessionId: string): void {
    for (const connection of this.connections) connection.subscriptions.delete(sessionId);
  }

  // ── wakes ──────────────────────────────────────────────────────────────────────────────────

  private wake(request: Request): void {
    if (!this.admitting(request)) return;
    const session = this.require(request);
    if (session === undefined) return;
    const { connection, command } = request;
    const key = command.idempotencyKey!;
    const payload = command.payload as { prompt: string; waitForTerminal?: boolean; source?: string };
    const terminal = payload.waitForTerminal !== false;
    if (!terminal && !session.record.durable)
      return this.fail(request, { code: 'durable_admission_unavailable', message: 'memory-only sessions cannot create durable wake tickets' });
    const fingerprint = canonicalJson({ prompt: payload.prompt, source: payload.source ?? null });
    const waiter: Waiter = { connection, requestId: command.requestId, version: command.protocolVersion };
    const joined = session.inFlight.get(key);
    if (joined !== undefined) {
      if (joined.fingerprint !== fingerprint)
        return this.fail(request, { code: 'idempotency_conflict', message: 'idempotency key is active for a different wake request' });
      if (!terminal) return this.ok(request, this.ticket(command, session));
      connection.inFlight.add(command.requestId);
      joined.waiters.push(waiter);
      return;
    }
    if (session.pendingTurns >= this.limits.maxSessionQueueDepth + 1) {
      return this.fail(request, {
        code: 'session_queue_full',
        message: 'logical session turn queue is full',
        retryable: true,
        details: { maxSessionQueueDepth: this.limits.maxSessionQueueDepth },
      });
    }
    const journal = session.record.durable ? session.record.completed.get(key) : undefined;
    if (journal !== undefined) {
      if (journal.fingerprint !== fingerprint)
        return this.fail(request, {
          code: 'idempotency_conflict',
          message: 'idempotency key was already used for a different wake request',
          details: { sessionId: session.sessionId, idempotencyKey: key },
        });
      return this.ok(request, { result: journal.result, session: snapshot(session, this.clock.now()) }, session.sequence);
    }
    session.pendingTurns += 1;
    if (session.pendingTurns === 1) session.activeRequestId = command.requestId;
    const wake: Wake = { key, fingerprint, prompt: payload.prompt, requestId: command.requestId, waiters: terminal ? [waiter] : [] };
    session.inFlight.set(key, wake);
    if (terminal) connection.inFlight.add(command.requestId);
    this.event(session, 'promptAccepted', { idempotencyKey: key, queuedTurns: session.pendingTurns - 1 }, command.requestId);
    if (!terminal) this.ok(request, this.ticket(command, session));
    if (session.running === undefined) this.start(session, wake);
    else session.queue.push(wake);
  }

  private ticket(command: DaemonCommand, session: Session): Record<string, unknown> {
    return wakeTicket(
      {
        n: ++this.tickets,
        requestId: command.requestId,
        idempotencyKey: command.idempotencyKey!,
        sessionId: session.sessionId,
        generation: session.generation,
      },
      this.clock.now(),
    );
  }

  private start(session: Session, wake: Wake): void {
    const next = this.script.shift() ?? this.options.fallbackReply ?? '';
    const step: Step = typeof next === 'string' || typeof next === 'function' ? { text: next } : next;
    const turn: TurnRecord = {
      sessionId: session.sessionId,
      generation: session.generation,
      prompt: wake.prompt,
      steers: [],
      followUps: [],
      idempotencyKey: wake.key,
      done: false,
    };
    this.turns.push(turn);
    const running: Running = { wake, turn, step };
    session.running = running;
    session.state = 'running';
    session.activeRequestId = wake.requestId;
    for (const [event, data] of turnStartEvents(wake.prompt, this.clock.now())) this.event(session, event, data, wake.requestId);
    if (step.hold === true) return;
    if (step.delayMs !== undefined) running.timer = this.clock.setTimeout(() => this.finish(session, running), step.delayMs);
    else queueMicrotask(() => this.finish(session, running));
  }

  private queue(request: Request): void {
    const session = this.require(request);
    if (session === undefined) return;
    const { command } = request;
    const key = command.idempotencyKey!;
    const fingerprint = canonicalJson({
      operation: command.operation,
      sessionId: command.sessionId,
      generation: command.generation,
      idempotencyKey: key,
      payload: command.payload,
    });
    const seen = session.controls.get(key);
    if (seen !== undefined) {
      if (seen !== fingerprint)
        return this.fail(request, { code: 'idempotency_conflict', message: 'control idempotency key was used for a different command' });
      return this.ok(request, { queued: true });
    }
    const running = session.running;
    if (running === undefined)
      return this.fail(request, { code: 'session_not_running', message: 'logical session is not running', retryable: true, details: { state: session.state } });
    session.controls.set(key, fingerprint);
    const turn = running.turn;
    (command.operation === 'steer' ? turn.steers : turn.followUps).push((command.payload as { message: string }).message);
    this.event(session, 'queueUpdate', { steering: [...turn.steers], followUp: [...turn.followUps] }, running.wake.requestId);
    this.ok(request, { queued: true });
  }

  private abort(request: Request): void {
    const session = this.require(request);
    if (session === undefined) return;
    const running = session.running;
    if (running !== undefined) this.finish(session, running, { aborted: true });
    this.ok(request, { aborted: running !== undefined });
  }

  /** The turn ends (or is aborted, leaving its partial text): its events, then every waiter's answer; the next queued wake starts. */
  private finish(session: Session, running: Running, how: { text?: string | undefined; aborted?: boolean } = {}): void {
    if (session.running !== running || this.sessions.get(session.sessionId) !== session) return;
    if (running.timer !== undefined) this.clock.clearTimeout(running.timer);
    const { turn, step, wake } = running;
    const aborted = how.aborted === true;
    const text = aborted ? (step.partial ?? '') : (how.text ?? (typeof step.text === 'function' ? step.text(turn) : step.text));
    Object.assign(turn, { text, done: true, ...(aborted && { aborted: true }) });
    const now = this.clock.now();
    for (const [event, data] of turnEndEvents(text, session.model, now, aborted, step.usage)) this.event(session, event, data, wake.requestId);
    session.state = 'idle';
    session.lastUsedAt = now;
    const record = session.record;
    // A turn aborted before any text answers with no text at all, as pi-daemon's does.
    const result = {
      ...(!(aborted && text === '') && { text }),
      sessionId: record.conversationId,
      ...(record.durable && { sessionFile: `sim-sessions/${record.conversationId}.jsonl` }),
      model: { ...session.model },
      thinkingLevel: session.thinkingLevel,
    };
    // Taken before the turn is released, as pi-daemon takes it: it still counts itself and names its request.
    const data = { result, session: snapshot(session, now) };
    if (record.durable) record.completed.set(wake.key, { fingerprint: wake.fingerprint, result });
    session.pendingTurns -= 1;
    session.activeRequestId = undefined;
    session.running = undefined;
    session.inFlight.delete(wake.key);
    for (const waiter of wake.waiters) this.answer(waiter, data, session);
    const next = session.queue.shift();
    if (next !== undefined) this.start(session, next);
    this.drained();
  }

  // ── records out ────────────────────────────────────────────────────────────────────────────

  private event(session: Session, event: string, data?: unknown, requestId?: string): void {
    session.sequence += 1;
    this.publish(
      session.sessionId,
      session.generation,
      { event, sequence: session.sequence, ...(requestId !== undefined && { requestId }), ...(data !== undefined && { data }) },
      session.eventVersion,
    );
  }

  /**
   * To every connection attached to (sessionId, generation). An event whose line would pass the
   * host's limit goes as `eventDropped` in its place, with its sequence, as pi-daemon sends it.
   */
  private publish(
    sessionId: string,
    generation: number,
    fields: { event: string; sequence: number; requestId?: string; data?: unknown },
    version: string,
  ): void {
    const { event, sequence, ...rest } = fields;
    const envelope = { protocolVersion: version, kind: 'event', hostInstanceId: this.hostInstanceId, sessionId, generation, sequence };
    let line = JSON.stringify({ ...envelope, event, ...rest });
    if (this.tooLong(line)) {
      line = JSON.stringify({
        ...envelope,
        event: 'eventDropped',
        ...(rest.requestId !== undefined && { requestId: rest.requestId }),
        data: { originalEvent: event, error: this.tooLarge() },
      });
    }
    for (const connection of this.connections) if (connection.subscriptions.get(sessionId) === generation) connection.link.send(line);
  }

  /** A record whose line, with its newline, would pass the host's limit for what it sends. */
  private tooLong(line: string): boolean {
    return new TextEncoder().encode(line).byteLength + 1 > this.maxLineBytes;
  }

  private tooLarge(): Record<string, unknown> {
    return {
      code: 'outbound_record_too_large',
      message: 'outbound record exceeds configured byte limit',
      retryable: false,
      details: { maxBytes: this.maxLineBytes },
    };
  }

  /** A success, with the command's version and sessionId; `sequence` where pi-daemon puts one (open, wake, attach, detach). */
  private ok(request: Request, data: unknown, sequence?: number): void {
    const { connection, command } = request;
    this.send(connection, {
      protocolVersion: command.protocolVersion,
      kind: 'response',
      requestId: command.requestId,
      hostInstanceId: this.hostInstanceId,
      ...(command.sessionId !== undefined && { sessionId: command.sessionId }),
      ...(sequence !== undefined && { sequence }),
      ok: true,
      data,
    });
  }

  /** A refusal of a command read in full: its version and sessionId. */
  private fail(request: Request, failure: Failure): void {
    const { connection, command } = request;
    this.send(connection, {
      protocolVersion: command.protocolVersion,
      kind: 'response',
      requestId: command.requestId,
      hostInstanceId: this.hostInstanceId,
      ...(command.sessionId !== undefined && { sessionId: command.sessionId }),
      ok: false,
      error: errorBody(failure),
    });
  }

  /** A refusal of a line or a command not read in full (no sessionId), or of the connection ("1.0"). */
  private refuseLine(connection: Connection, requestId: string | undefined, version: string, failure: Failure): void {
    this.send(connection, {
      protocolVersion: version,
      kind: 'response',
      requestId: requestId ?? `invalid-${++this.unreadable}`,
      hostInstanceId: this.hostInstanceId,
      ok: false,
      error: errorBody(failure),
    });
  }

  /** The late answer to a request that waited (a wake, a drain). */
  private answer(waiter: Waiter, data: unknown, session?: Session): void {
    waiter.connection.inFlight.delete(waiter.requestId);
    if (!waiter.connection.link.open) return;
    this.send(waiter.connection, {
      protocolVersion: waiter.version,
      kind: 'response',
      requestId: waiter.requestId,
      hostInstanceId: this.hostInstanceId,
      ...(session !== undefined && { sessionId: session.sessionId, sequence: session.sequence }),
      ok: true,
      data,
    });
  }

  private failWaiter(waiter: Waiter, session: Session, failure: Failure): void {
    waiter.connection.inFlight.delete(waiter.requestId);
    if (!waiter.connection.link.open) return;
    this.send(waiter.connection, {
      protocolVersion: waiter.version,
      kind: 'response',
      requestId: waiter.requestId,
      hostInstanceId: this.hostInstanceId,
      sessionId: session.sessionId,
      ok: false,
      error: errorBody(failure),
    });
  }

  /** A response; one whose line would pass the host's limit becomes an outbound_record_too_large refusal. */
  private send(connection: Connection, record: Record<string, unknown>): void {
    let line = JSON.stringify(record);
    if (this.tooLong(line)) {
      const { protocolVersion, kind, requestId, hostInstanceId, sessionId } = record;
      line = JSON.stringify({
        protocolVersion,
        kind,
        requestId,
        hostInstanceId,
        ...(sessionId !== undefined && { sessionId }),
        ok: false,
        error: this.tooLarge(),
      });
    }
    connection.link.send(line);
  }

  private take<T>(list: T[], match: (item: T) => boolean): T | undefined {
    const index = list.findIndex(match);
    return index < 0 ? undefined : list.splice(index, 1)[0];
  }
}

interface SessionFields {
  sessionId: string;
  generation: number;
}

function errorBody(failure: Failure): Record<string, unknown> {
  return {
    code: failure.code,
    message: failure.message,
    retryable: failure.retryable ?? false,
    ...(failure.details !== undefined && { details: failure.details }),
  };
}

/** JSON with sorted keys: the same policy however its keys were ordered. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
