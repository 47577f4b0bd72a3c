// A pi-peers 1.0 client over any Link (one JSON record per text frame): hello first, requests
// matched to answers by id, typed errors, timeouts that restart on progress, and reconnection with
// backoff. Browser-safe: a browser reaches an agent through a gateway, which adds the token.

import { createEmitter, type Emitter } from '../base/emitter.js';
import type { Frame } from '../protocol/codec.js';
import type { Link } from '../links/link.js';
import { realClock, type Clock } from '../runtime/clock.js';
import { randomUuid } from '../protocol/ids.js';
import type { InboundLimits } from '../protocol/inbound.js';
import { errorFromResponse, localError, PeersError, redactor, type Redact } from './peersError.js';
import { PendingRequests } from './peersPending.js';
import {
  PEERS_PROTOCOL,
  negotiateVersion,
  type AgentState,
  type DeliveryKind,
  type DeliveryRecord,
  type HelloRecord,
  type Peer,
  type PeersRequest,
  type PeersResponse,
  type PeersVersion,
  type StateWait,
  type VersionRange,
} from './peersProtocol.js';
import { checkRequest, DEFAULT_PEERS_LIMITS, readAgentState, readHelloProtocol, readLastText, readRecord, type RecordProblem } from './peersRecords.js';
import { reconnectLoop, Sleeper, type PeersReconnectOptions } from './peersReconnect.js';
import { waitForReply as pollForReply, WAIT_DEFAULTS, type WaitForReplyOptions } from './peersWait.js';

export interface PeersClientOptions {
  /**
   * The agent's secret from its discovery file. Only Node-side code talking straight to an agent
   * socket has one; a browser never does (the gateway adds it). Never emitted, never in an error.
   */
  token?: string;
  /** Who is speaking: shown to the receiving model. Omitted from hello when not given. */
  from?: Peer;
  /** Default: wall time. Timeouts, backoff and reply polling all read it. */
  clock?: Clock;
  /** How long a request waits for its answer; restarts on progress. Default 30,000 ms. */
  requestTimeoutMs?: number;
  /** Most requests waiting for answers at once. Default 64. */
  maxPendingRequests?: number;
  /** Inbound bounds. Default 1 MiB frames, depth 32 (DEFAULT_PEERS_LIMITS). */
  limits?: Partial<InboundLimits>;
  /** Reconnect after a drop. Without it a drop closes the client. */
  reconnect?: PeersReconnectOptions;
  /** Request and delivery ids. Default: random UUIDs, unique across connections (the dedupe key). */
  newId?: () => string;
}

export interface DeliverOptions {
  /** The dedupe key. Reuse the id of a failed delivery to retry it: the agent never delivers twice. */
  id?: string;
  /** Peer messages in this chain, this one included. Default 1. The agent refuses more than 3. */
  hops?: number;
  /** The sender will wait for the answer (shapes the agent's reply hint). */
  awaitsReply?: boolean;
}

export type PeersClientEvents = {
  /** An inbound record was refused (bounds or schema) and dropped. */
  error: RecordProblem;
  /** The link dropped; the client is reconnecting. Pending requests failed with a retryable `closed`. */
  disconnect: { reason: string };
  /** A new link is open and has said hello. Retry failed deliveries with their ids. */
  reconnect: { attempt: number; protocolVersion: PeersVersion };
  /** The client is closed for good. */
  close: { reason: string };
};

export type PeersClientState = 'connecting' | 'open' | 'reconnecting' | 'closed';

export class PeersClient {
  /** The version both sides speak, from the hello. */
  protocolVersion: PeersVersion = PEERS_PROTOCOL.version;
  /** The agent's range, when its hello answer gave one. */
  peerProtocol: VersionRange | undefined;

  private readonly bus: Emitter<PeersClientEvents> = createEmitter<PeersClientEvents>();
  private readonly clock: Clock;
  private readonly pending: PendingRequests;
  private readonly limits: InboundLimits;
  private readonly requestTimeoutMs: number;
  private readonly newId: () => string;
  private readonly redact: Redact;
  private readonly sleeper: Sleeper;
  private link: Link | undefined;
  /** The current link has had its hello answered. */
  private ready = false;
  private current: PeersClientState = 'connecting';

  private constructor(private readonly options: PeersClientOptions) {
    this.clock = options.clock ?? realClock();
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.pending = new PendingRequests(this.clock, options.maxPendingRequests ?? 64, 'PeersClient');
    this.limits = { ...DEFAULT_PEERS_LIMITS, ...options.limits };
    this.newId = options.newId ?? (() => randomUuid());
    this.redact = redactor(options.token);
    this.sleeper = new Sleeper(this.clock);
  }

  /**
   * Says hello on `link` and resolves once the agent accepts. Rejects with a PeersError
   * (auth_failed, incompatible_version, hello_required, timeout, closed, …) and closes the link.
   */
  static async connect(link: Link, options: PeersClientOptions = {}): Promise<PeersClient> {
    const client = new PeersClient(options);
    try {
      await client.attach(link);
    } catch (error) {
      client.current = 'closed';
      throw error;
    }
    client.current = 'open';
    return client;
  }

