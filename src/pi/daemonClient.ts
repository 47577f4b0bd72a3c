// A pi-daemon protocol v2 client over any Link (one JSON record per line or text frame): a
// handshake first, then every v2 operation as a method; requests matched to answers by requestId
// (unique per connection), typed errors, timeouts on the injected clock that restart on the
// request's events, attached sessions' event streams checked for order, and reconnection that
// handshakes and attaches again — telling the caller when the host itself is a new instance.
// Browser-safe: a browser reaches a daemon through a gateway; Node reaches its socket directly.

import { createEmitter, type Emitter } from '../base/emitter.js';
import type { Frame } from '../protocol/codec.js';
import type { Link } from '../links/link.js';
import { realClock, type Clock } from '../runtime/clock.js';
import { randomUuid } from '../protocol/ids.js';
import { utf8Exceeds, type InboundLimits } from '../protocol/inbound.js';
import { daemonError, DaemonError, errorFromResponse, type DaemonErrorCode } from './daemonError.js';
import {
  DAEMON_DRAIN_TIMEOUT_MS,
  DAEMON_PROTOCOL_VERSION,
  type AttachResult,
  type DaemonCommand,
  type DaemonHostInfo,
  type DaemonOperation,
  type DaemonResponse,
  type OpenOptions,
  type OpenResult,
  type SessionRef,
} from './daemonProtocol.js';
import { checkCommand, DEFAULT_DAEMON_LIMITS, readAttach, readDaemonRecord, readFlag, readHandshake, readOpen, readWake } from './daemonRecords.js';
import { OpenedSessions } from './daemonOpens.js';
import { EventStreams, STREAM_DEFAULTS } from './daemonStream.js';
import type {
  DaemonClientEvents,
  DaemonClientOptions,
  DaemonClientState,
  DaemonReconnectOptions,
  ReconnectReport,
  WakeAnswer,
  WakeOptions,
} from './daemonOptions.js';
import { PendingRequests, type PendingErrors } from './peersPending.js';
import { reconnectLoop, Sleeper } from './peersReconnect.js';

export type {
  DaemonClientEvents,
  DaemonClientOptions,
  DaemonClientState,
  DaemonReconnectOptions,
  ReconnectReport,
  WakeAnswer,
  WakeOptions,
} from './daemonOptions.js';

interface Answer {
  id: string;
  response: DaemonResponse;
}

const PENDING_ERRORS: PendingErrors<DaemonError> = {
  timeout: (id, operation, timeoutMs, place) =>
    daemonError('timeout', `${place}: no answer to ${operation} ${id} within ${timeoutMs} ms`, { requestId: id, operation }),
  tooMany: (id, operation, max, place) =>
    daemonError('too_many_pending', `${place}: ${max} requests already wait for answers`, { requestId: id, operation, local: true }),
};

export class DaemonClient {
  private hostInfo: DaemonHostInfo | undefined;
  private readonly bus: Emitter<DaemonClientEvents> = createEmitter<DaemonClientEvents>();
  private readonly clock: Clock;
  private readonly pending: PendingRequests<Answer, DaemonError>;
  private readonly streams: EventStreams;
  private readonly opens: OpenedSessions;
  private readonly limits: InboundLimits;
  private readonly requestTimeoutMs: number;
  private readonly wakeTimeoutMs: number;
  private readonly newKey: () => string;
  private readonly sleeper: Sleeper;
  private link: Link | undefined;
  private ready = false;
  private current: DaemonClientState = 'connecting';
  /** Request ids count up for the client's life: unique on every connection it makes. */
  private sent = 0;

  private constructor(private readonly options: DaemonClientOptions) {
    this.clock = options.clock ?? realClock();
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.wakeTimeoutMs = options.wakeTimeoutMs ?? 600_000;
    this.pending = new PendingRequests<Answer, DaemonError>(this.clock, options.maxPendingRequests ?? 64, 'DaemonClient', PENDING_ERRORS);
    this.streams = new EventStreams(options.maxAttachedSessions ?? STREAM_DEFAULTS.maxStreams);
    this.opens = new OpenedSessions(options.maxAttachedSessions ?? STREAM_DEFAULTS.maxStreams);
    this.limits = { ...DEFAULT_DAEMON_LIMITS, ...options.limits };
    this.newKey = options.newIdempotencyKey ?? (() => randomUuid());
    this.sleeper = new Sleeper(this.clock);
  }

