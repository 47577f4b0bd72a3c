// The skeleton PeersClient and DaemonClient share: a client of JSON records over one Link at a
// time. It owns the link (listening, greeting, the drop), the requests waiting for answers (bounded,
// timed out on the injected clock), the gate every inbound record passes (a refused one is a
// `problem` event, and fails the request it answered), reconnection with backoff, and shutdown.
// A subclass says only what differs: its greeting (hello or handshake), its record shapes and
// errors, and what it does with what comes in and after a reconnect. One skeleton, so that a fix
// to a drop, a timeout or a reconnect reaches both protocols.

import { createEmitter, type Emitter } from '../base/emitter.js';
import type { Link } from '../links/link.js';
import type { Frame } from '../protocol/codec.js';
import type { InboundLimits } from '../protocol/inbound.js';
import { realClock, type Clock } from '../base/clock.js';
import type { RecordProblem } from './jsonRecord.js';
import { PendingRequests } from './pendingRequests.js';
import { reconnectLoop, Sleeper, type ReconnectOptions } from './reconnect.js';

/** What both clients are told. */
export interface RecordClientOptions {
  /** Default: wall time. Timeouts and reconnect backoff read it. */
  clock?: Clock;
  /** How long a request waits for its answer; restarts on progress (a record naming it). Default 30,000 ms. */
  requestTimeoutMs?: number;
  /** Most requests waiting for answers at once. Default 64. */
  maxPendingRequests?: number;
  /** Inbound bounds. Default 1 MiB frames (lines), depth 32. */
  limits?: Partial<InboundLimits>;
  /** Reconnect after a drop. Without it a drop closes the client. */
  reconnect?: ReconnectOptions;
}

export type RecordClientState = 'connecting' | 'open' | 'reconnecting' | 'closed';

/** The events the skeleton emits; each client adds its own (and its `reconnect`). */
export type RecordClientEvents = {
  /** An inbound record was refused (bounds or schema) and dropped. */
  problem: RecordProblem;
  /** The link dropped; waiting requests failed with a retryable `closed`; reconnecting. */
  disconnect: { reason: string };
  /** The client is closed for good. */
  close: { reason: string };
};

/** The codes of the failures the skeleton decides itself. */
export type SkeletonCode = 'closed' | 'invalid_response' | 'timeout' | 'too_many_pending';

/** The request a skeleton failure names: `command` is pi-peers' command, pi-daemon's operation. */
export interface FailedRequest {
  requestId: string;
  command?: string;
  /** Refused before anything was sent. */
  local?: true;
}

/** What the skeleton needs to know of a client. */
export interface RecordClientSpec<E extends Error> {
  /** Names the client in messages and reasons (`PeersClient`). */
  place: string;
  /** The greeting's command (`hello`, `handshake`) and how a message names it (`hello`, `the handshake`). */
  greeting: { command: string; named: string };
  defaultLimits: Readonly<InboundLimits>;
  /** The client's error for a failure the skeleton decides; `retryable` undefined: the code's default. */
  failure(code: SkeletonCode, message: string, request: FailedRequest, retryable?: boolean): E;
  /** Whether a thrown thing is the client's own error (its `code` names a failed greeting). */
  isFailure(error: unknown): error is E;
  /** Removes a secret from text before it leaves the client. Default: nothing to remove. */
  redact?: (text: string) => string;
}

/** A record read from the link, or why it was refused. */
export type RecordRead<In> = { ok: true; record: In } | { ok: false; problem: RecordProblem };

/**
 * `Events`: the client's events. `Answer`: what settles a pending request (its `id` names it).
 * `In`: an accepted inbound record. `Greeting`: the greeting's answer. `E`: the client's error.
 */