  get state(): PeersClientState {
    return this.current;
  }

  on<K extends keyof PeersClientEvents>(type: K, handler: (event: PeersClientEvents[K]) => void): () => void {
    this.bus.on(type, handler);
    return () => this.bus.off(type, handler);
  }

  /**
   * The agent's live state: idle, settled (completed runs), status, and its discovery entry. With
   * `wait`, an agent served by the aicc gateway holds the answer until the reply is ready (see
   * StateWait); any other agent answers at once.
   */
  async getState(wait?: StateWait): Promise<AgentState> {
    const record = wait === undefined ? { id: this.newId(), type: 'get_state' as const } : { id: this.newId(), type: 'get_state' as const, ...wait };
    const response = await this.request(record, 'PeersClient.getState');
    const read = readAgentState(response.data);
    if (!read.ok)
      throw localError('invalid_response', `PeersClient.getState: ${read.message}`, { requestId: response.id, command: this.redact(response.command) });
    return read.state;
  }

  /** The agent's last assistant text; null before its first reply. */
  async getLastAssistantText(): Promise<string | null> {
    const response = await this.request({ id: this.newId(), type: 'get_last_assistant_text' }, 'PeersClient.getLastAssistantText');
    const read = readLastText(response.data);
    if (!read.ok)
      throw localError('invalid_response', 'PeersClient.getLastAssistantText: data must be { text: string | null }', {
        requestId: response.id,
        command: this.redact(response.command),
      });
    return read.text;
  }

  /**
   * Stops the agent's current run. An extension of pi-peers 1.0 that the aicc gateway serves when it
   * hosts pi; another agent rejects it with an unknown-command error.
   */
  async abort(): Promise<void> {
    await this.request({ id: this.newId(), type: 'abort' } as unknown as PeersRequest, 'PeersClient.abort');
  }

  /**
   * Injects `message` into the agent. Resolves with the agent's answer; rejects with a PeersError
   * whose `details.requestId` is the delivery id: pass it back as `options.id` to retry safely.
   */
  deliver(kind: DeliveryKind, message: string, options: DeliverOptions = {}): Promise<PeersResponse> {
    const record: DeliveryRecord = { id: options.id ?? this.newDeliveryId(), type: kind, message, hops: options.hops ?? 1 };
    if (options.awaitsReply !== undefined) record.awaitsReply = options.awaitsReply;
    return this.request(record, 'PeersClient.deliver');
  }

  /** A fresh delivery id, for callers that want to know it before the first attempt. */
  newDeliveryId(): string {
    return this.newId();
  }

  /**
   * Resolves with the last assistant text once `settled > sinceSettled` and idle. Against the aicc
   * gateway each get_state is held until then (no polling delay); against a plain agent it polls.
   */
  waitForReply(sinceSettled: number, options: WaitForReplyOptions = {}): Promise<string | null> {
    // A held get_state must come back before the request times out.
    const holdMs = Math.min(options.holdMs ?? WAIT_DEFAULTS.holdMs, Math.floor(this.requestTimeoutMs / 2));
    return pollForReply(this, this.clock, sinceSettled, { ...options, holdMs });
  }

  /** Closes the link and the client; waiting requests fail with a non-retryable `closed`. */
  close(reason = 'PeersClient.close()'): void {
    this.shutdown(reason, false);
  }

  // ── requests ───────────────────────────────────────────────────────────────────────────────

  private request(record: PeersRequest, place: string): Promise<PeersResponse> {
    if (this.current !== 'open' || !this.ready) {
      const retryable = this.current !== 'closed';
      const why = this.current === 'closed' ? 'the client is closed: connect a new one' : 'the link is down and being reconnected';
      return Promise.reject(localError('closed', `${place}: ${why}`, { requestId: record.id, command: record.type, local: true }, retryable));
    }
    return this.exchange(record, place);
  }

  /** Sends one record (hello included) and waits for its answer; a failed answer rejects. */
  private async exchange(record: PeersRequest, place: string): Promise<PeersResponse> {
    const invalid = checkRequest(record);
    if (invalid !== undefined)
      throw localError('invalid_request', `${place}: ${this.redact(invalid)}`, { requestId: record.id, command: record.type, local: true });
    const { promise, fresh } = this.pending.add(record.id, record.type, this.requestTimeoutMs);
    if (fresh) this.link?.send(JSON.stringify(record));
    const response = await promise;
    if (!response.success) throw errorFromResponse(response, place, this.redact);
    return response;
  }

  // ── the link ───────────────────────────────────────────────────────────────────────────────