  /** Handshakes on `link`. Rejects with a DaemonError (incompatible_protocol, timeout, closed, …) and closes the link. */
  static async connect(link: Link, options: DaemonClientOptions = {}): Promise<DaemonClient> {
    const client = new DaemonClient(options);
    try {
      await client.use(link);
    } catch (error) {
      client.current = 'closed';
      throw error;
    }
    client.current = 'open';
    return client;
  }

  get state(): DaemonClientState {
    return this.current;
  }

  /** What the last handshake said about the host (its instance id changes when it restarts). */
  get host(): DaemonHostInfo {
    return this.hostInfo!;
  }

  on<K extends keyof DaemonClientEvents>(type: K, handler: (event: DaemonClientEvents[K]) => void): () => void {
    this.bus.on(type, handler);
    return () => this.bus.off(type, handler);
  }

  /** Handshakes again on the open link (the host's readiness and limits now). */
  async handshake(): Promise<DaemonHostInfo> {
    return this.acceptHandshake(await this.request('handshake', {}, {}, 'DaemonClient.handshake'));
  }

  /** Opens (or re-opens at a higher generation) a session; every resource is "none". */
  async open(ref: SessionRef, options: OpenOptions): Promise<OpenResult> {
    const { systemPrompt, ...rest } = options;
    const resources = {
      extensions: 'none',
      skills: 'none',
      promptTemplates: 'none',
      themes: 'none',
      contextFiles: 'none',
      tools: 'none',
      ...(systemPrompt !== undefined && { systemPrompt }),
    };
    const payload = { ...rest, resources };
    const response = await this.request('open', payload, ref, 'DaemonClient.open');
    const opened = this.read(response, 'open', readOpen(response.data));
    this.opens.remember(ref, payload);
    return opened;
  }

  /** Subscribes to the session's events (nothing is subscribed implicitly); needed after every re-open. */
  async attach(ref: SessionRef): Promise<AttachResult> {
    const full = (): DaemonError =>
      daemonError(
        'too_many_pending',
        `DaemonClient.attach: ${this.options.maxAttachedSessions ?? STREAM_DEFAULTS.maxStreams} sessions are attached already; detach one, or raise options.maxAttachedSessions`,
        { operation: 'attach', sessionId: ref.sessionId, local: true },
      );
    if (!this.streams.canBegin(ref.sessionId)) throw full();
    const response = await this.request('attach', {}, ref, 'DaemonClient.attach');
    const attached = this.read(response, 'attach', readAttach(response.data));
    // Another attach may have taken the last place while this one waited.
    if (!this.streams.begin({ sessionId: ref.sessionId, generation: attached.generation }, attached.sequence)) throw full();
    return attached;
  }

  async detach(ref: SessionRef): Promise<void> {
    await this.request('detach', {}, ref, 'DaemonClient.detach');
    this.streams.end(ref.sessionId);
  }

  /**
   * Runs one turn. With waitForTerminal (the default) it answers after the turn, with its text (an
   * aborted turn answers with its partial text); without, as soon as the wake is admitted. Retrying
   * with the same idempotencyKey is safe on a durable session (the host returns the cached result);
   * a memory session runs a new turn.
   */
  async wake(ref: SessionRef, options: WakeOptions): Promise<WakeAnswer> {
    const idempotencyKey = options.idempotencyKey ?? this.newKey();
    const terminal = options.waitForTerminal ?? true;
    const payload = { prompt: options.prompt, waitForTerminal: terminal, ...(options.source !== undefined && { source: options.source }) };
    const response = await this.request(
      'wake',
      payload,
      { ...ref, idempotencyKey },
      'DaemonClient.wake',
      terminal ? this.wakeTimeoutMs : this.requestTimeoutMs,
    );
    if (!terminal) return { terminal, requestId: response.requestId, idempotencyKey, data: response.data };
    const read = this.read(response, 'wake', readWake(response.data), idempotencyKey);
    return { terminal, requestId: response.requestId, idempotencyKey, ...read };
  }

  /** Into the running turn. Fails with session_not_running when no wake runs. */
  steer(ref: SessionRef, message: string, idempotencyKey?: string): Promise<void> {
    return this.queued('steer', ref, message, idempotencyKey);
  }

