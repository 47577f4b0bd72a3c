// How a record client (PeersClient, DaemonClient) gets a new link after a drop: the caller's
// connect(), tried with exponential backoff on the injected clock, each attempt bounded in time.
// The hello (or handshake) on the new link is the client's business, handed in as a step of the loop.

import type { Link } from '../links/link.js';
import type { Clock, TimerId } from '../base/clock.js';

/** How a client gets a new link after a drop (`options.reconnect` of PeersClient and DaemonClient). */
export interface ReconnectOptions {
  /** Opens a new link to the same agent (or gateway). May reject; it is then tried again. */
  connect(): Promise<Link>;
  /** Attempts in a row before the client gives up and closes. Default 8. */
  maxAttempts?: number;
  /** Delay before the first attempt; doubles after each failure. Default 500 ms. */
  baseDelayMs?: number;
  /** Longest delay between attempts. Default 30,000 ms. */
  maxDelayMs?: number;
}

export const RECONNECT_DEFAULTS = Object.freeze({ maxAttempts: 8, baseDelayMs: 500, maxDelayMs: 30_000 });

/**
 * The wait before attempt `attempt` (1-based): base, 2·base, 4·base, … capped at max. No jitter:
 * a client reconnects to one agent, not a crowd to one server, and tests read exact delays.
 */
export function backoffDelay(attempt: number, baseDelayMs: number, maxDelayMs: number): number {
  return Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, attempt - 1));
}

/** A delay on the clock that can be cut short (the client closed meanwhile). */
export class Sleeper {
  private timer: TimerId | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly clock: Clock) {}

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = this.clock.setTimeout(() => this.cancel(), ms);
    });
  }

  /** Ends the current sleep now. */
  cancel(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/**
 * connect(), bounded by `timeoutMs` on the clock. A link that arrives after the deadline is closed
 * at once, so a slow connect cannot leave a second link open behind the client's back.
 */
export function connectWithin(connect: () => Promise<Link>, clock: Clock, timeoutMs: number): Promise<Link> {
  return new Promise((resolve, reject) => {
    let late = false;
    const timer = clock.setTimeout(() => {
      late = true;
      reject(new Error(`reconnect.connect() did not settle within ${timeoutMs} ms`));
    }, timeoutMs);
    let started: Promise<Link>;
    try {
      started = connect();
    } catch (error) {
      started = Promise.reject(error);
    }
    started.then(
      (link) => {
        if (late) return link.close('reconnect: connect() settled after its deadline');
        clock.clearTimeout(timer);
        resolve(link);
      },
      (error: unknown) => {
        if (late) return;
        clock.clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** What a client does at each point of the reconnect loop. */
export interface ReconnectSteps {
  /** Names the client in reasons (`PeersClient`). */
  place: string;
  clock: Clock;
  sleeper: Sleeper;
  /** Bound on each connect(). */
  timeoutMs: number;
  /** False once the client has left the reconnecting state (closed meanwhile): the loop stops. */
  reconnecting(): boolean;
  /** Hello or handshake on the new link; a throw means another attempt, unless `retryable` is false. */
  attach(link: Link): Promise<void>;
  /** The new link is ready. */
  reconnected(attempt: number): Promise<void> | void;
  /** Ends the client: refused for good (retryable false) or out of attempts (true). */
  shutdown(reason: string, retryable: boolean): void;
  /** An attempt's failure as text for the final reason (a client with a secret redacts it). */
  describe?(error: unknown): string;
}

/**
 * Backoff, connect, attach; again until it works, an attempt is refused for good (an error whose
 * `retryable` is false: another attempt would be refused the same way), or attempts run out.
 */
export async function reconnectLoop(options: ReconnectOptions, steps: ReconnectSteps): Promise<void> {
  const maxAttempts = options.maxAttempts ?? RECONNECT_DEFAULTS.maxAttempts;
  const base = options.baseDelayMs ?? RECONNECT_DEFAULTS.baseDelayMs;
  const cap = options.maxDelayMs ?? RECONNECT_DEFAULTS.maxDelayMs;
  const describe = steps.describe ?? ((error: unknown) => (error instanceof Error ? error.message : String(error)));
  let last = 'no attempt made';
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    await steps.sleeper.sleep(backoffDelay(attempt, base, cap));
    if (!steps.reconnecting()) return;
    try {
      const link = await connectWithin(() => options.connect(), steps.clock, steps.timeoutMs);
      if (!steps.reconnecting()) {
        link.close(`${steps.place}: closed while reconnecting`);
        return;
      }
      await steps.attach(link);
      await steps.reconnected(attempt);
      return;
    } catch (error) {
      if (!steps.reconnecting()) return;
      last = describe(error);
      if ((error as { retryable?: unknown } | null)?.retryable === false) return steps.shutdown(`${steps.place}: reconnect refused: ${last}`, false);
    }
  }
  steps.shutdown(`${steps.place}: gave up reconnecting after ${maxAttempts} attempts (last: ${last})`, true);
}
