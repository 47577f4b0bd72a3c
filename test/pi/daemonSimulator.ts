// A pi-daemon protocol v2 host for tests, written from schemas/pi-daemon-protocol-v2.schema.json and
// what pi-daemon 0.3.3 was observed to do (/work/shared/reference/pi-protocols.md §3), quirks
// included: the handshake's data says "1.0"; sequences restart at 1 on every (re)open; steer and
// followUp while idle fail with session_not_running; a bad JSON line (or an oversized one) gets an
// error response and the connection is closed; memory sessions do not dedupe completed
// idempotency keys (durable ones return the cached result); a duplicate in-flight requestId gets
// duplicate_request_id; after drain everything gets host_draining.
//
// Its "model" is scripted: each wake takes the next scripted turn (a text, or a function of the
// prompt and the messages steered in), finishing at once, after a delay on the injected clock, or
// when the test says. Serve it in memory (`link()`) or on a Unix socket (`listen(path)`).

import { createServer, type Server, type Socket } from 'node:net';
import type { Frame } from '../../src/protocol/codec.js';
import type { Link } from '../../src/links/link.js';
import { createMemoryLinkPair } from '../../src/links/memory.js';
import { socketLink } from '../../src/node/socketLink.js';
import { realClock, type Clock } from '../../src/runtime/clock.js';
import { validateDaemonCommand } from '../../src/pi/generated/daemon-validators.js';
import { DAEMON_OPERATIONS, type DaemonCommand, type DaemonWireError } from '../../src/pi/daemonProtocol.js';
import type { DaemonSimulatorOptions, ScriptedTurn, TurnRecord, TurnView } from './daemonSimScript.js';

export type { DaemonSimulatorOptions, ScriptedTurn, TurnRecord, TurnView } from './daemonSimScript.js';

interface Connection {
  link: Link;
  inFlight: Set<string>;
}

interface Session {
  sessionId: string;
  generation: number;
  policy: string;
  mode: string;
  model: unknown;
  sequence: number;
  attached: Set<Connection>;
  running: Running | undefined;
  /** Durable sessions: completed wakes by idempotency key. */
  completed: Map<string, { prompt: string; data: unknown }>;
}

interface Running {
  turn: TurnRecord;
  step: Exclude<ScriptedTurn, string | ((turn: TurnView) => string)>;
  connection: Connection;
  requestId: string;
  waitForTerminal: boolean;
  timer?: number;
}

type Failure = Omit<DaemonWireError, 'retryable'> & { retryable?: boolean };

const OPERATIONS: ReadonlySet<string> = new Set(DAEMON_OPERATIONS);

export class DaemonSimulator {
  hostInstanceId: string;
  /** What the handshake offers; change it to model an upgraded host. */
  supportedProtocolVersions: string[];
  /** Admission: false answers host_not_ready to all but handshake and status. */
  ready = true;
  draining = false;
  /** Every command received, as parsed, in order; and every line. */
  readonly received: Array<Record<string, unknown>> = [];
  readonly receivedLines: string[] = [];
  readonly turns: TurnRecord[] = [];
  private readonly sessions = new Map<string, Session>();
  private readonly connections: Connection[] = [];
  private readonly script: ScriptedTurn[] = [];
  private readonly failures: Array<{ operation: string; failure: Failure }> = [];
  private readonly holds: Array<{ operation: string; release?: () => void }> = [];
  private readonly clock: Clock;
  private restarts = 0;

  constructor(private readonly options: DaemonSimulatorOptions = {}) {
    this.clock = options.clock ?? realClock();
    this.hostInstanceId = options.hostInstanceId ?? 'sim-host-1';
    this.supportedProtocolVersions = [...(options.supportedProtocolVersions ?? ['1.0', '2.0'])];
  }

