// A pi-daemon protocol v2 client over any Link (one JSON record per line or text frame): a
// handshake first, then every v2 operation as a method; requests matched to answers by requestId
// (unique per connection), typed errors, timeouts on the injected clock that restart on the
// request's events, attached sessions' event streams checked for order, and reconnection that
// handshakes and attaches again — telling the caller when the host itself is a new instance. The
// link, the waiting requests, the inbound gate and the reconnect are the skeleton it shares with
// PeersClient (recordClient.ts). Browser-safe: a browser reaches a daemon through a gateway; Node
// reaches its socket directly.

import type { Link } from '../links/link.js';
import type { Frame } from '../protocol/codec.js';
import { randomUuid } from '../protocol/ids.js';
import { utf8Exceeds } from '../protocol/inbound.js';
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
import {
  checkCommand,
  DEFAULT_DAEMON_LIMITS,
  readAttach,
  readDaemonRecord,
  readFlag,
  readHandshake,
  readOpen,
  readWake,
  type DaemonInbound,
} from './daemonRecords.js';
import { OpenedSessions } from './daemonOpens.js';
import { EventStreams, STREAM_DEFAULTS } from './daemonStream.js';
import type { DaemonClientEvents, DaemonClientOptions, ReconnectReport, WakeAnswer, WakeOptions } from './daemonOptions.js';
import { RecordClient, type RecordRead } from './recordClient.js';

export type { DaemonClientEvents, DaemonClientOptions, ReconnectReport, WakeAnswer, WakeOptions } from './daemonOptions.js';

interface Answer {
  id: string;
  response: DaemonResponse;
}

export class DaemonClient extends RecordClient<DaemonClientEvents, Answer, DaemonInbound, DaemonResponse, DaemonError> {
  private hostInfo: DaemonHostInfo | undefined;
  private readonly streams: EventStreams;
  private readonly opens: OpenedSessions;
  private readonly wakeTimeoutMs: number;
  private readonly newKey: () => string;
  /** Request ids count up for the client's life: unique on every connection it makes. */
  private sent = 0;

  private constructor(private readonly options: DaemonClientOptions) {
    super(options, {
      place: 'DaemonClient',
      greeting: { command: 'handshake', named: 'the handshake' },
      defaultLimits: DEFAULT_DAEMON_LIMITS,
      failure: (code, message, { requestId, command, local }, retryable) =>
        daemonError(code, message, { requestId, ...(command !== undefined && { operation: command }), ...(local && { local }) }, retryable),
      isFailure: (error) => error instanceof DaemonError,
    });
    this.wakeTimeoutMs = options.wakeTimeoutMs ?? 600_000;
    this.streams = new EventStreams(options.maxAttachedSessions ?? STREAM_DEFAULTS.maxStreams);
    this.opens = new OpenedSessions(options.maxAttachedSessions ?? STREAM_DEFAULTS.maxStreams);
    this.newKey = options.newIdempotencyKey ?? (() => randomUuid());
  }

  /** Handshakes on `link`. Rejects with a DaemonError (incompatible_protocol, timeout, closed, …) and closes the link. */
  static async connect(link: Link, options: DaemonClientOptions = {}): Promise<DaemonClient> {
    const client = new DaemonClient(options);
    await client.begin(link);
    return client;
  }

  /** What the last handshake said about the host (its instance id changes when it restarts). */
  get host(): DaemonHostInfo {
    return this.hostInfo!;
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
    const opened = this.dataOf(response, 'open', readOpen(response.data));
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
    const attached = this.dataOf(response, 'attach', readAttach(response.data));
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
    const read = this.dataOf(response, 'wake', readWake(response.data), idempotencyKey);
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
    return this.dataOf(response, 'abort', readFlag(response.data, 'aborted'));
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
    const closed = this.dataOf(response, 'close', readFlag(response.data, 'closed'));
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
    this.dataOf(response, operation, readFlag(response.data, 'queued'), key);
  }

  private request(
    operation: DaemonOperation,
    payload: Record<string, unknown>,
    fields: Partial<SessionRef> & { idempotencyKey?: string },
    place: string,
    timeoutMs = this.requestTimeoutMs,
  ): Promise<DaemonResponse> {
    const requestId = `r${++this.sent}`;
    const refused = this.refusal(place, requestId, operation);
    if (refused !== undefined) return Promise.reject(refused);
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
    try {
      const { response } = await this.transmit(command.requestId, command.operation, line, timeoutMs);
      if (!response.ok) throw errorFromResponse(response, command.operation, place, command.sessionId);
      return response;
    } catch (error) {
      // A default key was made here: the caller needs it to retry the same wake.
      if (error instanceof DaemonError && command.idempotencyKey !== undefined) error.details.idempotencyKey ??= command.idempotencyKey;
      throw error;
    }
  }

  /** `idempotencyKey`: the request ran on the host, so the caller needs the key to retry it (wake, steer, followUp). */
  private dataOf<T>(response: DaemonResponse, operation: string, read: { ok: true; value: T } | { ok: false; message: string }, idempotencyKey?: string): T {
    if (read.ok) return read.value;
    throw daemonError('invalid_response', `DaemonClient.${operation}: ${read.message}`, {
      requestId: response.requestId,
      operation,
      ...(idempotencyKey !== undefined && { idempotencyKey }),
    });
  }

  // ── the skeleton's steps ───────────────────────────────────────────────────────────────────

  protected greet(): { requestId: string; answer: Promise<DaemonResponse> } {
    const command: DaemonCommand = { protocolVersion: DAEMON_PROTOCOL_VERSION, requestId: `r${++this.sent}`, operation: 'handshake', payload: {} };
    return { requestId: command.requestId, answer: this.exchange(command, 'DaemonClient.connect', this.requestTimeoutMs) };
  }

  protected welcome(response: DaemonResponse): void {
    this.acceptHandshake(response);
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

  protected read(frame: Frame): RecordRead<DaemonInbound> {
    return readDaemonRecord(frame, this.limits);
  }

  protected accept(record: DaemonInbound): void {
    if (record.kind === 'response') {
      const { response } = record;
      const known = this.streams.hostInstanceId;
      if (known !== undefined && response.hostInstanceId !== known && this.greeted) {
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

  /** After a reconnect: attach again to what was attached as the link dropped, and report it. */
  protected resumer(): (attempt: number) => Promise<void> {
    const attached = this.streams.attached();
    const previousHostInstanceId = this.hostInfo!.hostInstanceId;
    return async (attempt) => {
      const report = await this.reattach(attempt, previousHostInstanceId, attached);
      if (this.state === 'open') this.bus.emit('reconnect', report);
    };
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
    // Opened anew: not the session this client had (a restarted gateway reaches the daemon under a
    // new namespace): its conversation is gone, so it is reported lost, not reattached.
    if (this.dataOf(response, 'open', readOpen(response.data)).created)
      throw daemonError(
        'session_not_found',
        `DaemonClient: session ${ref.sessionId} came back empty through the gateway (it restarted): open and brief it again`,
        {
          requestId: response.requestId,
          operation: 'open',
        },
      );
    return this.attach(ref);
  }
}
