// A ChatBackend over pi-daemon protocol v2: one daemon session per character (a new generation for
// each incarnation of it), one `wake` per decision, `steer` / `followUp` into the running wake, and
// text that finds no running wake queued for the next one. The pilot itself is the same as over
// pi-peers; only this bookkeeping differs.

import type { DaemonClient } from '../../pi/daemonClient.js';
import type { OpenOptions, SessionRef } from '../../pi/daemonProtocol.js';
import type { ChatBackend, SendKind } from './backend.js';
import { abortable } from './peersBackend.js';

/** The part of DaemonClient (src/pi/daemonClient.ts) this backend uses. */
export type DaemonClientLike = Pick<DaemonClient, 'open' | 'attach' | 'wake' | 'steer' | 'followUp' | 'abort' | 'close' | 'status' | 'on'>;

export interface DaemonBackendOptions {
  /** The character's session on the host: one per character. */
  sessionId: string;
  /**
   * This incarnation of the character. Default: one above the session's generation on the host
   * (read with `status`), or 1 for a session the host does not have: a new character replaces the
   * idle session of the previous one.
   */
  generation?: number;
  /** `open`'s payload. Default: cwd "/", a memory session, the host's model, no system prompt. */
  open?: Partial<OpenOptions>;
  /** Prefix of idempotency keys; each wake and steer gets `${keyPrefix}-${n}`. Default: the session id and generation. */
  keyPrefix?: string;
  /** Attempts per steer/followUp when the host says a failure is retryable. Default 3. */
  attempts?: number;
  /** Most texts kept for the next wake when no wake runs to take them. Default 16; the oldest go first. */
  maxQueuedTexts?: number;
  /** close() also closes the daemon session (retainSession false). Default true. */
  closeSession?: boolean;
}

/** Defaults of DaemonBackendOptions. */
export const DAEMON_BACKEND_DEFAULTS = Object.freeze({ attempts: 3, maxQueuedTexts: 16, cwd: '/', mode: 'memory' as const });

interface Outstanding {
  /** The turn's text (an aborted turn's partial text); a failed wake rejects, and reply() throws it. */
  promise: Promise<string>;
  accepted: () => void;
  /** The wake has answered; its text waits for reply() (a fast host answers before it is asked). */
  done: boolean;
}

export class DaemonBackend implements ChatBackend {
  private ref: SessionRef;
  private sent = 0;
  private wake: Outstanding | undefined;
  /** Texts that found no running wake: they open the next wake's prompt. */
  private readonly queued: string[] = [];
  /** The first prompt (the briefing): sent again when a restarted host lost a memory session. */
  private firstPrompt: string | undefined;
  /** The host lost the session (it restarted): the next send opens a new generation. */
  private lost = false;
  private closed = false;
  private readonly offs: Array<() => void> = [];
  private readonly attempts: number;
  private readonly maxQueued: number;

  private constructor(
    private readonly client: DaemonClientLike,
    private readonly options: DaemonBackendOptions,
    generation: number,
  ) {
    this.ref = { sessionId: options.sessionId, generation };
    this.attempts = Math.max(1, options.attempts ?? DAEMON_BACKEND_DEFAULTS.attempts);
    this.maxQueued = Math.max(1, options.maxQueuedTexts ?? DAEMON_BACKEND_DEFAULTS.maxQueuedTexts);
    this.offs.push(
      client.on('event', (event) => {
        if (event.sessionId === this.ref.sessionId && event.generation === this.ref.generation && event.event === 'promptAccepted') this.wake?.accepted();
      }),
      client.on('reconnect', (report) => {
        if (report.hostChanged || report.lost.some((lost) => lost.sessionId === this.ref.sessionId)) this.lost = true;
      }),
      client.on('host', () => (this.lost = true)),
    );
  }

  /** Opens and attaches the character's session; rejects with the client's DaemonError. */
  static async open(client: DaemonClientLike, options: DaemonBackendOptions): Promise<DaemonBackend> {
    const generation = options.generation ?? (await nextGeneration(client, options.sessionId));
    const backend = new DaemonBackend(client, options, generation);
    try {
      await backend.openSession();
    } catch (error) {
      backend.dispose();
      throw error;
    }
    return backend;
  }

  /** The session and generation this backend speaks to now. */
  get session(): SessionRef {
    return { ...this.ref };
  }

  get busy(): boolean {
    return this.wake !== undefined && !this.wake.done;
  }

  async send(kind: SendKind, text: string): Promise<void> {
    if (this.closed) throw new Error('DaemonBackend.send: the backend is closed');
    if (!this.busy) {
      // A steer or follow-up with no wake to take it waits for the next wake (the host would refuse it).
      if (kind !== 'prompt') return this.enqueue(text);
      return this.startWake(text);
    }
    // A prompt while a wake runs joins it as a follow-up, as over pi-peers.
    const operation = kind === 'steer' ? 'steer' : 'followUp';
    // One key for every attempt: a retry of a steer that did reach the host is not queued twice.
    const key = this.nextKey();
    for (let attempt = 1; ; attempt++) {
      try {
        await this.client[operation](this.ref, text, key);
        return;
      } catch (error) {
        // The wake ended between the check and the host: the text goes with the next one.
        if (codeOf(error) === 'session_not_running') return this.enqueue(text);
        if (!retryable(error) || attempt >= this.attempts) throw new Error(`DaemonBackend.send: the host refused the ${operation}: ${messageOf(error)}`);
      }
    }
  }