  /** Serves one more link (a new connection to the same host). */
  serve(link: Link): void {
    const connection: Connection = { link, inFlight: new Set() };
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
    this.finish(session, text === undefined ? undefined : { text });
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

  /** An event of an open session to its attached connections, numbered as the host numbers them. */
  emit(sessionId: string, event: string, data?: unknown, requestId?: string): void {
    const session = this.sessions.get(sessionId);
    if (session === undefined) throw new Error(`DaemonSimulator.emit: no session ${sessionId}`);
    this.event(session, event, data, requestId);
  }

  /** Session state, for assertions. */
  session(sessionId: string): { generation: number; sequence: number; mode: string; running: boolean; attached: number } | undefined {
    const s = this.sessions.get(sessionId);
    return s === undefined ? undefined : { generation: s.generation, sequence: s.sequence, mode: s.mode, running: s.running !== undefined, attached: s.attached.size };
  }

  /** Closes the newest connection, as a network drop would. */
  drop(reason = 'simulated drop'): void {
    this.current().link.close(reason);
  }

  /** The host process restarts: a new hostInstanceId, every connection closed, every session gone. */
  restart(): void {
    this.restarts += 1;
    this.hostInstanceId = `${this.options.hostInstanceId ?? 'sim-host-1'}-r${this.restarts}`;
    for (const session of this.sessions.values()) if (session.running?.timer !== undefined) this.clock.clearTimeout(session.running.timer);
    this.sessions.clear();
    this.draining = false;
    for (const connection of [...this.connections]) connection.link.close('host restarted');
  }

  get openConnections(): number {
    return this.connections.filter((c) => c.link.open).length;
  }

  private get maxLineBytes(): number {
    return this.options.maxLineBytes ?? 1024 * 1024;
  }

  private current(): Connection {
    const connection = this.connections.filter((c) => c.link.open).at(-1);
    if (connection === undefined) throw new Error('DaemonSimulator: no open connection');
    return connection;
  }

  private forget(connection: Connection): void {
    const index = this.connections.indexOf(connection);
    if (index >= 0) this.connections.splice(index, 1);
    for (const session of this.sessions.values()) session.attached.delete(connection);
  }

  // ── commands ───────────────────────────────────────────────────────────────────────────────

  private receive(connection: Connection, frame: Frame): void {
    const text = typeof frame === 'string' ? frame : frame instanceof Uint8Array ? new TextDecoder().decode(frame) : JSON.stringify(frame);
    this.receivedLines.push(text);
    if (new TextEncoder().encode(text).byteLength > this.maxLineBytes) {
      this.respondError(connection, 'unknown', { code: 'line_too_large', message: `line exceeds ${this.maxLineBytes} bytes` });
      return connection.link.close('line_too_large');
    }
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(text) as Record<string, unknown>;
      if (record === null || typeof record !== 'object' || Array.isArray(record)) throw new Error('not an object');
    } catch {
      this.respondError(connection, 'unknown', { code: 'invalid_json', message: 'line is not a JSON object' });
      return connection.link.close('invalid_json');
    }
    this.received.push(record);
    const requestId = typeof record['requestId'] === 'string' && record['requestId'] !== '' ? record['requestId'] : 'unknown';
    const version = record['protocolVersion'];
    if (typeof version !== 'string' || !/^2\.\d+$/.test(version)) {
      this.respondError(connection, requestId, { code: 'incompatible_protocol', message: `protocol ${String(version)} is not supported`, details: { supportedProtocolVersions: this.supported() } });
      return connection.link.close('incompatible_protocol');
    }
    const operation = String(record['operation']);
    if (!OPERATIONS.has(operation)) return this.respondError(connection, requestId, { code: 'unknown_operation', message: `unknown operation ${operation}` });
    if (!validateDaemonCommand(record)) return this.respondError(connection, requestId, { code: 'invalid_field', message: `${validateDaemonCommand.errors?.[0]?.instancePath ?? ''} ${validateDaemonCommand.errors?.[0]?.message ?? 'invalid'}` });
    if (connection.inFlight.has(requestId)) return this.respondError(connection, requestId, { code: 'duplicate_request_id', message: `${requestId} is still running` });
    if (connection.inFlight.size >= (this.options.maxInFlight ?? 16)) return this.respondError(connection, requestId, { code: 'connection_busy', message: 'too many requests in flight', retryable: true });
    const command = record as unknown as DaemonCommand;
    const failure = this.take(this.failures, (f) => f.operation === '*' || f.operation === operation);
    if (failure !== undefined) return this.respondError(connection, requestId, failure.failure);
    const hold = this.take(this.holds, (h) => h.operation === '*' || h.operation === operation);
    if (hold !== undefined) {
      connection.inFlight.add(requestId);
      hold.release = () => {
        connection.inFlight.delete(requestId);
        this.handle(connection, command);
      };
      return;
    }
    this.handle(connection, command);
  }

