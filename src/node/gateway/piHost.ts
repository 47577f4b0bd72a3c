// Host mode: one pi in RPC mode, served as a pi-peers 1.0 agent. pi-peers requests become RPC
// commands; `idle` and `settled` come from pi's events (RunTracker); deliveries are deduplicated
// by id (DeliveryLedger) and refused past the hop limit.

import { hostname } from 'node:os';
import { usageSignal } from '../../agent/pilot/modelSignals.js';
import { negotiateVersion, PEERS_PROTOCOL, type AgentState, type HelloRecord, type Peer, type UsageTotals } from '../../pi/peersProtocol.js';
import { clip } from './access.js';
import { DeliveryLedger } from './deliveryLedger.js';
import { PiProcess, type PiEvent, type PiProcessOptions, type RpcResponse } from './piProcess.js';
import { withProvenance } from './provenance.js';
import { replyTextOf } from './replyText.js';
import { RunEnding } from './runEnding.js';
import { failure, success, type BrowserRecord, type Response } from './records.js';
import { RunTracker, type RunTrackerOptions } from './runTracker.js';

export interface PiHostOptions extends PiProcessOptions, RunTrackerOptions {
  /** The agent id browsers see (default pi's session id). */
  id?: string;
  /** The agent label browsers see (default "pi"). */
  label?: string;
  /** Most peer messages in a chain, this one included (default 3, as pi-peers says). */
  hopLimit?: number;
  /** How long a delivery id is remembered (default ten minutes). */
  dedupeTtlMs?: number;
  now?: () => number;
}

export const HOP_LIMIT = 3;
/**
 * Longest a `get_state` may be held open by the reply-wait extension, in ms: below PeersClient's
 * 30 s request timeout, so a held request never reads as a dead link.
 */
export const MAX_STATE_HOLD_MS = 20_000;
/** The prompt that starts a run for messages pi left in its queue (see takeInStranded). */
export const STRANDED_NOTE = '(Messages that reached you as your last reply ended follow.)';
type DeliveryType = 'prompt' | 'steer' | 'follow_up';

export class PiHost {
  readonly tracker: RunTracker;
  private readonly ledger: DeliveryLedger;
  private readonly hopLimit: number;
  private readonly startedAt: string;
  /** The text of the last run's reply when its agent_end told it plainly (see replyText.ts). */
  private reply: string | null | undefined;
  private readonly ending = new RunEnding();
  private nativeCharacters: string[] = [];
  /** pi's usage summed over its model messages, once it has reported any. */
  private usage: UsageTotals | undefined;

  private constructor(
    private readonly pi: PiProcess,
    private readonly identity: { id: string; label: string; piSessionId?: string },
    options: PiHostOptions,
  ) {
    this.tracker = new RunTracker(options);
    this.ledger = new DeliveryLedger({
      ...(options.dedupeTtlMs === undefined ? {} : { ttlMs: options.dedupeTtlMs }),
      ...(options.now === undefined ? {} : { now: options.now }),
    });
    this.hopLimit = options.hopLimit ?? HOP_LIMIT;
    this.startedAt = new Date((options.now ?? Date.now)()).toISOString();
    pi.onEvent((event) => {
      // Read before the tracker hears of it: the run may settle on this very event.
      if (event.type === 'agent_start') this.reply = undefined;
      else if (event.type === 'agent_end') this.reply = replyTextOf(event);
      else if (event.type === 'message_end') this.addUsage(event);
      this.ending.event(event);
      this.tracker.event(event);
      // A run has settled on agent_end in the 0.73 dialect, on agent_settled in the 1.x one.
      if (event.type === 'agent_settled' || (event.type === 'agent_end' && this.tracker.dialect !== 'agent_settled')) this.takeInStranded();
    });
    pi.onExit(() => this.tracker.stop());
  }

  /** Starts pi and resolves once it answers; rejects with pi's complaint if it cannot start. */
  static async start(options: PiHostOptions = {}): Promise<PiHost> {
    const pi = await PiProcess.start(options);
    const state = await pi.request({ type: 'get_state' }).catch(() => undefined);
    const sessionId = (state?.data as { sessionId?: unknown } | undefined)?.sessionId;
    const piSessionId = typeof sessionId === 'string' ? sessionId : undefined;
    const identity = {
      id: options.id ?? piSessionId ?? `pi-${pi.pid ?? 'unknown'}`,
      label: options.label ?? 'pi',
      ...(piSessionId === undefined ? {} : { piSessionId }),
    };
    return new PiHost(pi, identity, options);
  }