  /** After the running turn, in the same wake. Fails with session_not_running when no wake runs. */
  followUp(ref: SessionRef, message: string, idempotencyKey?: string): Promise<void> {
    return this.queued('followUp', ref, message, idempotencyKey);
  }

  /** The host's status, or one session's snapshot. */
  async status(sessionId?: string): Promise<unknown> {
    const response = await this.request('status', {}, sessionId === undefined ? {} : { sessionId }, 'DaemonClient.status');
    return response.data;
  }

  /** Stops the running turn; false when nothing ran. */
  async abort(ref: SessionRef): Promise<boolean> {
    const response = await this.request('abort', {}, ref, 'DaemonClient.abort');
    return this.read(response, 'abort', readFlag(response.data, 'aborted'));
  }

  /**
   * Closes an idle session. Without `retainSession` the host decides, and pi-daemon 0.3.3 retains:
   * a durable session stays dormant on disk, and a memory session's generation can never be opened
   * again (ephemeral_session_unavailable). `retainSession: false` deletes it.
   */
  async close(ref: SessionRef, options: { retainSession?: boolean } = {}): Promise<boolean> {
    const payload = options.retainSession === undefined ? {} : { retainSession: options.retainSession };
    const response = await this.request('close', payload, ref, 'DaemonClient.close');
    this.streams.end(ref.sessionId);
    const closed = this.read(response, 'close', readFlag(response.data, 'closed'));
    this.opens.forget(ref.sessionId);
    return closed;
  }

  /**
   * Stops the host admitting work (open and wake; they fail with host_draining), for good. The host
   * waits up to `timeoutMs` (default 30 s, always sent) for running and queued turns, aborts the rest
   * and answers `{ draining, timeoutMs, timedOut, abortedTurns }`: so this waits `timeoutMs` plus
   * `requestTimeoutMs` for that answer (requestTimeoutMs alone would give up just as it came).
   */
  async drain(options: { timeoutMs?: number } = {}): Promise<unknown> {
    const timeoutMs = options.timeoutMs ?? DAEMON_DRAIN_TIMEOUT_MS;
    const response = await this.request('drain', { timeoutMs }, {}, 'DaemonClient.drain', timeoutMs + this.requestTimeoutMs);
    return response.data;
  }

  /** Closes the link and the client; waiting requests fail with a non-retryable `closed`. */
  disconnect(reason = 'DaemonClient.disconnect()'): void {
    this.shutdown(reason, false);
  }

  // ── requests ───────────────────────────────────────────────────────────────────────────────

  private async queued(operation: 'steer' | 'followUp', ref: SessionRef, message: string, idempotencyKey: string | undefined): Promise<void> {
    const key = idempotencyKey ?? this.newKey();
    const response = await this.request(operation, { message }, { ...ref, idempotencyKey: key }, `DaemonClient.${operation}`);
    this.read(response, operation, readFlag(response.data, 'queued'), key);
  }

  private request(
    operation: DaemonOperation,
    payload: Record<string, unknown>,
    fields: Partial<SessionRef> & { idempotencyKey?: string },
    place: string,
    timeoutMs = this.requestTimeoutMs,
  ): Promise<DaemonResponse> {
    const requestId = `r${++this.sent}`;
    if (this.current !== 'open' || !this.ready) {
      const retryable = this.current !== 'closed';
      const why = this.current === 'closed' ? 'the client is closed: connect a new one' : 'the link is down and being reconnected';
      return Promise.reject(daemonError('closed', `${place}: ${why}`, { requestId, operation, local: true }, retryable));
    }
    return this.exchange({ protocolVersion: DAEMON_PROTOCOL_VERSION, requestId, operation, payload, ...fields }, place, timeoutMs);
  }