  private handle(connection: Connection, command: DaemonCommand): void {
    const { operation, requestId } = command;
    if (operation === 'handshake') return this.respond(connection, requestId, this.handshake());
    if (operation === 'status') return this.status(connection, command);
    if (!this.ready) return this.respondError(connection, requestId, { code: 'host_not_ready', message: 'host is starting', retryable: true });
    if (this.draining) return this.respondError(connection, requestId, { code: 'host_draining', message: 'host is draining' });
    if (operation === 'drain') {
      this.draining = true;
      return this.respond(connection, requestId, { draining: true, running: [...this.sessions.values()].filter((s) => s.running !== undefined).length });
    }
    if (operation === 'open') return this.open(connection, command);
    const session = this.sessionFor(connection, command);
    if (session === undefined) return;
    switch (operation) {
      case 'attach':
        session.attached.add(connection);
        return this.respond(connection, requestId, { attached: true, generation: session.generation, sequence: session.sequence }, session);
      case 'detach':
        session.attached.delete(connection);
        return this.respond(connection, requestId, { detached: true }, session);
      case 'wake':
        return this.wake(connection, command, session);
      case 'steer':
      case 'followUp':
        return this.queue(connection, command, session);
      case 'abort': {
        const running = session.running !== undefined;
        if (running) this.finish(session, undefined, true);
        return this.respond(connection, requestId, { aborted: running }, session);
      }
      case 'close':
        return this.close(connection, command, session);
    }
  }

  private handshake(): Record<string, unknown> {
    // Observed: "1.0" here even for a v2 request; clients negotiate from supportedProtocolVersions.
    return {
      protocolVersion: '1.0',
      supportedProtocolVersions: this.supported(),
      capabilities: { sessionModes: ['new', 'open', 'continue', 'memory'], events: true, hostToolAdapter: false },
      limits: { maxLineBytes: this.maxLineBytes, maxQueuedMessages: this.options.maxQueuedMessages ?? 8, maxInFlight: this.options.maxInFlight ?? 16 },
      host: { hostInstanceId: this.hostInstanceId, ready: this.ready, draining: this.draining, version: '0.3.3-sim' },
    };
  }

  private supported(): string[] {
    return [...this.supportedProtocolVersions];
  }

  private status(connection: Connection, command: DaemonCommand): void {
    const sessionId = command.sessionId;
    if (sessionId === undefined) return this.respond(connection, command.requestId, { host: this.handshake()['host'], sessions: this.sessions.size });
    const session = this.sessions.get(sessionId);
    if (session === undefined) return this.respondError(connection, command.requestId, { code: 'session_not_found', message: `no session ${sessionId}` });
    this.respond(connection, command.requestId, { session: this.snapshot(session) }, session);
  }