  /** Why pi is gone, or undefined while it runs. */
  get exit(): string | undefined {
    return this.pi.exit;
  }

  onExit(listener: (description: string) => void): () => void {
    return this.pi.onExit(listener);
  }

  /** Says in get_state that pi calls these characters' tools natively (it has their MCP server). */
  setNativeCharacters(characters: readonly string[]): void {
    this.nativeCharacters = [...characters];
  }

  /** get_state data: who the agent is, plus its live `idle`, `settled` and `status`, and the gateway's extensions. */
  state(): AgentState {
    const state: AgentState = {
      schemaVersion: PEERS_PROTOCOL.version,
      protocol: { ...PEERS_PROTOCOL },
      id: this.identity.id,
      label: this.identity.label,
      host: hostname(),
      runtime: process.platform,
      cwd: this.pi.cwd,
      startedAt: this.startedAt,
      idle: this.tracker.idle,
      settled: this.tracker.settled,
      status: this.pi.exit !== undefined ? 'agent_unavailable' : this.tracker.idle ? 'idle' : 'busy',
    };
    if (this.pi.pid !== undefined) state.pid = this.pi.pid;
    if (this.identity.piSessionId !== undefined) state.piSessionId = this.identity.piSessionId;
    if (this.nativeCharacters.length > 0) state.aiccNativeCharacters = [...this.nativeCharacters];
    if (this.usage !== undefined) state.aiccUsage = { ...this.usage };
    return state;
  }

  /** A model message ended: its usage, as pi wrote it, joins the totals. */
  private addUsage(event: PiEvent): void {
    const usage = usageOfMessage(event);
    if (usage === undefined) return;
    const totals = (this.usage ??= { inputTokens: 0, outputTokens: 0, costUsd: 0 });
    totals.inputTokens += usage.inputTokens ?? 0;
    totals.outputTokens += usage.outputTokens ?? 0;
    totals.costUsd += usage.costUsd ?? 0;
  }

  /** Answers a checked hello: the negotiated version and who the agent is, or incompatible_version. */
  hello(hello: HelloRecord): Response {
    const version = negotiateVersion(PEERS_PROTOCOL, hello.protocol);
    if (version === undefined) {
      return failure(
        hello.id,
        'hello',
        'incompatible_version',
        `this agent speaks pi-peers ${PEERS_PROTOCOL.minVersion} to ${PEERS_PROTOCOL.version}; the client asked for ${hello.protocol.minVersion} to ${hello.protocol.version}`,
      );
    }
    return success(hello.id, 'hello', { version, protocol: { ...PEERS_PROTOCOL }, agent: this.state() });
  }

  /** Answers one request after the hello. `from` is the sender named in that hello. */
  async handle(record: BrowserRecord, from: Peer | undefined): Promise<Response> {
    const id = record.id ?? '';
    switch (record.type) {
      case 'get_state':
        return typeof record.settledAbove === 'number' ? this.stateOnceSettled(id, record) : success(id, 'get_state', this.state());
      case 'get_last_assistant_text':
        return this.call(id, { type: 'get_last_assistant_text' }, (data) => {
          // pi 0.73 leaves `text` out when there is no reply yet; pi-peers says null.
          const text = (data as { text?: unknown } | undefined)?.text;
          return { text: typeof text === 'string' ? text : null };
        });
      case 'prompt':
      case 'steer':
      case 'follow_up':
        return this.deliver(record, record.type, from);
      case 'abort':
        // pi answers an abort only once the run has ended.
        return this.call(id, { type: 'abort' });
      case 'hello':
        return failure(id, 'hello', 'invalid_request', 'hello is sent once, first');
      default:
        return failure(id, clip(record.type, 40), 'unsupported_command', `"${clip(record.type, 40)}" is not a pi-peers command this agent serves`);
    }
  }

