// A pi-peers 1.0 client over any Link (one JSON record per text frame): hello first, requests
// matched to answers by id, typed errors, timeouts that restart on progress, and reconnection with
// backoff (the skeleton it shares with DaemonClient: recordClient.ts). Browser-safe: a browser
// reaches an agent through a gateway, which adds the token.

import type { Link } from '../links/link.js';
import type { Frame } from '../protocol/codec.js';
import { randomUuid } from '../protocol/ids.js';
import { errorFromResponse, localError, PeersError, redactor } from './peersError.js';
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
import { checkRequest, DEFAULT_PEERS_LIMITS, readAgentState, readHelloProtocol, readLastText, readRecord, type InboundRecord } from './peersRecords.js';
import { RecordClient, type RecordClientEvents, type RecordClientOptions, type RecordRead } from './recordClient.js';
import { waitForReply as pollForReply, WAIT_DEFAULTS, type WaitForReplyOptions } from './peersWait.js';

export interface PeersClientOptions extends RecordClientOptions {
  /**
   * The agent's secret from its discovery file. Only Node-side code talking straight to an agent
   * socket has one; a browser never does (the gateway adds it). Never emitted, never in an error.
   */
  token?: string;
  /** Who is speaking: shown to the receiving model. Omitted from hello when not given. */
  from?: Peer;
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

export type PeersClientEvents = RecordClientEvents & {
  /** A new link is open and has said hello. Retry failed deliveries with their ids. */
  reconnect: { attempt: number; protocolVersion: PeersVersion };
};

export class PeersClient extends RecordClient<PeersClientEvents, PeersResponse, InboundRecord, PeersResponse, PeersError> {
  /** The version both sides speak, from the hello. */
  protocolVersion: PeersVersion = PEERS_PROTOCOL.version;
  /** The agent's range, when its hello answer gave one. */
  peerProtocol: VersionRange | undefined;

  private readonly newId: () => string;

  private constructor(private readonly options: PeersClientOptions) {
    super(options, {
      place: 'PeersClient',
      greeting: { command: 'hello', named: 'hello' },
      defaultLimits: DEFAULT_PEERS_LIMITS,
      failure: (code, message, request, retryable) => localError(code, message, request, retryable),
      isFailure: (error) => error instanceof PeersError,
      redact: redactor(options.token),
    });
    this.newId = options.newId ?? (() => randomUuid());
  }

  /**
   * Says hello on `link` and resolves once the agent accepts. Rejects with a PeersError
   * (auth_failed, incompatible_version, hello_required, timeout, closed, …) and closes the link.
   */
  static async connect(link: Link, options: PeersClientOptions = {}): Promise<PeersClient> {
    const client = new PeersClient(options);
    await client.begin(link);
    return client;
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
    const refused = this.refusal(place, record.id, record.type);
    return refused === undefined ? this.exchange(record, place) : Promise.reject(refused);
  }

  /** Sends one record (hello included) and waits for its answer; a failed answer rejects. */
  private async exchange(record: PeersRequest, place: string): Promise<PeersResponse> {
    const invalid = checkRequest(record);
    if (invalid !== undefined)
      throw localError('invalid_request', `${place}: ${this.redact(invalid)}`, { requestId: record.id, command: record.type, local: true });
    const response = await this.transmit(record.id, record.type, JSON.stringify(record), this.requestTimeoutMs);
    if (!response.success) throw errorFromResponse(response, place, this.redact);
    return response;
  }

  // ── the skeleton's steps ───────────────────────────────────────────────────────────────────

  protected greet(): { requestId: string; answer: Promise<PeersResponse> } {
    const hello: HelloRecord = { id: this.newId(), type: 'hello', protocol: { ...PEERS_PROTOCOL } };
    if (this.options.token !== undefined) hello.token = this.options.token;
    if (this.options.from !== undefined) hello.from = { ...this.options.from };
    return { requestId: hello.id, answer: this.exchange(hello, 'PeersClient.connect') };
  }

  protected welcome(response: PeersResponse): void {
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

  protected read(frame: Frame): RecordRead<InboundRecord> {
    return readRecord(frame, this.limits);
  }

  protected accept(record: InboundRecord): void {
    // An unknown record type is ignored (forward compatibility); one naming a request is progress.
    if (record.kind === 'other') {
      if (record.id !== undefined) this.pending.progress(record.id);
      return;
    }
    // An answer to nothing waiting (one that came after its timeout) is dropped quietly.
    this.pending.settle(record.response);
  }

  protected resumer(): (attempt: number) => void {
    return (attempt) => this.bus.emit('reconnect', { attempt, protocolVersion: this.protocolVersion });
  }
}
