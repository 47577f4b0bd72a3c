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
  /** Calls with numbered ids (callNumber), each in the slot of its number: no hashing, no strings kept. */
  private slots: NumberedSlots | undefined;
  /** Other call_ids → their result, or RUNNING; insertion order is age. Numbered calls too, when pushed out of their slot early. */
  private results: Map<string, CallResult | typeof RUNNING> | undefined;
  /** Numbered calls kept in `results` (then a new numbered call must be looked up there too). */
  private spilled = 0;
  /** Results kept so far in the slots: a finished numbered call's age. */
  private finishes = 0;

  constructor(readonly capacity: number) {}

  /** undefined: a new call_id, now marked running. Otherwise its result, or null while it runs. */
  claim(callId: string): CallResult | null | undefined {
    const number = callNumber(callId);
    if (number < 0) return this.claimNamed(callId);
    const slots = (this.slots ??= new NumberedSlots(this.capacity));
    const form = callId.charCodeAt(0) === 0x21 ? 1 : 0;
    const held = slots.find(number, form);
    if (held !== undefined) return held;
    if (this.spilled > 0) {
      const seen = this.results?.get(callId);
      if (seen !== undefined) return seen;
    }
    // The slot's previous call is kept elsewhere if it still runs or is among the last `capacity` finished.
    const pushedOut = slots.take(number, form, this.finishes - this.capacity);
    if (pushedOut !== undefined) {
      this.spilled++;
      this.keep(pushedOut.callId, pushedOut.value);
    }
    return undefined;
  }

  /**
   * Keeps the result of a claimed call (which is marked running until then: trims skip running
   * calls); a retryable refusal (but a timeout) frees its call_id instead.
   */
  store(result: CallResult): void {
    const callId = result.call_id;
    const number = callNumber(callId);
    if (number >= 0 && this.slots?.find(number, callId.charCodeAt(0) === 0x21 ? 1 : 0) !== undefined) {
      if (isRetryable(result)) this.slots.set(number, undefined, this.finishes);
      else this.slots.set(number, result, ++this.finishes);
      return;
    }
    const results = this.results;
    if (results === undefined || !results.has(callId)) return;
    if (isRetryable(result)) this.forget(callId, results);
    else results.set(callId, result);
  }

  /**
   * A handler that answered after its call timed out: its result replaces the kept `timeout`, so a
   * retry with the call_id learns what happened (a retryable failure frees the call_id instead).
   */
  storeLate(result: CallResult): void {
    const callId = result.call_id;
    const number = callNumber(callId);
    if (number >= 0 && this.slots?.find(number, callId.charCodeAt(0) === 0x21 ? 1 : 0)?.error?.code === 'timeout') {
      this.slots.set(number, isRetryable(result) ? undefined : result, this.finishes);
      return;
    }
    const results = this.results;
    if (results?.get(callId)?.error?.code !== 'timeout') return;
    if (isRetryable(result)) this.forget(callId, results);
    else results.set(callId, result);
  }

  private claimNamed(callId: string): CallResult | null | undefined {
    const seen = this.results?.get(callId);
    if (seen !== undefined) return seen;
    this.keep(callId, RUNNING);
    return undefined;
  }

  private keep(callId: string, value: CallResult | typeof RUNNING): void {
    const results = (this.results ??= new Map());
    results.set(callId, value);
    if (results.size > this.capacity + TRIM_SLACK) this.trim(results);
  }

  private forget(callId: string, results: Map<string, CallResult | typeof RUNNING>): void {
    results.delete(callId);
    if (callNumber(callId) >= 0) this.spilled--;
  }

  /** Trims in batches once the cache is a little over its bound: one pass per batch, not per call. */
  private trim(results: Map<string, CallResult | typeof RUNNING>): void {
    for (const callId of results.keys()) {
      if (results.get(callId) === RUNNING) continue;
      this.forget(callId, results);
      if (results.size <= this.capacity) return;
    }
  }
}

/**
 * Numbered calls by number: a ring of slots, twice the cache's capacity, where call n lives in slot
 * n mod size. An agent numbering its calls one by one (as AgentClient does) fills the slots in turn,
 * and a call leaves its slot only when a call one ring later takes it.
 */
class NumberedSlots {
  private readonly numbers: Float64Array;
  /** 1 for the hybrid-mode form (`!c…`), which is another call_id than `c…` of the same number. */
  private readonly forms: Uint8Array;
  /** When each slot's call finished, counted in results kept: its age. */
  private readonly finished: Float64Array;
  private readonly values: Array<CallResult | typeof RUNNING | undefined>;
  private readonly mask: number;

  constructor(capacity: number) {
    let size = 16;
    while (size < 2 * capacity) size *= 2;
    this.mask = size - 1;
    this.numbers = new Float64Array(size).fill(-1);
    this.forms = new Uint8Array(size);
    this.finished = new Float64Array(size);
    this.values = new Array<CallResult | typeof RUNNING | undefined>(size).fill(undefined);
  }

  /** Call `number`'s slot: its low bits (numbers past 2^31 are taken modulo the ring). */
  private slotOf(number: number): number {
    return number < 0x80000000 ? number & this.mask : number % (this.mask + 1);
  }

  /** The result (or RUNNING) of call `number` in `form`, if its slot holds it; undefined if not. */
  find(number: number, form: number): CallResult | typeof RUNNING | undefined {
    const slot = this.slotOf(number);
    return this.numbers[slot] === number && this.forms[slot] === form ? this.values[slot] : undefined;
  }

  /** Sets the result of a call its slot holds (find said so), finished as result `finish`; undefined frees the slot. */
  set(number: number, value: CallResult | undefined, finish: number): void {
    const slot = this.slotOf(number);
    this.values[slot] = value;
    this.finished[slot] = finish;
    if (value === undefined) this.numbers[slot] = -1;
  }

  /**
   * Puts call `number` (running) in its slot. The call there before comes back when it must be kept
   * elsewhere: still running, or finished after result `keepAfter`.
   */
  take(number: number, form: number, keepAfter: number): { callId: string; value: CallResult | typeof RUNNING } | undefined {
    const slot = this.slotOf(number);
    const before = this.numbers[slot]!;
    const value = this.values[slot];
    const keep = before >= 0 && value !== undefined && (value === RUNNING || this.finished[slot]! > keepAfter);
    const pushedOut = keep ? { callId: `${this.forms[slot] === 1 ? '!' : ''}c${before}`, value } : undefined;
    this.numbers[slot] = number;
    this.forms[slot] = form;
    this.values[slot] = RUNNING;
    return pushedOut;
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