  /**
   * The reply-wait extension of get_state (docs/PILOT.md): `{settledAbove: n, holdMs?}` is answered
   * once `settled > n` and pi is idle — with that reply's text as `lastAssistantText` — or after
   * `holdMs` (at most MAX_STATE_HOLD_MS) with the state as it is then. `held: true` tells the client
   * that this agent serves the extension, so it can ask again at once instead of polling. A plain
   * pi-peers agent ignores both fields and answers at once, without `held`.
   */
  private async stateOnceSettled(id: string, record: BrowserRecord): Promise<Response> {
    const since = record.settledAbove as number;
    const holdMs = typeof record.holdMs === 'number' && record.holdMs >= 0 ? Math.min(record.holdMs, MAX_STATE_HOLD_MS) : MAX_STATE_HOLD_MS;
    if (!Number.isSafeInteger(since) || since < 0) return failure(id, 'get_state', 'invalid_request', '"settledAbove" must be a whole number from 0');
    const ready = (): boolean => this.tracker.settled > since && this.tracker.idle;
    const deadline = Date.now() + holdMs;
    // Looped: a run that settles may at once start another (a stranded message), so ready() is
    // checked again once the listeners are through.
    while (!ready() && this.pi.exit === undefined && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, deadline - Date.now());
        const stop = this.tracker.onChange(() => {
          if (ready() || this.pi.exit !== undefined) done();
        });
        function done(): void {
          clearTimeout(timer);
          stop();
          resolve();
        }
      });
    }
    const state = this.state();
    if (!ready()) return success(id, 'get_state', { ...state, held: true });
    if (this.reply !== undefined) return success(id, 'get_state', { ...state, held: true, lastAssistantText: this.reply });
    // The text is read here, one pipe away from pi, instead of in a second browser round trip.
    const text = await this.call(id, { type: 'get_last_assistant_text' }, (data) => (data as { text?: unknown } | undefined)?.text);
    const lastAssistantText = text.success && typeof text.data === 'string' ? text.data : null;
    return text.success ? success(id, 'get_state', { ...state, held: true, lastAssistantText }) : text;
  }

  /**
   * Has pi connect again to one of its MCP servers (`/mcp reconnect <server>`, a command of pi 1.x's
   * built-in MCP extension, run at once even mid-run and never shown to the model). pi connects at
   * start and does not retry a server that answered 404, as the gateway does for a character no page
   * lends yet: the gateway calls this when the page lends it. Resolves with whether pi took it.
   */
  async reconnectMcp(server: string): Promise<boolean> {
    if (this.pi.mcpAgentDir === undefined) return false; // without MCP, the text would reach the model
    const response = await this.rpc({ type: 'prompt', message: `/mcp reconnect ${server}` });
    return !(response instanceof Error) && response.success && (response.data as { disposition?: unknown } | undefined)?.disposition === 'handled';
  }

  async close(): Promise<void> {
    await this.pi.close();
    this.tracker.stop();
  }

  private async deliver(record: BrowserRecord, type: DeliveryType, from: Peer | undefined): Promise<Response> {
    const id = record.id ?? '';
    const { message, hops, awaitsReply } = record;
    if (typeof message !== 'string' || message === '') return failure(id, type, 'invalid_request', `a ${type} needs a non-empty string "message"`);
    if (hops !== undefined && (!Number.isSafeInteger(hops) || (hops as number) < 1))
      return failure(id, type, 'invalid_request', '"hops" must be a whole number from 1');
    if (awaitsReply !== undefined && typeof awaitsReply !== 'boolean') return failure(id, type, 'invalid_request', '"awaitsReply" must be true or false');
    const { response } = await this.ledger.once(id, async () => {
      if (hops !== undefined && (hops as number) > this.hopLimit) {
        return failure(id, type, 'hop_limit', `this message is hop ${hops as number} of a chain of peer messages; at most ${this.hopLimit} are delivered`);
      }
      const text = withProvenance(message, { from, hops: hops as number | undefined, awaitsReply, hopLimit: this.hopLimit });
      return this.send(id, type, text);
    });
    return response;
  }

  /**
   * Puts a delivery to pi. While pi runs, a prompt is queued as a follow-up and steer/follow_up go
   * as themselves. While pi is idle all three go as a prompt: an idle pi only queues a steer or
   * follow_up until some later prompt, so the message would sit unseen. The response's
   * `data.deliveredAs` says which way it went: "prompt" (a new run), "steer" or "follow_up".
   */
  private async send(id: string, type: DeliveryType, message: string): Promise<Response> {
    // pi 0.73 past its last look at the queues would leave a queued message unseen: wait for the
    // run to settle and start a new one with it instead.
    if (this.runEnding) await this.untilIdle();
    if (this.tracker.idle) {
      this.tracker.promptSent(true);
      const response = await this.rpc({ type: 'prompt', message });
      this.tracker.promptAnswered(response instanceof Error ? undefined : response, true);
      if (response instanceof Error || response.success || !/already processing/i.test(response.error ?? '')) return this.answer(id, type, response, 'prompt');
      // pi had started a run we had not heard of yet: fall through and queue behind it.
    }
    const queueAs = type === 'steer' ? 'steer' : 'follow_up';
    const response = await this.rpc(type === 'prompt' ? { type: 'prompt', message, streamingBehavior: 'followUp' } : { type: queueAs, message });
    if (!(response instanceof Error) && response.success) this.ending.queuedInto(message);
    return this.answer(id, type, response, queueAs);
  }

  /**
   * True from the moment pi 0.73's run has its final reply (pi will not look at its queues again)
   * until the run settles. Always false for pi 1.x, which runs late messages itself until its very
   * last look (what comes after that is found by takeInStranded).
   */
  get runEnding(): boolean {
    return this.ending.finishing && !this.tracker.idle && this.tracker.dialect !== 'agent_settled';
  }

  private untilIdle(): Promise<void> {
    return new Promise((resolve) => {
      const stop = this.tracker.onChange(() => {
        if (!this.tracker.idle && this.pi.exit === undefined) return;
        stop();
        resolve();
      });
    });
  }

  /**
   * pi ended a run without taking in a message queued into it (it arrived after pi's last look at
   * its queues): start a run for it. pi puts queued steers at the start of the next run, after
   * its prompt, so the prompt is a note saying where the message comes from rather than its text,
   * which would then be read twice; queued follow-ups come after the first reply of that run.
   */
  private takeInStranded(): void {
    const stranded = this.ending.stranded();
    if (stranded.length === 0 || !this.tracker.idle) return;
    this.tracker.promptSent(true);
    void this.rpc({ type: 'prompt', message: STRANDED_NOTE }).then((response) =>
      this.tracker.promptAnswered(response instanceof Error ? undefined : response, true),
    );
  }

  private answer(id: string, type: DeliveryType, response: RpcResponse | Error, deliveredAs: string): Response {
    if (response instanceof Error) return this.unavailable(id, type, response);
    if (!response.success) return failure(id, type, 'internal_error', `pi refused the ${type}: ${response.error ?? 'no reason given'}`);
    const data = response.data !== null && typeof response.data === 'object' ? response.data : {};
    return success(id, type, { ...data, deliveredAs });
  }

  /** Sends an RPC command and turns pi's response into a pi-peers one. */
  private async call(id: string, command: { type: string }, shape: (data: unknown) => unknown = (data) => data): Promise<Response> {
    const response = await this.rpc(command);
    if (response instanceof Error) return this.unavailable(id, command.type, response);
    if (!response.success) return failure(id, command.type, 'internal_error', `pi: ${response.error ?? 'no reason given'}`);
    return success(id, command.type, shape(response.data));
  }

  private rpc(command: { type: string } & Record<string, unknown>): Promise<RpcResponse | Error> {
    return this.pi.request(command).then(
      (response) => {
        this.tracker.learnDialect(response);
        return response;
      },
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
    );
  }

  private unavailable(id: string, command: string, error: Error): Response {
    return this.pi.exit !== undefined
      ? failure(id, command, 'agent_unavailable', `the hosted pi is gone: ${this.pi.exit}`)
      : failure(id, command, 'internal_error', error.message, true);
  }
}

/** The usage on a model message's message_end (pi's RPC event), as pi wrote it. */
function usageOfMessage(event: PiEvent): { inputTokens?: number; outputTokens?: number; costUsd?: number } | undefined {
  const message = (event as { message?: { role?: unknown; usage?: unknown } }).message;
  if (message?.role !== 'assistant') return undefined;
  const signal = usageSignal(message.usage);
  return signal?.type === 'usage' ? signal : undefined;
}
