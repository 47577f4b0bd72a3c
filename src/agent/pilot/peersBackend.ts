// A ChatBackend over pi-peers 1.0. The peers protocol has no "reply" message: a sender reads the
// agent's `settled` count (completed runs), delivers, waits until the count has grown and the agent
// is idle, then reads the last assistant text. This module keeps that bookkeeping out of the pilot.

import type { ChatBackend, ChatSignal, SendKind } from './backend.js';

/** What a delivery carries besides its text (pi-peers `Delivery`). */
export interface PeersDeliveryOptions {
  /** The dedupe key: a repeated id within 10 minutes gets the original response. */
  id: string;
  /** Peer messages in the chain, this one included; the peer refuses more than 3. */
  hops?: number;
  /** The sender waits for the answer; shapes the hint the receiving model sees. */
  awaitsReply?: boolean;
}

/** The part of pi-peers `AgentState` this backend reads. */
export interface PeersStateLike {
  idle?: boolean;
  /** Completed agent runs. */
  settled?: number;
  /** The aicc gateway's extension: characters whose tools the agent calls natively. */
  aiccNativeCharacters?: unknown;
  /** The aicc gateway's extension: pi's usage summed since it started. */
  aiccUsage?: unknown;
}

/** A pi-peers response, as far as this backend reads it (pi's RPC response + errorCode, retryable). */
interface PeersResponseLike {
  success?: boolean;
  error?: string;
  errorCode?: string;
  retryable?: boolean;
}

/**
 * The shape of `PeersClient` (src/pi/peersClient.ts) this backend uses, declared here so the two can
 * be built apart. Results are typed loosely on purpose: `deliver` may resolve with a failed response
 * or reject with an error carrying `retryable`; `waitForReply` may give the text or an object holding it.
 */
export interface PeersClientLike {
  deliver(kind: SendKind, message: string, options: PeersDeliveryOptions): Promise<unknown>;
  getState(): Promise<PeersStateLike>;
  waitForReply(
    sinceSettled: number,
    options?: { signal?: AbortSignal; pollMs?: number; onSettled?: (state: PeersStateLike) => void },
  ): Promise<string | null | undefined | { text?: string | null }>;
  /** pi-peers 1.0 has no abort request; a client that can stop a run some other way offers this. */
  abort?(): Promise<unknown>;
  close?(): void;
  /** PeersClient's `close` event: the client closed for good (see ChatBackend.onGone). */
  on?(type: 'close', handler: (event: { reason: string }) => void): () => void;
}

export interface PeersBackendOptions {
  /** Prefix of delivery ids; each send gets `${idPrefix}-${n}`. Default: a random one. */
  idPrefix?: string;
  /** Attempts per send when the peer says a failure is retryable; the same id each time. Default 3. */
  attempts?: number;
  /**
   * How often to ask the agent whether its reply is ready (pi-peers has no "done" notice). Every
   * poll is a get_state round trip, cheap on loopback; it bounds the pilot's reaction time. Default 20 ms.
   */
  pollMs?: number;
}

export class PeersBackend implements ChatBackend {
  private readonly idPrefix: string;
  private readonly attempts: number;
  private readonly pollMs: number;
  private sent = 0;
  /** `settled` before the run being waited on; undefined when nothing is outstanding. */
  private baseline: number | undefined;
  /** The agent's usage totals (the gateway's aiccUsage) read with the baseline, if it gave them. */
  private usageBaseline: Totals | undefined;
  private readonly observers = new Set<(signal: ChatSignal) => void>();
  private running = false;
  /** Reply waits in progress, so abort() and close() can end them. */
  private readonly waits = new Set<AbortController>();
  private closed = false;

  constructor(
    private readonly peers: PeersClientLike,
    options: PeersBackendOptions = {},
  ) {
    this.idPrefix = options.idPrefix ?? `pilot-${Math.random().toString(36).slice(2, 10)}`;
    this.attempts = Math.max(1, options.attempts ?? 3);
    this.pollMs = options.pollMs ?? 20;
  }

  get busy(): boolean {
    return this.running;
  }

  /** The gateway hosting pi with a character's MCP server says so in get_state (`aiccNativeCharacters`). */
  async callsToolsNatively(character: string): Promise<boolean> {
    const { aiccNativeCharacters: native } = await this.peers.getState();
    return Array.isArray(native) && native.includes(character);
  }

