// A ChatBackend over pi-daemon protocol v2: one daemon session per character (a new generation for
// each incarnation of it), one `wake` per decision, `steer` / `followUp` into the running wake, and
// text that finds no running wake queued for the next one. The pilot itself is the same as over
// pi-peers; only this bookkeeping differs.
//
// What the real daemon (pi-daemon 0.3.3) does that this survives: a session the host lost — evicted
// after its idle time, or gone with a restarted host — answers session_not_found, and its generation
// cannot be opened again (ephemeral_session_unavailable); so the backend opens the next generation,
// briefs it again and carries on. It never takes over an incarnation it did not open itself: it
// opens one above the session the host shows, and when a generation turns out taken by one the host
// no longer shows, one drawn from the clock, above any a previous run could have used.

import type { OpenOptions, SessionRef } from '../../pi/daemonProtocol.js';
import type { ChatBackend, ChatSignal, SendKind } from './backend.js';
import { ModelSignals, type MessagePhase } from './modelSignals.js';
import { messageOf } from '../../base/errors.js';
import { codeOf, type DaemonClientLike, GENERATION_TAKEN, hostSession, nextGeneration, retryable, stopIncarnation } from './daemonHost.js';

export type { DaemonClientLike } from './daemonHost.js';
import { abortable } from './peersBackend.js';

