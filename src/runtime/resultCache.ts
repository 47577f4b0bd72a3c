// The results a session keeps so that a repeated call_id is answered without running the handler
// twice: bounded, oldest finished results forgotten first, running calls never.
//
// What a retry with the same call_id gets (docs/PROTOCOL.md, "Repeated call_id"):
// - after a result, or a refusal that is not retryable: that answer again;
// - after a retryable refusal (rate_limited, queue_full, tool_disabled, a retryable ToolError): a
//   fresh evaluation, since the call_id was forgotten — answering the refusal forever would make
//   the retry the protocol recommends useless;
// - after `timeout`: `timeout` again while the handler may still run, and the handler's own late
//   result once it has one. So one call_id never runs its handler twice.

import type { Meta, WireError } from '../protocol/messages.js';

/** The result of one call, as kept for a repeated call_id and sent as `tool_result`. */
export interface CallResult {
  call_id: string;
  ok: boolean;
  output?: Record<string, unknown>;
  error?: WireError;
  meta: Meta;
}

/** How far over its capacity the cache may go before a trim brings it back. */
const TRIM_SLACK = 32;

/** What a running call holds in the cache until its result comes. */
const RUNNING = null;

export class ResultCache {
  /** call_id → its result, or RUNNING; insertion order is age. */
  private results: Map<string, CallResult | typeof RUNNING> | undefined;
  /** The highest number of a numbered call_id claimed (see callNumber); -1 before any. */
  private highest = -1;

  constructor(readonly capacity: number) {}

  /** undefined: a new call_id, now marked running. Otherwise its result, or null while it runs. */
  claim(callId: string): CallResult | null | undefined {
    const results = (this.results ??= new Map());
    // A numbered call_id above every number claimed so far was never claimed: no lookup needed.
    // (Each lookup is several cache misses in a table of strings; most calls are new.)
    const number = callNumber(callId);
    if (number > this.highest) this.highest = number;
    else {
      const seen = results.get(callId);
      if (seen !== undefined) return seen;
    }
    results.set(callId, RUNNING);
    if (results.size > this.capacity + TRIM_SLACK) this.trim(results);
    return undefined;
  }

  /**
   * Keeps the result of a claimed call (which is marked running until then: trims skip running
   * calls); a retryable refusal (but a timeout) frees its call_id instead.
   */
  store(result: CallResult): void {
    const results = this.results;
    if (results === undefined) return;
    if (isRetryable(result)) results.delete(result.call_id);
    else results.set(result.call_id, result);
  }

  /**
   * A handler that answered after its call timed out: its result replaces the kept `timeout`, so a
   * retry with the call_id learns what happened (a retryable failure frees the call_id instead).
   */
  storeLate(result: CallResult): void {
    if (this.results?.get(result.call_id)?.error?.code !== 'timeout') return;
    if (isRetryable(result)) this.results.delete(result.call_id);
    else this.results.set(result.call_id, result);
  }

  /** Trims in batches once the cache is a little over its bound: one pass per batch, not per call. */
  private trim(results: Map<string, CallResult | typeof RUNNING>): void {
    for (const callId of results.keys()) {
      if (results.get(callId) === RUNNING) continue;
      results.delete(callId);
      if (results.size <= this.capacity) return;
    }
  }
}

/**
 * The number in a call_id numbered as AgentClient numbers them — `c` and a number without leading
 * zeros, after `!` in hybrid mode (`c17`, `!c18`) — or -1 for any other call_id. Numbers are what let
 * a new call skip the lookup, so only ids that name one number in one way count.
 */
export function callNumber(callId: string): number {
  let at = callId.charCodeAt(0) === 0x21 ? 1 : 0; // '!'
  if (callId.charCodeAt(at) !== 0x63) return -1; // 'c'
  at++;
  const digits = callId.length - at;
  if (digits < 1 || digits > 15 || (digits > 1 && callId.charCodeAt(at) === 0x30)) return -1;
  let number = 0;
  for (; at < callId.length; at++) {
    const digit = callId.charCodeAt(at) - 0x30;
    if (digit < 0 || digit > 9) return -1;
    number = number * 10 + digit;
  }
  return number;
}

/** A refusal a retry may overturn, made before or instead of a handler run that could still be going. */
function isRetryable(result: CallResult): boolean {
  return !result.ok && result.error?.retryable === true && result.error.code !== 'timeout';
}
