// Calls a pi-client target has in flight: each must settle, and what it settles with is checked as
// it comes; the run asks, once the clock has passed every timeout, whether any is still waiting.

import type { FuzzContext } from '../harness/context.js';
import { codeOf } from './clientChecks.js';

/** The local codes both clients share; any other is tallied as the peer's own. */
const COMMON_CODES: ReadonlySet<string> = new Set(['timeout', 'closed', 'invalid_response', 'invalid_request', 'too_many_pending', 'unknown_error', 'aborted']);

/** Calls in flight: each settles, and what it settles with is checked. */
export class Calls {
  private next = 0;
  private readonly waiting = new Map<number, string>();

  constructor(private readonly context: FuzzContext) {}

  get pending(): number {
    return this.waiting.size;
  }

  /** `resolved` and `rejected` return a problem, or undefined when the outcome is one the docs allow. */
  track<T>(promise: Promise<T>, where: string, resolved: (value: T) => string | undefined, rejected: (error: unknown) => string | undefined): void {
    const n = this.next++;
    this.waiting.set(n, where);
    const done = (problem: string | undefined): void => {
      this.waiting.delete(n);
      if (problem !== undefined) this.context.problem(problem);
    };
    promise.then(
      (value) => {
        this.context.tally(`${where} ok`);
        done(resolved(value));
      },
      (error: unknown) => {
        // Few kinds, so that the report's table (64 rows at most) keeps them all.
        const code = codeOf(error);
        this.context.tally(`${where} failed`);
        this.context.tally(
          `failed: ${COMMON_CODES.has(code) ? code : error instanceof Error && (error.name === 'PeersError' || error.name === 'DaemonError') ? 'a code of the peer' : 'thrown'}`,
        );
        done(rejected(error));
      },
    );
  }

  /** After the clock has run past every timeout: a call still waiting would wait for ever. */
  reportUnsettled(): void {
    for (const where of new Set(this.waiting.values())) this.context.problem(`${where} never settled, though the clock ran past every timeout`);
    this.waiting.clear();
  }
}

/** A promise's outcome, readable once it has settled. */
export interface Watched<T> {
  settled: boolean;
  value: T | undefined;
  error: unknown;
}

export function watch<T>(promise: Promise<T>): Watched<T> {
  const watched: Watched<T> = { settled: false, value: undefined, error: undefined };
  promise.then(
    (value) => Object.assign(watched, { settled: true, value }),
    (error: unknown) => Object.assign(watched, { settled: true, error }),
  );
  return watched;
}