  /** Sends one command (the handshake included) and waits for its answer; a failed answer rejects. */
  private async exchange(command: DaemonCommand, place: string, timeoutMs: number): Promise<DaemonResponse> {
    const details = {
      requestId: command.requestId,
      operation: command.operation,
      ...(command.sessionId !== undefined && { sessionId: command.sessionId }),
      local: true,
    };
    const invalid = checkCommand(command);
    if (invalid !== undefined) throw daemonError('invalid_request', `${place}: ${invalid}`, details);
    const line = JSON.stringify(command);
    // The host closes the connection on a line over its limit: refuse it here instead.
    if (utf8Exceeds(line, this.limits.maxFrameBytes))
      throw daemonError('invalid_request', `${place}: the command is longer than ${this.limits.maxFrameBytes} bytes; shorten the prompt or message`, details);
    const { promise, fresh } = this.pending.add(command.requestId, command.operation, timeoutMs);
    if (fresh) this.link?.send(line);
    try {
      const { response } = await promise;
      if (!response.ok) throw errorFromResponse(response, command.operation, place, command.sessionId);
      return response;
    } catch (error) {
      // A default key was made here: the caller needs it to retry the same wake.
      if (error instanceof DaemonError && command.idempotencyKey !== undefined) error.details.idempotencyKey ??= command.idempotencyKey;
      throw error;
    }
  }

  /** `idempotencyKey`: the request ran on the host, so the caller needs the key to retry it (wake, steer, followUp). */
  private read<T>(response: DaemonResponse, operation: string, read: { ok: true; value: T } | { ok: false; message: string }, idempotencyKey?: string): T {
    if (read.ok) return read.value;
    throw daemonError('invalid_response', `DaemonClient.${operation}: ${read.message}`, {
      requestId: response.requestId,
      operation,
      ...(idempotencyKey !== undefined && { idempotencyKey }),
    });
  }

  // ── the link ───────────────────────────────────────────────────────────────────────────────

  /** Listens on `link` and handshakes; on failure the link is closed and the error thrown. */
  private async use(link: Link): Promise<void> {
    this.link = link;
    this.ready = false;
    link.listen({
      message: (frame) => {
        if (this.link === link) this.receive(frame);
      },
      close: (reason) => {
        if (this.link === link) this.dropped(reason);
      },
    });
    const command: DaemonCommand = { protocolVersion: DAEMON_PROTOCOL_VERSION, requestId: `r${++this.sent}`, operation: 'handshake', payload: {} };
    try {
      const response = await this.exchange(command, 'DaemonClient.connect', this.requestTimeoutMs);
      // A link that closed in the turn its answer came found no handshake waiting: it is gone all the same.
      if (this.link !== link)
        throw daemonError('closed', 'DaemonClient.connect: the link closed as the handshake was answered', {
          requestId: command.requestId,
          operation: 'handshake',
        });
      this.acceptHandshake(response);
      this.ready = true;
    } catch (error) {
      if (this.link === link) {
        this.link = undefined;
        link.close(error instanceof DaemonError ? `handshake failed: ${error.code}` : 'handshake failed');
      }
      throw error;
    }
  }

  private acceptHandshake(response: DaemonResponse): DaemonHostInfo {
    const read = readHandshake(response.data);
    if (!read.ok) {
      const code: DaemonErrorCode = 'incompatible' in read ? 'incompatible_protocol' : 'invalid_response';
      throw daemonError(code, `DaemonClient.handshake: ${read.message}`, { requestId: response.requestId, operation: 'handshake' });
    }
    this.hostInfo = read.value;
    this.streams.setHost(read.value.hostInstanceId);
    return read.value;
  }

  private receive(frame: Frame): void {
    const verdict = readDaemonRecord(frame, this.limits);
    if (!verdict.ok) {
      const problem = verdict.problem;
      this.bus.emit('problem', problem);
      // The record answered a request but cannot be read: fail that request now, not at its timeout.
      if (problem.requestId !== undefined && this.pending.has(problem.requestId)) {
        this.pending.fail(
          problem.requestId,
          daemonError('invalid_response', `DaemonClient: the answer to ${problem.requestId} was refused: ${problem.message}`, { requestId: problem.requestId }),
        );
      }
      return;
    }
    const record = verdict.record;
    if (record.kind === 'response') {
      const { response } = record;
      const known = this.streams.hostInstanceId;
      if (known !== undefined && response.hostInstanceId !== known && this.ready) {
        // Never hidden: the host behind this link is another instance (its sessions may be gone).
        this.streams.setHost(response.hostInstanceId);
        if (this.hostInfo !== undefined) this.hostInfo = { ...this.hostInfo, hostInstanceId: response.hostInstanceId };
        this.bus.emit('host', { previousHostInstanceId: known, hostInstanceId: response.hostInstanceId });
      }
      // An answer to nothing waiting (one that came after its timeout) is dropped quietly.
      this.pending.settle({ id: response.requestId, response });
      return;
    }
    const { event } = record;
    if (event.requestId !== undefined) this.pending.progress(event.requestId);
    const { deliver, report } = this.streams.accept(event);
    if (report !== undefined) this.bus.emit('stream', report);
    if (deliver) this.bus.emit('event', event);
  }