  async send(kind: SendKind, text: string): Promise<void> {
    if (this.closed) throw new Error('PeersBackend.send: the backend is closed');
    // A steer or follow_up that reaches an idle pi waits in its queue and starts nothing, and a
    // prompt to a running pi is refused: so the kind follows what the agent is doing now.
    let wire = kind;
    if (!this.running || kind === 'prompt') {
      const state = await this.peers.getState();
      const idle = state.idle !== false;
      wire = idle ? 'prompt' : kind === 'prompt' ? 'follow_up' : kind;
      if (this.baseline === undefined) {
        this.baseline = state.settled ?? 0;
        this.usageBaseline = totalsOf(state.aiccUsage) ?? ZERO;
      }
    }
    const id = `${this.idPrefix}-${++this.sent}`;
    // The pilot is where the chain starts: one hop. It always reads the answer: awaitsReply.
    // A retry reuses the id: the peer dedupes it, so the model never gets the text twice.
    for (let attempt = 1; ; attempt++) {
      let failure: PeersResponseLike | undefined;
      try {
        failure = refusalOf(await this.peers.deliver(wire, text, { id, hops: 1, awaitsReply: true }));
      } catch (error) {
        failure = { error: error instanceof Error ? error.message : String(error), retryable: (error as { retryable?: unknown } | null)?.retryable === true };
        const code = (error as { code?: unknown } | null)?.code;
        if (typeof code === 'string') failure.errorCode = code;
      }
      if (failure === undefined) break;
      if (failure.retryable !== true || attempt >= this.attempts) {
        throw new Error(
          `PeersBackend.send: the peer refused the ${wire}: ${failure.error ?? 'no reason given'}${failure.errorCode === undefined ? '' : ` (${failure.errorCode})`}`,
        );
      }
    }
    this.running = true;
  }

  async reply(signal?: AbortSignal): Promise<string | null> {
    const since = this.baseline;
    if (since === undefined) return null;
    const wait = new AbortController();
    this.waits.add(wait);
    const stop = (): void => wait.abort();
    signal?.addEventListener('abort', stop, { once: true });
    if (signal?.aborted === true) wait.abort();
    try {
      const onSettled = (state: PeersStateLike): void => this.tellUsage(state);
      const answer = await abortable(this.peers.waitForReply(since, { signal: wait.signal, pollMs: this.pollMs, onSettled }), wait.signal);
      // An abandoned wait leaves the run as it was: a later reply() still waits for it to settle.
      if (wait.signal.aborted) return null;
      // The run is over: the next send starts from a fresh count.
      this.baseline = undefined;
      this.usageBaseline = undefined;
      this.running = false;
      return textOf(answer);
    } finally {
      signal?.removeEventListener('abort', stop);
      this.waits.delete(wait);
    }
  }

  /**
   * pi-peers 1.0 has no events: what this backend sees of the model is the usage a gateway hosting
   * pi adds to get_state (aiccUsage), told once per reply as the difference since the send. No
   * `token` signal: the time to the first token stays unknown over pi-peers.
   */
  observe(listener: (signal: ChatSignal) => void): () => void {
    this.observers.add(listener);
    return () => void this.observers.delete(listener);
  }

  private tellUsage(state: PeersStateLike): void {
    const now = totalsOf(state.aiccUsage);
    const before = this.usageBaseline;
    if (now === undefined || before === undefined) return;
    const spent = {
      inputTokens: now.inputTokens - before.inputTokens,
      outputTokens: now.outputTokens - before.outputTokens,
      costUsd: now.costUsd - before.costUsd,
    };
    // Totals that went down belong to another pi (restarted): nothing can be said of this reply.
    if (spent.inputTokens < 0 || spent.outputTokens < 0 || spent.costUsd < 0) return;
    const signal: ChatSignal = { type: 'usage', ...spent };
    for (const observer of this.observers) observer(signal);
  }

  /** The client closed for good, not by this backend's close(); never, for a client without `on`. */
  onGone(listener: (reason: string) => void): () => void {
    return (
      this.peers.on?.('close', ({ reason }) => {
        if (!this.closed) listener(reason);
      }) ?? (() => {})
    );
  }

  async abort(): Promise<void> {
    for (const wait of this.waits) wait.abort();
    // Without a way to stop the remote run, the next reply waits on the same run to settle.
    if (this.peers.abort !== undefined) {
      await this.peers.abort();
      this.running = false;
      this.baseline = undefined;
      this.usageBaseline = undefined;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const wait of this.waits) wait.abort();
    this.running = false;
    this.peers.close?.();
  }
}

interface Totals {
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}
const ZERO: Totals = { inputTokens: 0, outputTokens: 0, costUsd: 0 };

/** aiccUsage as totals, or undefined when it is absent or not three counts. */
function totalsOf(usage: unknown): Totals | undefined {
  if (usage === null || typeof usage !== 'object') return undefined;
  const { inputTokens, outputTokens, costUsd } = usage as Record<string, unknown>;
  const counts = [inputTokens, outputTokens, costUsd];
  return counts.every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0)
    ? { inputTokens: inputTokens as number, outputTokens: outputTokens as number, costUsd: costUsd as number }
    : undefined;
}

function refusalOf(response: unknown): PeersResponseLike | undefined {
  if (typeof response !== 'object' || response === null) return undefined;
  const r = response as PeersResponseLike;
  return r.success === false ? r : undefined;
}

function textOf(answer: string | null | undefined | { text?: string | null }): string | null {
  if (typeof answer === 'string') return answer;
  if (answer === null || answer === undefined) return null;
  return typeof answer.text === 'string' ? answer.text : null;
}

/** The promise's value, or null once `signal` aborts (the wait ends; the remote run does not). Shared with DaemonBackend. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | null> {
  if (signal.aborted) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(null);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