  async reply(signal?: AbortSignal): Promise<string | null> {
    const wake = this.wake;
    if (wake === undefined) return null;
    let text: string | null;
    try {
      text = await (signal === undefined ? wake.promise : abortable(wake.promise, signal));
    } catch (error) {
      if (this.wake === wake) this.wake = undefined;
      throw error;
    }
    // An abandoned wait leaves the wake running: a later reply() still waits for it.
    if (signal?.aborted === true) return null;
    if (this.wake === wake) this.wake = undefined;
    return text;
  }

  async abort(): Promise<void> {
    if (!this.busy) return;
    // The wake then answers with its partial text, and ends.
    await this.client.abort(this.ref);
  }

  /**
   * Ends the backend and, unless options.closeSession is false, the daemon session. The pilot does
   * not wait; an owner that closes the client next awaits it, so the close reaches the host first.
   * Never rejects: failures are moot (the host may be gone already).
   */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.dispose();
    if (this.options.closeSession === false) return Promise.resolve();
    const ref = this.ref;
    const wake = this.busy ? this.wake : undefined;
    // A session must be idle to close: stop the wake first.
    return (async () => {
      if (wake !== undefined) {
        await this.client.abort(ref);
        await wake.promise.catch(() => undefined);
      }
      await this.client.close(ref, { retainSession: false });
    })().catch(() => undefined);
  }

  // ── internals ──────────────────────────────────────────────────────────────────────────────

  private async openSession(): Promise<void> {
    const open = this.options.open ?? {};
    const payload: OpenOptions = { ...open, cwd: open.cwd ?? DAEMON_BACKEND_DEFAULTS.cwd, session: open.session ?? { mode: DAEMON_BACKEND_DEFAULTS.mode } };
    await this.client.open(this.ref, payload);
    await this.client.attach(this.ref);
  }

  /** Starts one wake; resolves once the host has accepted its prompt, rejects when it refuses it. */
  private async startWake(text: string): Promise<void> {
    if (this.lost) await this.reincarnate();
    const isFirst = this.firstPrompt === undefined;
    this.firstPrompt ??= text;
    const prompt = [...this.queued.splice(0), text].join('\n\n');
    let accept!: () => void;
    const accepted = new Promise<void>((resolve) => (accept = resolve));
    const promise = this.client.wake(this.ref, { prompt, idempotencyKey: this.nextKey(), source: 'aicc-pilot' }).then((answer) => (answer.terminal ? answer.result.text : ''));
    const wake: Outstanding = { promise, accepted: accept, done: false };
    this.wake = wake;
    const finished = (): void => {
      wake.done = true;
    };
    promise.then(finished, finished);
    try {
      // Accepted when the promptAccepted event arrives, or the answer itself (whichever is first).
      await Promise.race([accepted, promise]);
    } catch (error) {
      if (isFirst) this.firstPrompt = undefined;
      throw new Error(`DaemonBackend.send: the host refused the wake: ${messageOf(error)}`);
    }
  }

  /** The host restarted: a new generation of the session, briefed again if its memory went with it. */
  private async reincarnate(): Promise<void> {
    this.ref = { ...this.ref, generation: this.ref.generation + 1 };
    await this.openSession();
    this.lost = false;
    const mode = this.options.open?.session?.mode ?? DAEMON_BACKEND_DEFAULTS.mode;
    if (mode === 'memory' && this.firstPrompt !== undefined) this.queued.unshift(this.firstPrompt);
  }

  private enqueue(text: string): void {
    this.queued.push(text);
    if (this.queued.length > this.maxQueued) this.queued.shift();
  }

  private nextKey(): string {
    return `${this.options.keyPrefix ?? `${this.ref.sessionId}-g${this.ref.generation}`}-${++this.sent}`;
  }

  private dispose(): void {
    for (const off of this.offs.splice(0)) off();
  }
}

/** One above the session's generation on the host; 1 when it has none. */
async function nextGeneration(client: DaemonClientLike, sessionId: string): Promise<number> {
  try {
    const status = (await client.status(sessionId)) as { session?: { generation?: unknown } } | undefined;
    const generation = status?.session?.generation;
    return typeof generation === 'number' && Number.isSafeInteger(generation) && generation >= 0 ? generation + 1 : 1;
  } catch (error) {
    if (codeOf(error) === 'session_not_found') return 1;
    throw error;
  }
}

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

function retryable(error: unknown): boolean {
  return (error as { retryable?: unknown } | null)?.retryable === true;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
