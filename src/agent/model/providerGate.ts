// Many characters, one provider: a gate that lets at most N model requests through at once (the
// rest wait in a bounded line, first come first served), ends a request the provider leaves
// hanging, and tries again with exponential backoff when the provider says it is rate-limited or
// failing (429, 5xx, "overloaded") — each retry told to the caller, so the decision record shows it.
// One gate per provider, shared by every backend that speaks to it. All timers on the injected clock.

import { CapsuleError } from '../../base/errors.js';
import { realClock, type Clock, type TimerId } from '../../base/clock.js';
import type { ModelReply, ModelTurn, ModelTurnOptions, ModelRequest } from './modelPort.js';

export interface ProviderGateOptions {
  /** Requests in flight at once. Default 4. */
  maxConcurrent?: number;
  /** Requests waiting for a slot; one more is refused at once (ModelFailure `queue_full`). Default 256. */
  maxWaiting?: number;
  /** Attempts after the first on a retryable failure. Default 3. */
  retries?: number;
  /** Wait before the first retry; doubles after each. Default 1,000 ms. */
  baseDelayMs?: number;
  /** Longest wait between attempts. Default 30,000 ms. */
  maxDelayMs?: number;
  /** A request with no answer after this long is aborted and counts as a retryable failure. Default 120,000 ms. */
  timeoutMs?: number;
  clock?: Clock;
}

export const PROVIDER_GATE_DEFAULTS = Object.freeze({
  maxConcurrent: 4,
  maxWaiting: 256,
  retries: 3,
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
  timeoutMs: 120_000,
});

/** Why a turn failed for good: what the decision record and the pilot's error say. */
export type ModelFailureKind = 'provider_error' | 'timeout' | 'garbage' | 'queue_full' | 'aborted';

export class ModelFailure extends Error {
  override readonly name = 'ModelFailure';
  constructor(
    readonly kind: ModelFailureKind,
    message: string,
    /** Attempts made, the first included. */
    readonly attempts: number,
  ) {
    super(message);
  }
}

/** A provider's error text that a later attempt may not get: rate limits, overload, server errors, dropped connections. */
const RETRYABLE =
  /\b(429|5\d\d)\b|rate.?limit|too many requests|overloaded|temporarily|unavailable|timed? ?out|ECONNRESET|ECONNREFUSED|socket hang up|fetch failed/i;

export class ProviderGate {
  private readonly options: Required<Omit<ProviderGateOptions, 'clock'>>;
  private readonly clock: Clock;
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(options: ProviderGateOptions = {}) {
    this.options = { ...PROVIDER_GATE_DEFAULTS, ...stripUndefined(options) } as Required<Omit<ProviderGateOptions, 'clock'>>;
    for (const [name, value] of Object.entries(this.options)) {
      if (!Number.isFinite(value) || value < (name === 'retries' || name === 'maxWaiting' ? 0 : 1))
        throw new CapsuleError('AICC_INVALID_OPTION', `ProviderGate: ${name} must be a number >= ${name === 'retries' ? 0 : 1}, got ${value}`);
    }
    this.clock = options.clock ?? realClock();
  }

  /** Requests in flight, and waiting for a slot. */
  get load(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }

  /**
   * Runs `turn` through the gate: a slot, a deadline, and retries on retryable failures, each told
   * to `onRetry` before its wait. Resolves with a usable reply (stop, length or toolUse), or rejects
   * with a ModelFailure.
   */
  async run(
    turn: ModelTurn,
    request: ModelRequest,
    options: ModelTurnOptions,
    onRetry: (attempt: number, why: string) => void = () => {},
  ): Promise<ModelReply> {
    await this.acquire(options.signal);
    try {
      for (let attempt = 1; ; attempt++) {
        const outcome = await this.attempt(turn, request, options);
        if (outcome.reply !== undefined) return outcome.reply;
        if (options.signal.aborted) throw new ModelFailure('aborted', 'the turn was aborted', attempt);
        if (!outcome.retryable || attempt > this.options.retries) throw new ModelFailure(outcome.kind, outcome.why, attempt);
        onRetry(attempt, outcome.why);
        await this.sleep(Math.min(this.options.maxDelayMs, this.options.baseDelayMs * 2 ** (attempt - 1)), options.signal);
      }
    } finally {
      this.release();
    }
  }