  private open(connection: Connection, command: DaemonCommand): void {
    const { sessionId, generation, requestId } = command as DaemonCommand & { sessionId: string; generation: number };
    const policy = JSON.stringify(command.payload);
    const existing = this.sessions.get(sessionId);
    if (existing !== undefined) {
      if (generation < existing.generation) return this.respondError(connection, requestId, { code: 'stale_generation', message: `generation ${generation} < ${existing.generation}` });
      if (generation === existing.generation) {
        if (existing.policy === policy) return this.respond(connection, requestId, { created: false, session: this.snapshot(existing) }, existing);
        return this.respondError(connection, requestId, { code: 'session_policy_conflict', message: 'another policy at this generation' });
      }
      if (existing.running !== undefined) return this.respondError(connection, requestId, { code: 'session_busy', message: 'a wake is running', retryable: true });
    }
    const payload = command.payload as { session: { mode: string }; model?: unknown };
    const session: Session = { sessionId, generation, policy, mode: payload.session.mode, model: payload.model ?? { provider: 'sim', id: 'sim-model' }, sequence: 0, attached: new Set(), running: undefined, completed: new Map() };
    this.sessions.set(sessionId, session);
    this.respond(connection, requestId, { created: true, session: this.snapshot(session) }, session);
    this.event(session, 'opened', { session: this.snapshot(session) });
  }

  private sessionFor(connection: Connection, command: DaemonCommand): Session | undefined {
    const { sessionId, generation, requestId } = command as DaemonCommand & { sessionId: string; generation: number };
    const session = this.sessions.get(sessionId);
    if (session === undefined || generation > session.generation) {
      this.respondError(connection, requestId, { code: 'session_not_found', message: `no session ${sessionId} at generation ${generation}` });
      return undefined;
    }
    if (generation < session.generation) {
      this.respondError(connection, requestId, { code: 'stale_generation', message: `generation ${generation} < ${session.generation}` });
      return undefined;
    }
    return session;
  }

  private wake(connection: Connection, command: DaemonCommand, session: Session): void {
    const { requestId } = command;
    const key = command.idempotencyKey!;
    const payload = command.payload as { prompt: string; waitForTerminal?: boolean };
    const cached = session.mode === 'memory' ? undefined : session.completed.get(key);
    if (cached !== undefined) {
      if (cached.prompt !== payload.prompt) return this.respondError(connection, requestId, { code: 'idempotency_conflict', message: `key ${key} was used for another prompt` });
      return this.respond(connection, requestId, cached.data, session);
    }
    if (session.running !== undefined) return this.respondError(connection, requestId, { code: 'session_busy', message: 'a wake is running', retryable: true });
    const next = this.script.shift() ?? this.options.fallbackReply ?? '';
    const step = typeof next === 'string' || typeof next === 'function' ? { text: next } : next;
    const turn: TurnRecord = { sessionId: session.sessionId, generation: session.generation, prompt: payload.prompt, steers: [], followUps: [], idempotencyKey: key, done: false };
    this.turns.push(turn);
    const waitForTerminal = payload.waitForTerminal ?? true;
    const running: Running = { turn, step, connection, requestId, waitForTerminal };
    session.running = running;
    if (waitForTerminal) connection.inFlight.add(requestId);
    for (const event of ['promptAccepted', 'agentStart', 'turnStart', 'messageStart']) this.event(session, event, undefined, requestId);
    if (!waitForTerminal) this.respond(connection, requestId, { accepted: true, session: this.snapshot(session) }, session);
    if (step.hold === true) return;
    if (step.delayMs !== undefined) running.timer = this.clock.setTimeout(() => this.finish(session), step.delayMs);
    else queueMicrotask(() => this.finish(session));
  }

  private queue(connection: Connection, command: DaemonCommand, session: Session): void {
    const running = session.running;
    if (running === undefined) return this.respondError(connection, command.requestId, { code: 'session_not_running', message: 'no wake is running' });
    const turn = running.turn;
    if (turn.steers.length + turn.followUps.length >= (this.options.maxQueuedMessages ?? 8)) {
      return this.respondError(connection, command.requestId, { code: 'session_queue_full', message: 'queue full', retryable: true });
    }
    const message = (command.payload as { message: string }).message;
    (command.operation === 'steer' ? turn.steers : turn.followUps).push(message);
    this.respond(connection, command.requestId, { queued: true }, session);
    this.event(session, 'queueUpdate', { steering: turn.steers.length, followUp: turn.followUps.length }, running.requestId);
  }