export abstract class RecordClient<Events extends RecordClientEvents, Answer extends { id: string }, In, Greeting, E extends Error & { code: string }> {
  protected readonly bus: Emitter<Events> = createEmitter<Events>();
  protected readonly clock: Clock;
  protected readonly pending: PendingRequests<Answer, E>;
  protected readonly limits: InboundLimits;
  protected readonly requestTimeoutMs: number;
  protected readonly redact: (text: string) => string;
  /** The same bus, typed by the events every client has: TypeScript cannot see that a generic `Events` takes their payloads. */
  private readonly events: Emitter<RecordClientEvents>;
  private readonly sleeper: Sleeper;
  private link: Link | undefined;
  /** The current link has had its greeting answered. */
  private ready = false;
  private current: RecordClientState = 'connecting';

  protected constructor(
    private readonly common: RecordClientOptions,
    private readonly spec: RecordClientSpec<E>,
  ) {
    this.clock = common.clock ?? realClock();
    this.requestTimeoutMs = common.requestTimeoutMs ?? 30_000;
    this.limits = { ...spec.defaultLimits, ...common.limits };
    this.redact = spec.redact ?? ((text) => text);
    this.events = this.bus as unknown as Emitter<RecordClientEvents>;
    this.sleeper = new Sleeper(this.clock);
    const place = spec.place;
    this.pending = new PendingRequests<Answer, E>(this.clock, common.maxPendingRequests ?? 64, {
      timeout: (id, command, timeoutMs) =>
        spec.failure('timeout', `${place}: no answer to ${command} ${id} within ${timeoutMs} ms`, { requestId: id, command }),
      tooMany: (id, command, max) =>
        spec.failure('too_many_pending', `${place}: ${max} requests already wait for answers`, { requestId: id, command, local: true }),
    });
  }

  get state(): RecordClientState {
    return this.current;
  }

  on<K extends keyof Events>(type: K, handler: (event: Events[K]) => void): () => void {
    this.bus.on(type, handler);
    return () => this.bus.off(type, handler);
  }

  // ── what a client says ─────────────────────────────────────────────────────────────────────

  /** Sends the greeting on the new link; `answer` resolves with its (successful) answer. */
  protected abstract greet(): { requestId: string; answer: Promise<Greeting> };
  /** Takes in the greeting's answer (the version, the host); a throw refuses the link. */
  protected abstract welcome(answer: Greeting): void;
  /** One inbound frame, through the bounds and the schema. */
  protected abstract read(frame: Frame): RecordRead<In>;
  /** An accepted inbound record: an answer to settle, an event to deliver, … */
  protected abstract accept(record: In): void;
  /**
   * Called as the link drops, before reconnecting (to note what to restore); returns what to do
   * once a new link has been greeted and the client is open again — emitting its `reconnect` event
   * included, which is the client's own (each reports a reconnect its way).
   */
  protected abstract resumer(): (attempt: number) => Promise<void> | void;

  // ── for the subclass ───────────────────────────────────────────────────────────────────────

  /** Greets on `link`; the client is open once it resolves, closed if it rejects. */
  protected async begin(link: Link): Promise<void> {
    try {
      await this.adopt(link);
    } catch (error) {
      this.current = 'closed';
      throw error;
    }
    this.current = 'open';
  }

  /** Whether the current link has had its greeting answered (an answer on it is then news of the host). */
  protected get greeted(): boolean {
    return this.ready;
  }

  /** Why a request may not go now (`closed`: retryable while reconnecting), or undefined. */
  protected refusal(place: string, requestId: string, command: string): E | undefined {
    if (this.current === 'open' && this.ready) return undefined;
    const retryable = this.current !== 'closed';
    const why = this.current === 'closed' ? 'the client is closed: connect a new one' : 'the link is down and being reconnected';
    return this.spec.failure('closed', `${place}: ${why}`, { requestId, command, local: true }, retryable);
  }

  /** Sends `line` and waits for the answer to `id`; a retry with the same id shares the answer instead of sending again. */
  protected transmit(id: string, command: string, line: string, timeoutMs: number): Promise<Answer> {
    const { promise, fresh } = this.pending.add(id, command, timeoutMs);
    if (fresh) this.link?.send(line);
    return promise;
  }