  private async attempt(
    turn: ModelTurn,
    request: ModelRequest,
    options: ModelTurnOptions,
  ): Promise<
    { reply: ModelReply; kind?: never; why?: never; retryable?: never } | { reply?: undefined; kind: ModelFailureKind; why: string; retryable: boolean }
  > {
    const deadline = new AbortController();
    const onAbort = (): void => deadline.abort();
    options.signal.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const timer = this.clock.setTimeout(() => {
      timedOut = true;
      deadline.abort();
    }, this.options.timeoutMs);
    try {
      // The turn may ignore its signal: the deadline ends the wait all the same.
      const reply = await Promise.race([
        turn(request, { signal: deadline.signal, onToken: options.onToken }),
        new Promise<never>((_, reject) => deadline.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true })),
      ]);
      const problem = replyProblem(reply);
      if (problem !== undefined) return { kind: 'garbage', why: `the provider answered something that is not a model message: ${problem}`, retryable: true };
      if (reply.stopReason === 'aborted') return { kind: 'aborted', why: 'the turn was aborted', retryable: !options.signal.aborted && timedOut };
      if (reply.stopReason === 'error') {
        const why = reply.errorMessage ?? 'the provider reported an error';
        return { kind: 'provider_error', why, retryable: RETRYABLE.test(why) };
      }
      return { reply };
    } catch (error) {
      if (timedOut) return { kind: 'timeout', why: `the provider did not answer within ${this.options.timeoutMs} ms`, retryable: true };
      const why = error instanceof Error ? error.message : String(error);
      return { kind: 'provider_error', why, retryable: !options.signal.aborted && RETRYABLE.test(why) };
    } finally {
      this.clock.clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
    }
  }

  private acquire(signal: AbortSignal): Promise<void> {
    if (this.active < this.options.maxConcurrent) {
      this.active++;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.options.maxWaiting) {
      return Promise.reject(
        new ModelFailure('queue_full', `ProviderGate: ${this.options.maxWaiting} requests wait for this provider already; try again later`, 0),
      );
    }
    return new Promise((resolve, reject) => {
      const take = (): void => {
        signal.removeEventListener('abort', cancel);
        this.active++;
        resolve();
      };
      const cancel = (): void => {
        const at = this.waiting.indexOf(take);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(new ModelFailure('aborted', 'the turn was aborted while it waited for the provider', 0));
      };
      signal.addEventListener('abort', cancel, { once: true });
      this.waiting.push(take);
    });
  }

  private release(): void {
    this.active--;
    this.waiting.shift()?.();
  }

  private sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let timer: TimerId | undefined;
      const done = (): void => {
        if (timer !== undefined) this.clock.clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      timer = this.clock.setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

/** What is wrong with a provider's answer, read as a model message; undefined when it is one. */
export function replyProblem(reply: unknown): string | undefined {
  if (reply === null || typeof reply !== 'object' || Array.isArray(reply)) return 'not an object';
  const r = reply as Record<string, unknown>;
  if (r['role'] !== 'assistant') return 'role is not "assistant"';
  if (!Array.isArray(r['content'])) return 'content is not a list';
  for (const block of r['content'] as unknown[]) {
    const b = block as Record<string, unknown> | null;
    if (b === null || typeof b !== 'object') return 'a content block is not an object';
    if (b['type'] === 'text' && typeof b['text'] !== 'string') return 'a text block has no text';
    if (
      b['type'] === 'toolCall' &&
      (typeof b['id'] !== 'string' || typeof b['name'] !== 'string' || typeof b['arguments'] !== 'object' || b['arguments'] === null)
    )
      return 'a tool call lacks its id, name or arguments';
  }
  if (!['stop', 'length', 'toolUse', 'error', 'aborted'].includes(r['stopReason'] as string)) return "stopReason is not one of pi-ai's";
  return undefined;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([key, v]) => v !== undefined && key !== 'clock')) as Partial<T>;
}