  /** The turn ends: its text (or the partial one, aborted), its events, the wake's answer. */
  private finish(session: Session, override?: { text: string }, aborted = false): void {
    const running = session.running;
    if (running === undefined) return;
    if (running.timer !== undefined) this.clock.clearTimeout(running.timer);
    session.running = undefined;
    const { turn, step, connection, requestId } = running;
    const text = aborted ? (step.partial ?? '') : (override?.text ?? (typeof step.text === 'function' ? step.text(turn) : step.text));
    turn.text = text;
    turn.done = true;
    if (aborted) turn.aborted = true;
    if (text !== '') this.event(session, 'messageUpdate', { delta: text }, requestId);
    this.event(session, 'messageEnd', { text }, requestId);
    for (const event of ['turnEnd', 'agentSettled', 'agentEnd', 'sessionIdle']) this.event(session, event, event === 'agentEnd' ? { aborted } : undefined, requestId);
    const data = { result: { text, sessionId: session.sessionId, model: session.model, thinkingLevel: 'off', ...(aborted && { stopReason: 'aborted' }) }, session: this.snapshot(session) };
    if (session.mode !== 'memory') session.completed.set(turn.idempotencyKey, { prompt: turn.prompt, data });
    if (!running.waitForTerminal) return;
    connection.inFlight.delete(requestId);
    if (connection.link.open) this.respond(connection, requestId, data, session);
  }

  private close(connection: Connection, command: DaemonCommand, session: Session): void {
    if (session.running !== undefined) return this.respondError(connection, command.requestId, { code: 'session_busy', message: 'close needs an idle session', retryable: true });
    const retain = (command.payload as { retainSession?: boolean }).retainSession === true;
    this.event(session, retain ? 'sessionDormant' : 'sessionDeleted');
    this.event(session, 'sessionClosed', { retained: retain });
    this.sessions.delete(session.sessionId);
    this.respond(connection, command.requestId, { closed: true }, session);
  }

  // ── records out ────────────────────────────────────────────────────────────────────────────

  private snapshot(session: Session): Record<string, unknown> {
    return { sessionId: session.sessionId, generation: session.generation, mode: session.mode, state: session.running === undefined ? 'idle' : 'running', sequence: session.sequence };
  }

  private event(session: Session, event: string, data?: unknown, requestId?: string): void {
    session.sequence += 1;
    const record = { protocolVersion: '2.0', kind: 'event', event, hostInstanceId: this.hostInstanceId, sessionId: session.sessionId, generation: session.generation, sequence: session.sequence, ...(requestId !== undefined && { requestId }), ...(data !== undefined && { data }) };
    const line = JSON.stringify(record);
    for (const connection of session.attached) connection.link.send(line);
  }

  private respond(connection: Connection, requestId: string, data: unknown, session?: Session): void {
    const extra = session === undefined ? {} : { sessionId: session.sessionId, sequence: session.sequence };
    connection.link.send(JSON.stringify({ protocolVersion: '2.0', kind: 'response', requestId, hostInstanceId: this.hostInstanceId, ...extra, ok: true, data }));
  }

  private respondError(connection: Connection, requestId: string, failure: Failure): void {
    const error = { code: failure.code, message: failure.message, retryable: failure.retryable ?? false, ...(failure.details !== undefined && { details: failure.details }) };
    connection.link.send(JSON.stringify({ protocolVersion: '2.0', kind: 'response', requestId, hostInstanceId: this.hostInstanceId, ok: false, error }));
  }

  private take<T>(list: T[], match: (item: T) => boolean): T | undefined {
    const index = list.findIndex(match);
    return index < 0 ? undefined : list.splice(index, 1)[0];
  }
}