  /** Listens on `link` and says hello; on failure the link is closed and the error thrown. */
  private async attach(link: Link): Promise<void> {
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
    const hello: HelloRecord = { id: this.newId(), type: 'hello', protocol: { ...PEERS_PROTOCOL } };
    if (this.options.token !== undefined) hello.token = this.options.token;
    if (this.options.from !== undefined) hello.from = { ...this.options.from };
    try {
      const response = await this.exchange(hello, 'PeersClient.connect');
      // A link that closed in the turn its answer came found no hello waiting: it is gone all the same.
      if (this.link !== link)
        throw localError('closed', 'PeersClient.connect: the link closed as hello was answered', { requestId: hello.id, command: 'hello' });
      this.acceptHello(response);
      this.ready = true;
    } catch (error) {
      if (this.link === link) {
        this.link = undefined;
        link.close(error instanceof PeersError ? `hello failed: ${error.errorCode}` : 'hello failed');
      }
      throw error;
    }
  }

  private acceptHello(response: PeersResponse): void {
    const read = readHelloProtocol(response.data);
    if (!read.ok)
      throw localError('invalid_response', `PeersClient.connect: ${read.message}`, { requestId: response.id, command: this.redact(response.command) });
    if (read.range === undefined) {
      this.peerProtocol = undefined;
      this.protocolVersion = PEERS_PROTOCOL.version;
      return;
    }
    const version = negotiateVersion(PEERS_PROTOCOL, read.range);
    if (version === undefined) {
      const theirs = `${read.range.minVersion}–${read.range.version}`;
      const ours = `${PEERS_PROTOCOL.minVersion}–${PEERS_PROTOCOL.version}`;
      throw localError('incompatible_version', `PeersClient.connect: the agent speaks pi-peers ${theirs}, this client ${ours}`, {
        requestId: response.id,
        command: this.redact(response.command),
        data: { protocol: read.range },
      });
    }
    this.peerProtocol = read.range;
    this.protocolVersion = version;
  }

  private receive(frame: Frame): void {
    const verdict = readRecord(frame, this.limits);
    if (!verdict.ok) {
      const { requestId, message, kind } = verdict.problem;
      const problem: RecordProblem = { kind, message: this.redact(message) };
      if (requestId !== undefined) problem.requestId = this.redact(requestId);
      this.bus.emit('error', problem);
      // The record answered a request but cannot be read: fail that request now, not at its timeout.
      if (requestId !== undefined && this.pending.has(requestId)) {
        this.pending.fail(requestId, localError('invalid_response', `PeersClient: the answer to ${requestId} was refused: ${problem.message}`, { requestId }));
      }
      return;
    }
    const record = verdict.record;
    // An unknown record type is ignored (forward compatibility); one naming a request is progress.
    if (record.kind === 'other') {
      if (record.id !== undefined) this.pending.progress(record.id);
      return;
    }
    // An answer to nothing waiting (one that came after its timeout) is dropped quietly.
    this.pending.settle(record.response);
  }

  private dropped(reason: string): void {
    this.link = undefined;
    const why = this.redact(reason);
    if (!this.ready) {
      // A hello in flight: attach() rejects, and its caller decides what follows.
      this.pending.failAll((id, command) =>
        localError('closed', `PeersClient.connect: the link closed before hello was answered (${why})`, { requestId: id, command }),
      );
      return;
    }
    this.ready = false;
    this.pending.failAll((id, command) =>
      localError('closed', `PeersClient: the link dropped while ${command} ${id} waited for its answer (${why})`, { requestId: id, command }, true),
    );
    if (this.options.reconnect === undefined || this.current !== 'open') {
      this.shutdown(why, true);
      return;
    }
    this.current = 'reconnecting';
    // Started before the event, so a throwing handler cannot stop it.
    void this.reconnect(this.options.reconnect);
    this.bus.emit('disconnect', { reason: why });
  }

  /** Backoff, connect, hello; again until it works, a hello is refused for good, or attempts run out. */
  private reconnect(options: PeersReconnectOptions): Promise<void> {
    return reconnectLoop(options, {
      place: 'PeersClient',
      clock: this.clock,
      sleeper: this.sleeper,
      timeoutMs: this.requestTimeoutMs,
      reconnecting: () => this.current === 'reconnecting',
      attach: (link) => this.attach(link),
      reconnected: (attempt) => {
        this.current = 'open';
        this.bus.emit('reconnect', { attempt, protocolVersion: this.protocolVersion });
      },
      // auth_failed, incompatible_version…: refused for good (not retryable).
      shutdown: (reason, retryable) => this.shutdown(reason, retryable),
      describe: (error) => this.redact(error instanceof Error ? error.message : String(error)),
    });
  }

  private shutdown(reason: string, retryable: boolean): void {
    if (this.current === 'closed') return;
    this.current = 'closed';
    this.sleeper.cancel();
    const link = this.link;
    this.link = undefined;
    this.ready = false;
    const why = this.redact(reason);
    this.pending.failAll((id, command) =>
      localError('closed', `PeersClient: closed while ${command} ${id} waited for its answer (${why})`, { requestId: id, command }, retryable),
    );
    link?.close(why);
    this.bus.emit('close', { reason: why });
  }
}