  private dropped(reason: string): void {
    this.link = undefined;
    if (!this.ready) {
      // A handshake in flight: use() rejects, and its caller decides what follows.
      this.pending.failAll((id, operation) =>
        daemonError('closed', `DaemonClient.connect: the link closed before the handshake was answered (${reason})`, { requestId: id, operation }),
      );
      return;
    }
    this.ready = false;
    this.pending.failAll((id, operation) =>
      daemonError('closed', `DaemonClient: the link dropped while ${operation} ${id} waited for its answer (${reason})`, { requestId: id, operation }, true),
    );
    if (this.options.reconnect === undefined || this.current !== 'open') {
      this.shutdown(reason, true);
      return;
    }
    this.current = 'reconnecting';
    // Started before the event, so a throwing handler cannot stop it.
    void this.reconnect(this.options.reconnect, this.streams.attached());
    this.bus.emit('disconnect', { reason });
  }

  /** Backoff, connect, handshake, attach again; until it works, is refused for good, or attempts run out. */
  private reconnect(options: DaemonReconnectOptions, attached: SessionRef[]): Promise<void> {
    const previousHostInstanceId = this.hostInfo!.hostInstanceId;
    return reconnectLoop(options, {
      place: 'DaemonClient',
      clock: this.clock,
      sleeper: this.sleeper,
      timeoutMs: this.requestTimeoutMs,
      reconnecting: () => this.current === 'reconnecting',
      attach: (link) => this.use(link),
      reconnected: async (attempt) => {
        this.current = 'open';
        const report = await this.reattach(attempt, previousHostInstanceId, attached);
        if (this.current === 'open') this.bus.emit('reconnect', report);
      },
      // incompatible_protocol, host_draining…: refused for good (not retryable).
      shutdown: (reason, retryable) => this.shutdown(reason, retryable),
    });
  }

  private async reattach(attempt: number, previousHostInstanceId: string, attached: SessionRef[]): Promise<ReconnectReport> {
    const hostInstanceId = this.hostInfo!.hostInstanceId;
    const report: ReconnectReport = {
      attempt,
      hostInstanceId,
      previousHostInstanceId,
      hostChanged: hostInstanceId !== previousHostInstanceId,
      reattached: [],
      lost: [],
    };
    for (const ref of attached) {
      try {
        await this.attach(ref).catch((error: unknown) => this.openAgain(ref, error));
        report.reattached.push(ref);
      } catch (error) {
        const failure = error instanceof DaemonError ? error : daemonError('unknown_error', `DaemonClient.attach: ${String(error)}`);
        report.lost.push({ ...ref, error: failure });
      }
    }
    return report;
  }

  /**
   * A gateway refused the attach because this connection has not opened the session (a page's
   * sessions are its connection's, and this is a new one): opens it again as it was, then attaches.
   */
  private async openAgain(ref: SessionRef, error: unknown): Promise<AttachResult> {
    const payload = this.opens.payloadOf(ref);
    if (payload === undefined || !(error instanceof DaemonError) || error.code !== 'denied_by_gateway' || error.details.host?.['rule'] !== 'not_opened')
      throw error;
    const response = await this.request('open', payload, ref, 'DaemonClient.open');
    this.read(response, 'open', readOpen(response.data));
    return this.attach(ref);
  }

  private shutdown(reason: string, retryable: boolean): void {
    if (this.current === 'closed') return;
    this.current = 'closed';
    this.sleeper.cancel();
    const link = this.link;
    this.link = undefined;
    this.ready = false;
    this.pending.failAll((id, operation) =>
      daemonError('closed', `DaemonClient: closed while ${operation} ${id} waited for its answer (${reason})`, { requestId: id, operation }, retryable),
    );
    link?.close(reason);
    this.bus.emit('close', { reason });
  }
}
