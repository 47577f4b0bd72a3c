// The calls an AgentClient waits on: each resolves once — with its result, a local failure when its
// result was refused at this side's wire, a local timeout at its own deadline, or the session's end —
// and one timer serves every deadline (a timer per call costs more than the call).

import { UPKEEP, type Clock, type TimerId } from '../base/clock.js';
import type { JsonObject, Meta, ToolResult, WireError } from '../protocol/messages.js';

/** A call's outcome, as data: `local` marks a failure decided on this side (timeout, closed). */
export type CallOutcome<O = JsonObject> =
  | { ok: true; output: O; meta: Meta; callId: string }
  | { ok: false; error: WireError; meta: Meta; callId: string; local?: true };

interface Waiting {
  // biome-ignore lint/suspicious/noExplicitAny: a waiting call's output type is its caller's, unknown here.
  resolve(outcome: CallOutcome<any>): void;
  /** When the call gives up, on the client's clock. */
  deadline: number;
  /** The tool called and how long the call waits: named when it gives up. */
  tool: string;
  timeoutMs: number;
}

export class WaitingCalls {
  private readonly calls = new Map<string, Waiting>();
  private sweepTimer: TimerId | undefined;
  private sweepAt = Infinity;

  constructor(private readonly clock: Clock) {}

  get size(): number {
    return this.calls.size;
  }

  has(callId: string): boolean {
    return this.calls.has(callId);
  }

  /** Waits for `callId` (a call of `tool`) for `timeoutMs`, then resolves it as a retryable local timeout. */
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  wait(callId: string, timeoutMs: number, tool: string, resolve: (outcome: CallOutcome<any>) => void): void {
    const deadline = this.clock.now() + timeoutMs;
    this.calls.set(callId, { resolve, deadline, tool, timeoutMs });
    this.armSweep(deadline);
  }

  /** A call's result arrived: its outcome resolves the call; false when nothing waits for it (late, or never asked). */
  settle(result: ToolResult): boolean {
    const callId = result.call_id;
    const waiting = this.calls.get(callId);
    if (waiting === undefined) return false;
    this.calls.delete(callId);
    const meta = result.meta ?? {};
    waiting.resolve(
      result.ok
        ? { ok: true, output: result.output ?? {}, meta, callId }
        : { ok: false, error: result.error ?? { code: 'internal_error', message: 'failed without an error', retryable: false }, meta, callId },
    );
    return true;
  }

  /**
   * `callId` ends now without a result this side can read (its tool_result was refused at this
   * side's wire): it fails locally with the error `describe` makes from the tool called. False when
   * nothing waits for it.
   */
  fail(callId: string, describe: (tool: string) => WireError): boolean {
    const waiting = this.calls.get(callId);
    if (waiting === undefined) return false;
    this.calls.delete(callId);
    waiting.resolve({ ok: false, error: describe(waiting.tool), meta: {}, callId, local: true });
    return true;
  }

  /** The session ended: every waiting call fails as session_expired, saying `reason`. */
  endAll(reason: string): void {
    if (this.sweepTimer !== undefined) this.clock.clearTimeout(this.sweepTimer);
    this.sweepTimer = undefined;
    this.sweepAt = Infinity;
    for (const [callId, waiting] of this.calls) {
      waiting.resolve({ ok: false, error: { code: 'session_expired', message: `session closed: ${reason}`, retryable: false }, meta: {}, callId, local: true });
    }
    this.calls.clear();
  }

  /** Makes sure a sweep runs by `deadline`. */
  private armSweep(deadline: number): void {
    if (deadline >= this.sweepAt) return;
    if (this.sweepTimer !== undefined) this.clock.clearTimeout(this.sweepTimer);
    this.sweepAt = deadline;
    this.sweepTimer = this.clock.setTimeout(() => this.sweep(), deadline - this.clock.now(), UPKEEP);
  }

  /** Times out every call past its deadline, then waits for the next deadline. */
  private sweep(): void {
    this.sweepTimer = undefined;
    this.sweepAt = Infinity;
    const now = this.clock.now();
    let next = Infinity;
    for (const [callId, waiting] of this.calls) {
      if (waiting.deadline <= now) {
        this.calls.delete(callId);
        // Worded only now: most calls never time out.
        waiting.resolve({
          ok: false,
          error: { code: 'timeout', message: `no result for ${waiting.tool} within ${waiting.timeoutMs} ms`, retryable: true },
          meta: {},
          callId,
          local: true,
        });
      } else next = Math.min(next, waiting.deadline);
    }
    if (next !== Infinity) this.armSweep(next);
  }
}
