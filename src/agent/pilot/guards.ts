// Loop guards: a model that answers instantly, or keeps answering nonsense, must not spin the pilot
// (and a paid API) in a tight loop. Decisions are capped per minute on the injected clock, and a run
// of replies with nothing usable in them trips a stop that only the host can lift.

import type { Clock } from '../../base/clock.js';
import { CapsuleError } from '../../base/errors.js';

export interface GuardOptions {
  /** Most decisions in any 60 s window of the pilot's clock. Default 30. */
  maxDecisionsPerMinute?: number;
  /** Consecutive failed replies (empty, or nothing readable) before the pilot pauses. Default 3. */
  maxFailedReplies?: number;
}

const WINDOW_MS = 60_000;

export class LoopGuards {
  readonly maxDecisionsPerMinute: number;
  readonly maxFailedReplies: number;
  /** When the decisions of the last minute were made, oldest first. */
  private readonly recent: number[] = [];
  /** Failed replies in a row. */
  failures = 0;

  constructor(
    private readonly clock: Clock,
    options: GuardOptions = {},
  ) {
    this.maxDecisionsPerMinute = positiveInteger('maxDecisionsPerMinute', options.maxDecisionsPerMinute ?? 30);
    this.maxFailedReplies = positiveInteger('maxFailedReplies', options.maxFailedReplies ?? 3);
  }

  /** Milliseconds until a decision is allowed; 0 when one is allowed now. */
  waitMs(): number {
    const now = this.clock.now();
    while (this.recent.length > 0 && now - this.recent[0]! >= WINDOW_MS) this.recent.shift();
    if (this.recent.length < this.maxDecisionsPerMinute) return 0;
    return this.recent[0]! + WINDOW_MS - now;
  }

  /** A decision starts now. */
  decided(): void {
    this.recent.push(this.clock.now());
  }

  /** A reply was read: true when this failure trips the guard. */
  replied(usable: boolean): boolean {
    this.failures = usable ? 0 : this.failures + 1;
    return this.failures >= this.maxFailedReplies;
  }

  /** The host lifted a pause: failures start over. */
  reset(): void {
    this.failures = 0;
  }
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new CapsuleError('AICC_INVALID_OPTION', `Pilot: ${name} must be a whole number >= 1, got ${value}`);
  return value;
}