  /** Closes the link and the client for good; waiting requests fail with `closed`. */
  protected shutdown(reason: string, retryable: boolean): void {
    if (this.current === 'closed') return;
    this.current = 'closed';
    this.sleeper.cancel();
    const link = this.link;
    this.link = undefined;
    this.ready = false;
    const why = this.redact(reason);
    this.pending.failAll((id, command) =>
      this.spec.failure('closed', `${this.spec.place}: closed while ${command} ${id} waited for its answer (${why})`, { requestId: id, command }, retryable),
    );
    link?.close(why);
    this.events.emit('close', { reason: why });
  }

  // ── the link ───────────────────────────────────────────────────────────────────────────────

  /** Listens on `link` and greets; on failure the link is closed and the error thrown. */
  private async adopt(link: Link): Promise<void> {
    const { place, greeting } = this.spec;
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
    try {
      const { requestId, answer } = this.greet();
      const response = await answer;
      // A link that closed in the turn its answer came found no greeting waiting: it is gone all the same.
      if (this.link !== link)
        throw this.spec.failure('closed', `${place}.connect: the link closed as ${greeting.named} was answered`, { requestId, command: greeting.command });
      this.welcome(response);
      this.ready = true;
    } catch (error) {
      if (this.link === link) {
        this.link = undefined;
        link.close(this.spec.isFailure(error) ? `${greeting.command} failed: ${error.code}` : `${greeting.command} failed`);
      }
      throw error;
    }
  }

  private receive(frame: Frame): void {
    const verdict = this.read(frame);
    if (verdict.ok) return this.accept(verdict.record);
    const { requestId, message, kind } = verdict.problem;
    const problem: RecordProblem = { kind, message: this.redact(message) };
    if (requestId !== undefined) problem.requestId = this.redact(requestId);
    this.events.emit('problem', problem);
    // The record answered a request but cannot be read: fail that request now, not at its timeout.
    if (requestId !== undefined && this.pending.has(requestId)) {
      const text = `${this.spec.place}: the answer to ${requestId} was refused: ${problem.message}`;
      this.pending.fail(requestId, this.spec.failure('invalid_response', text, { requestId }));
    }
  }

  private dropped(reason: string): void {
    const { place, greeting } = this.spec;
    this.link = undefined;
    const why = this.redact(reason);
    if (!this.ready) {
      // A greeting in flight: adopt() rejects, and its caller decides what follows.
      this.pending.failAll((id, command) =>
        this.spec.failure('closed', `${place}.connect: the link closed before ${greeting.named} was answered (${why})`, { requestId: id, command }),
      );
      return;
    }
    this.ready = false;
    this.pending.failAll((id, command) =>
      this.spec.failure('closed', `${place}: the link dropped while ${command} ${id} waited for its answer (${why})`, { requestId: id, command }, true),
    );
    const options = this.common.reconnect;
    if (options === undefined || this.current !== 'open') {
      this.shutdown(why, true);
      return;
    }
    this.current = 'reconnecting';
    // Started before the event, so a throwing handler cannot stop it.
    void this.reconnect(options, this.resumer());
    this.events.emit('disconnect', { reason: why });
  }

  /** Backoff, connect, greet, resume; again until it works, a greeting is refused for good, or attempts run out. */
  private reconnect(options: ReconnectOptions, resume: (attempt: number) => Promise<void> | void): Promise<void> {
    return reconnectLoop(options, {
      place: this.spec.place,
      clock: this.clock,
      sleeper: this.sleeper,
      timeoutMs: this.requestTimeoutMs,
      reconnecting: () => this.current === 'reconnecting',
      attach: (link) => this.adopt(link),
      reconnected: (attempt) => {
        this.current = 'open';
        return resume(attempt);
      },
      // auth_failed, incompatible_protocol, host_draining…: refused for good (not retryable).
      shutdown: (reason, retryable) => this.shutdown(reason, retryable),
      describe: (error) => this.redact(error instanceof Error ? error.message : String(error)),
    });
  }
}