export interface DaemonBackendOptions {
  /** The character's session on the host: one per character. */
  sessionId: string;
  /**
   * The session's working folder on the host. It must lie under one of the daemon's `--allow-root`
   * folders and not overlap its state or agent folders, or the host refuses to open it.
   */
  cwd: string;
  /**
   * This incarnation of the character. Default: one above the session's generation on the host
   * (read with `status`, or, through a gateway that shows a page only the sessions it opened, from
   * an open answered "there already"), so that a new character replaces the previous one's session;
   * when the host shows none, 1 — or, if the host says a session it no longer shows had that one
   * (closed, evicted), the clock's milliseconds, above any generation an earlier run could have used.
   */
  generation?: number;
  /** The rest of `open`'s payload. Default: a memory session, the host's model, no system prompt. */
  open?: Partial<Omit<OpenOptions, 'cwd'>>;
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
export const DAEMON_BACKEND_DEFAULTS = Object.freeze({ attempts: 3, maxQueuedTexts: 16, mode: 'memory' as const });

/** Opens tried for one incarnation before giving up (each after the host refused the last generation). */
const OPEN_ATTEMPTS = 4;

/** What the host tells an attached client when it puts a session away (pi-daemon 0.3.3: idle eviction sends the first two). */
const LOSS_EVENTS: ReadonlySet<string> = new Set(['sessionDormant', 'sessionEvicted', 'sessionDeleted']);

/** pi's message events as pi-daemon names them: the model at work (ChatSignal). */
const MESSAGE_PHASES: Readonly<Record<string, MessagePhase>> = { messageStart: 'start', messageUpdate: 'update', messageEnd: 'end' };

/** How long a send waits for a client that lost its link to be connected again. */
const RECONNECT_WAIT_MS = 30_000;

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
  /** The first prompt (the briefing): sent again when the host lost a memory session. */
  private firstPrompt: string | undefined;
  /** The last prompt after the briefing (the latest digest): carried over to a new incarnation. */
  private lastPrompt: string | undefined;
  /** The host lost the session (it restarted): the next send opens a new generation. */
  private lost = false;
  private closed = false;
  private readonly offs: Array<() => void> = [];
  private readonly signals = new ModelSignals();
  private readonly observers = new Set<(signal: ChatSignal) => void>();
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
        if (event.sessionId !== this.ref.sessionId || event.generation !== this.ref.generation) return;
        const phase = MESSAGE_PHASES[event.event];
        if (phase !== undefined) this.tell(this.signals.read(phase, event.data));
        else if (event.event === 'promptAccepted') this.wake?.accepted();
        // Evicted after its idle time (or otherwise put away by the host): the next send opens a new incarnation.
        else if (LOSS_EVENTS.has(event.event)) this.lost = true;
      }),
      client.on('reconnect', (report) => {
        if (report.hostChanged || report.lost.some((lost) => lost.sessionId === this.ref.sessionId)) this.lost = true;
      }),
      client.on('host', () => (this.lost = true)),
    );
  }

  /** Opens and attaches the character's session; rejects with the client's DaemonError. */
  static async open(client: DaemonClientLike, options: DaemonBackendOptions): Promise<DaemonBackend> {
    if (typeof options?.cwd !== 'string' || options.cwd.length === 0) {
      throw new Error("DaemonBackend.open: options.cwd must name the session's folder on the host, under one of the daemon's --allow-root folders");
    }
    const onHost = options.generation === undefined ? await hostSession(client, options.sessionId) : undefined;
    const backend = new DaemonBackend(client, options, options.generation ?? nextGeneration(onHost));
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

  /** Streamed tokens and pi's usage, from the session's message events (ChatBackend.observe). */
  observe(listener: (signal: ChatSignal) => void): () => void {
    this.observers.add(listener);
    return () => this.observers.delete(listener);
  }

  /** The client closed for good (it gave up reconnecting, or has no reconnect), not by this backend's close(). */
  onGone(listener: (reason: string) => void): () => void {
    return this.client.on('close', ({ reason }) => this.closed || listener(reason));
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

  /**
   * Opens the session at this.ref's generation, or the next ones while the host says that one is
   * taken (a newer incarnation, a lost session's generation), then attaches to it.
   */
  private async openSession(): Promise<void> {
    const open = this.options.open ?? {};
    const payload: OpenOptions = { ...open, cwd: this.options.cwd, session: open.session ?? { mode: DAEMON_BACKEND_DEFAULTS.mode } };
    for (let attempt = 1; ; attempt++) {
      let opened: Awaited<ReturnType<DaemonClientLike['open']>>;
      try {
        opened = await this.client.open(this.ref, payload);
      } catch (error) {
        const code = codeOf(error);
        if (code === 'cwd_not_allowed' || code === 'authority_root_overlap') {
          throw new Error(
            `DaemonBackend: the host will not open a session in ${this.options.cwd}: start the daemon with an --allow-root that holds this folder and does not overlap its --state-dir or --agent-dir (${messageOf(error)})`,
          );
        }
        if (attempt >= OPEN_ATTEMPTS || (code !== 'session_busy' && !GENERATION_TAKEN.has(code as string))) throw error;
        const onHost = await hostSession(this.client, this.ref.sessionId).catch(() => undefined);
        if (code === 'session_busy') {
          // The incarnation before is still at work (its run was cut short mid-wake): the host
          // replaces only an idle session, so that one is stopped first.
          if (onHost !== undefined) await stopIncarnation(this.client, { sessionId: this.ref.sessionId, generation: onHost.generation });
          continue;
        }
        // Taken by a session the host still shows: the one above it. Taken by one it no longer shows
        // (closed, evicted, lost with a restart): its number is unknown, but it was drawn before now.
        this.ref = { ...this.ref, generation: Math.max(this.ref.generation + 1, onHost === undefined ? Date.now() : onHost.generation + 1) };
        continue;
      }
      // The generation was there already, an earlier run's: where the host would not show it before
      // (a gateway shows a page only the sessions it opened), this run goes one above it.
      if (opened.created || this.options.generation !== undefined || attempt >= OPEN_ATTEMPTS) break;
      this.ref = { ...this.ref, generation: Math.max(this.ref.generation, opened.session.generation) + 1 };
    }
    await this.client.attach(this.ref);
  }

  /** Starts one wake; resolves once the host has accepted its prompt, rejects when it refuses it. */
  private async startWake(text: string, again = false): Promise<void> {
    if (this.lost) await this.reincarnate();
    const isFirst = this.firstPrompt === undefined;
    this.firstPrompt ??= text;
    const queued = this.queued.splice(0);
    const prompt = [...queued, text].join('\n\n');
    let accept!: () => void;
    const accepted = new Promise<void>((resolve) => (accept = resolve));
    const promise = this.client
      .wake(this.ref, { prompt, idempotencyKey: this.nextKey(), source: 'aicc-pilot' })
      .then((answer) => (answer.terminal ? answer.result.text : ''));
    const wake: Outstanding = { promise, accepted: accept, done: false };
    this.wake = wake;
    const finished = (): boolean => (wake.done = true);
    promise.then(finished, finished);
    try {
      // Accepted when the promptAccepted event arrives, or the answer itself (whichever is first).
      await Promise.race([accepted, promise]);
    } catch (error) {
      if (this.wake === wake) this.wake = undefined;
      if (isFirst) this.firstPrompt = undefined;
      // Evicted while idle, or gone with a restarted host: a new incarnation, once. The link down
      // while the client reconnects: the same wake once it is back (a restarted host also lost the
      // session: the reconnect says so, and the wake goes to a new incarnation).
      if (!again && (codeOf(error) === 'session_not_found' || (await this.reconnected(error)))) {
        if (codeOf(error) === 'session_not_found') this.lost = true;
        this.queued.unshift(...queued);
        return this.startWake(text, true);
      }
      throw new Error(`DaemonBackend.send: the host refused the wake: ${messageOf(error)}`);
    }
    if (!isFirst) this.lastPrompt = text;
  }

  /**
   * The host lost the session: the next generation, briefed again, with the latest digest carried
   * over, if its memory went with it.
   */
  private async reincarnate(): Promise<void> {
    this.ref = { ...this.ref, generation: this.ref.generation + 1 };
    await this.openSession();
    this.lost = false;
    const mode = this.options.open?.session?.mode ?? DAEMON_BACKEND_DEFAULTS.mode;
    if (mode === 'memory' && this.firstPrompt !== undefined) {
      this.queued.unshift(...(this.lastPrompt === undefined ? [this.firstPrompt] : [this.firstPrompt, this.lastPrompt]));
    }
  }

  /**
   * Whether `error` came from a link that was down while the client reconnected, and the client is
   * connected again now (waiting for it, at most RECONNECT_WAIT_MS); false for anything else.
   */
  private reconnected(error: unknown): Promise<boolean> {
    if (codeOf(error) !== 'closed' || this.client.state === 'closed') return Promise.resolve(false);
    if (this.client.state === 'open') return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (back: boolean): void => {
        clearTimeout(timer);
        offReconnect();
        offClose();
        resolve(back);
      };
      const timer = setTimeout(() => done(false), RECONNECT_WAIT_MS);
      const offReconnect = this.client.on('reconnect', () => done(true));
      const offClose = this.client.on('close', () => done(false));
    });
  }

  private tell(signal: ChatSignal | undefined): void {
    if (signal === undefined) return;
    for (const listener of [...this.observers]) listener(signal);
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
