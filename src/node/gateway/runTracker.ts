// Derives pi-peers' `idle` and `settled` (the count of completed runs) from pi's RPC events, for
// both event dialects:
// - pi 1.x ends every run with `agent_settled`, after `agent_end` and after any automatic retry;
// - pi 0.73 has no such event: `agent_end` ends a run, except that a failed model call may be
//   retried, announced by `auto_retry_start` just after that `agent_end`.
// The dialect is learnt from the first `agent_settled` or from a 1.x-only field in a response
// (`data.disposition`); until then `agent_end` counts, and a later `agent_settled` for the same run
// is not counted twice.
//
// Nothing here reads message contents beyond an ended run's last stopReason, so message_update
// deltas (1.x) vs whole partial messages (0.73), and 1.x's system message pair, cannot confuse it.

import type { PiEvent, RpcResponse } from './piProcess.js';

export type Dialect = 'unknown' | 'agent_end' | 'agent_settled';

export interface RunTrackerOptions {
  /**
   * How long to hold a run that ended in a model error before counting it settled, in case pi 0.73
   * retries it (default 250 ms). Not used once pi is known to send agent_settled.
   */
  retryGraceMs?: number;
}

export class RunTracker {
  /** Completed runs since pi started. */
  settled = 0;
  dialect: Dialect = 'unknown';
  /** A run is between agent_start and its settling. */
  private active = false;
  /** Prompts sent while idle whose run has not started yet: pi is already busy with them. */
  private pendingStarts = 0;
  /** The current run was counted on agent_end; a later agent_settled must not count it again. */
  private countedOnEnd = false;
  private retryHold: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private readonly retryGraceMs: number;
  private readonly listeners = new Set<() => void>();

  constructor(options: RunTrackerOptions = {}) {
    this.retryGraceMs = options.retryGraceMs ?? 250;
  }

  /** True when pi runs nothing and has nothing about to start. */
  get idle(): boolean {
    return !this.stopped && !this.active && this.pendingStarts === 0 && this.retryHold === undefined;
  }

  /** Calls `listener` whenever `idle` or `settled` may have changed. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Note a prompt about to be sent; `startsRun` when it was sent as a new run (pi idle). */
  promptSent(startsRun: boolean): void {
    if (startsRun) this.pendingStarts++;
  }

  /** Note pi's answer to a prompt noted with promptSent(true). */
  promptAnswered(response: RpcResponse | undefined, startsRun: boolean): void {
    this.learnDialect(response);
    const disposition = (response?.data as { disposition?: unknown } | undefined)?.disposition;
    // A refused prompt, or one pi 1.x queued or handled itself, will not start a run.
    if (startsRun && (response === undefined || !response.success || (disposition !== undefined && disposition !== 'started'))) {
      this.pendingStarts = Math.max(0, this.pendingStarts - 1);
      this.changed();
    }
  }

  /** Any response may reveal the dialect. */
  learnDialect(response: RpcResponse | undefined): void {
    if (this.dialect !== 'agent_settled' && response?.data !== null && typeof response?.data === 'object' && 'disposition' in response.data) {
      this.dialect = 'agent_settled';
    }
  }

  event(event: PiEvent): void {
    switch (event.type) {
      case 'agent_start':
        this.cancelHold();
        this.active = true;
        this.countedOnEnd = false;
        // The prompt response can come after agent_start: the start is what counts.
        this.pendingStarts = Math.max(0, this.pendingStarts - 1);
        break;
      case 'agent_end':
        if (this.dialect === 'agent_settled') break;
        if (endedInError(event)) this.holdForRetry();
        else this.settle(true);
        break;
      case 'auto_retry_start':
        // 0.73: the run goes on; its next agent_end settles it.
        this.cancelHold();
        this.active = true;
        break;
      case 'auto_retry_end':
        if (event.success === false && this.retryHold !== undefined) {
          this.cancelHold();
          this.settle(true);
        }
        break;
      case 'agent_settled':
        this.dialect = 'agent_settled';
        this.cancelHold();
        if (this.countedOnEnd) {
          this.countedOnEnd = false;
          this.active = false;
        } else this.settle(false);
        break;
      default:
        return;
    }
    this.changed();
  }

  /** pi is gone: nothing will run again. */
  stop(): void {
    this.cancelHold();
    this.stopped = true;
    this.active = false;
    this.changed();
  }

  private settle(onEnd: boolean): void {
    this.active = false;
    this.countedOnEnd = onEnd;
    this.settled++;
  }

  private holdForRetry(): void {
    this.cancelHold();
    this.retryHold = setTimeout(() => {
      this.retryHold = undefined;
      this.settle(true);
      this.changed();
    }, this.retryGraceMs);
  }

  private cancelHold(): void {
    if (this.retryHold !== undefined) clearTimeout(this.retryHold);
    this.retryHold = undefined;
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

/** Whether a run's last assistant message failed: the case pi 0.73 may retry. */
function endedInError(event: PiEvent): boolean {
  const messages = Array.isArray(event.messages) ? (event.messages as Array<{ role?: unknown; stopReason?: unknown }>) : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'assistant') return messages[i]?.stopReason === 'error';
  }
  return false;
}
