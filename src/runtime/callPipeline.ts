// The tool_call pipeline: everything between a session taking in a tool_call and the tool_result
// going out, in one place and in the order docs/PROTOCOL.md gives — (protocol and message schema are
// checked by the Wire) → repeated call_id → the wait for the tick (fixed and hybrid modes) → tool
// exists → enabled → capability → limits → input → handler under a timeout → output. Every refusal
// comes back to the agent as data. What a session's calls leave behind (results, usage, running
// handlers) is its SessionCalls; the pipeline holds no session.

import { UPKEEP, type Clock, type TimerId } from '../base/clock.js';
import { clip, MAX_QUOTED_NAME } from '../base/clip.js';
import { ToolError } from '../base/errors.js';
import { refusal, type RefusalKind } from '../protocol/refusals.js';
import { IMMEDIATE_MARK, type JsonObject, type Meta, type TickMode, type Topic, type ToolCall, type WireError } from '../protocol/messages.js';
import type { FinishedCall, HostError } from './calls.js';
import type { CallResult } from './resultCache.js';
import type { SessionCalls } from './sessionCalls.js';
import type { RegisteredTool, ToolContext } from './tool.js';
import type { Validation } from './validator.js';

/**
 * How long calls may wait for a tick that never comes before the host hears of it (twice the tick
 * interval instead, for tick rates under 1 Hz, whose calls wait that long anyway).
 */
export const STALL_WARNING_MS = 2000;

/** Where the world's ticks stand: whether a call waits for the next, and the tick a result carries. */
export interface TickState {
  readonly tick: number;
  readonly tickMode: TickMode;
  readonly tickRateHz: number;
}

/** What the pipeline needs from its capsule besides the ticks: time, the tools, and where results and failures go. */
export interface CallHost {
  readonly clock: Clock;
  readonly toolTimeoutMs: number;
  tool(id: string): RegisteredTool | undefined;
  /**
   * A call has its result; the host builds a CallRecord from `call` only for listeners (most calls
   * have none). `source` 'budget': a call the capsule made itself (OwnCall).
   */
  completed(call: FinishedCall, result: CallResult, tool: RegisteredTool | undefined, source?: 'budget'): void;
  hostError(error: HostError): void;
  /** Runs work the capsule does outside a step or a message of its own (see CapsuleOptions.measureWork). */
  measure(work: () => void): void;
}

/**
 * A call the capsule makes for a session itself — a decision budget's default action
 * (decisionBudget.ts). Every check, limit and capability applies as to the agent's calls, but no
 * call_id is kept for a repeat and the result goes to `answer`, not to the agent, who made no call.
 */
export interface OwnCall {
  readonly source: 'budget';
  answer(result: CallResult): void;
}

/** A call waiting for the next tick. */
interface WaitingCall {
  calls: SessionCalls;
  call: ToolCall;
  /** When the call reached the capsule, for its latency. */
  arrivedAt: number;
  own?: OwnCall;
}

export class CallPipeline {
  /** The calls waiting for the next tick, in arrival order (each session counts its own: SessionCalls.waiting). */
  private waiting: WaitingCall[] = [];
  private stallWatch: TimerId | undefined;
  /** The host heard `clock_stalled`: it hears it once. */
  private stallTold = false;
  /** When the last tick came (or the pipeline was made), on the capsule's clock. */
  private lastTickAt: number;

  /** `queueBound`: calls one session may have waiting for a tick (CapsuleOptions.callQueueSize). */
  constructor(
    private readonly host: CallHost,
    private readonly ticks: TickState,
    readonly queueBound: number,
  ) {
    this.lastTickAt = host.clock.now();
  }

  /**
   * A tool_call a session took in at `arrivedAt` (its frame's time): answered exactly once, now or at
   * the next tick. With `own`, a call the capsule makes for the session (OwnCall).
   */
  accept(calls: SessionCalls, call: ToolCall, arrivedAt: number, own?: OwnCall): void {
    const seen = own === undefined ? calls.claim(call.call_id) : undefined;
    if (seen !== undefined) {
      // A repeated call_id: the first result again, never a second run. While the first call still
      // runs, its one result answers both.
      if (seen !== null) calls.resend({ ...seen, meta: { ...seen.meta, source: 'cache' } });
      return;
    }
    const ticks = this.ticks;
    const immediate = ticks.tickMode === 'event' || (ticks.tickMode === 'hybrid' && call.call_id.startsWith(IMMEDIATE_MARK));
    if (immediate) return this.run(calls, call, arrivedAt, arrivedAt, own);
    if (calls.waiting >= this.queueBound) {
      const full: CallResult = {
        call_id: call.call_id,
        ok: false,
        error: refusal('queue_full', `${this.queueBound} calls already wait for the next tick; wait for their results`),
        meta: { tick: ticks.tick, latency_ms: 0, source: 'bridge' },
      };
      if (own === undefined) calls.finish(full);
      else own.answer(full);
      return;
    }
    calls.waiting++;
    this.waiting.push(own === undefined ? { calls, call, arrivedAt } : { calls, call, arrivedAt, own });
    this.watchForStall();
  }

  /** The tick came at `now`: the calls waiting for it run, in arrival order (those of closed sessions are dropped). */
  runWaiting(now: number): void {
    this.lastTickAt = now;
    const due = this.waiting;
    if (due.length === 0) return;
    this.waiting = [];
    for (const entry of due) entry.calls.waiting = 0;
    for (const { calls, call, arrivedAt, own } of due) if (!calls.closed) this.run(calls, call, arrivedAt, now, own);
  }

  /** The capsule is gone: nothing waits any more. */
  dispose(): void {
    for (const entry of this.waiting) entry.calls.waiting = 0;
    this.waiting = [];
    if (this.stallWatch !== undefined) this.host.clock.clearTimeout(this.stallWatch);
    this.stallWatch = undefined;
  }

  /** Runs a call that arrived at `arrivedAt`, `now`. */
  private run(calls: SessionCalls, call: ToolCall, arrivedAt: number, now: number, own: OwnCall | undefined): void {
    try {
      new CallRun(this.host, this.ticks, calls, call, arrivedAt, own).run(now);
    } catch (error) {
      // Only a bug of ours lands here; the agent still gets an answer and the loop goes on.
      const failed: CallResult = {
        call_id: call.call_id,
        ok: false,
        error: refusal('internal', 'the bridge failed while serving this call'),
        meta: { tick: this.ticks.tick, latency_ms: 0, source: 'bridge' },
      };
      if (own === undefined) calls.finish(failed);
      else own.answer(failed);
      this.host.hostError({
        code: 'bridge_failed',
        tool: call.tool,
        sessionId: calls.sessionId,
        message: `capsule: internal failure serving ${call.tool}`,
        cause: error,
      });
    }
  }

  /**
   * A call waits for a tick: if calls still wait and no tick has come a while later, nothing drives
   * the capsule (no capsule.step, no driver), and every such call would wait out its timeout in
   * silence. One timer on the capsule's clock, armed by the first call that waits and again only
   * while calls wait: a capsule stepped as it should be pays one timer per interval, not one per
   * call; and once the host has heard, none at all.
   */
  private watchForStall(): void {
    if (this.stallWatch !== undefined || this.stallTold) return;
    const host = this.host;
    const afterMs = Math.max(STALL_WARNING_MS, 2000 / this.ticks.tickRateHz);
    const look = (): void => {
      this.stallWatch = undefined;
      if (this.waiting.length === 0) return; // served: the next call to wait watches again
      const idleMs = host.clock.now() - this.lastTickAt;
      // Ticks come; these calls wait for the next: look again once the last tick is afterMs old.
      if (idleMs < afterMs) return void (this.stallWatch = host.clock.setTimeout(look, afterMs - idleMs, UPKEEP));
      this.stallTold = true;
      host.hostError({
        code: 'clock_stalled',
        message: `capsule: calls wait for a tick in ${this.ticks.tickMode} mode, and none has come for ${afterMs} ms: nothing steps the capsule. Call capsule.step(deltaMs) from your game loop, or start a clock driver, startDriver(capsule) (animation frames on a page, a timer elsewhere; a world that moves only when its characters act wants tickMode 'event')`,
      });
    };
    this.stallWatch = host.clock.setTimeout(look, afterMs, UPKEEP);
  }
}

/**
 * One call on its way through the pipeline. A class rather than a nest of closures: one object per
 * call is what the hot path can afford.
 */
class CallRun implements ToolContext, FinishedCall {
  readonly sessionId: string;
  readonly character: string;
  readonly callId: string;
  readonly tick: number;
  private tool: RegisteredTool | undefined;
  private settled = false;
  private timer: TimerId | undefined;
  // Made only for handlers that read `signal`: most never do.
  private controller: AbortController | undefined;
  private timeoutMs = 0;

  constructor(
    private readonly host: CallHost,
    private readonly ticks: TickState,
    private readonly calls: SessionCalls,
    readonly call: ToolCall,
    private readonly arrivedAt: number,
    private readonly own: OwnCall | undefined,
  ) {
    this.sessionId = calls.sessionId;
    this.character = calls.character;
    this.callId = call.call_id;
    this.tick = ticks.tick;
  }

  get signal(): AbortSignal {
    this.controller ??= this.calls.controller();
    return this.controller.signal;
  }

  /** Sends an event to the calling session alone, whatever its subscriptions. */
  emit(topic: Topic, payload: JsonObject, meta?: Meta): void {
    this.calls.direct(meta === undefined ? { topic, payload } : { topic, payload, meta });
  }

  run(now: number): void {
    const { host, calls, call } = this;
    const tool = (this.tool = host.tool(call.tool));
    if (tool === undefined) return this.refuse('tool_unknown', `no tool "${clip(call.tool, MAX_QUOTED_NAME)}" in this world's tool catalog now`);
    if (!tool.enabled) return this.refuse('tool_disabled', `${call.tool} is disabled for now`);
    const { descriptor } = tool;
    const capability = descriptor.requires_capability;
    if (capability !== undefined && !calls.holds(descriptor.class, capability)) {
      return this.refuse('capability_missing', `${call.tool} requires the ${descriptor.class} capability "${capability}", which this session does not hold`);
    }
    const usage = calls.usageOf(descriptor.id);
    const limit = usage.check(descriptor.id, descriptor.limits, now);
    if (!limit.ok) return this.refuse(limit.kind, limit.message);
    let valid: Validation;
    try {
      valid = tool.validateInput(call.input);
    } catch (error) {
      // The game's validator could not check (one that answers asynchronously): the game's fault.
      return this.fail(error);
    }
    if (!valid.ok) return this.refuse('invalid_input', `${call.tool}: ${valid.message}`);
    usage.record(descriptor.limits, now);

    this.timeoutMs = tool.definition.timeout_ms ?? host.toolTimeoutMs;
    let returned: unknown;
    try {
      // A Standard Schema validator's output (defaults filled in, say) is what the handler gets.
      returned = tool.definition.handler('value' in valid ? valid.value : call.input, this);
    } catch (error) {
      return this.fail(error);
    }
    if (isPromiseLike(returned)) {
      // Only a handler that returned a promise can outlive its call; a synchronous one is done.
      this.timer = host.clock.setTimeout(() => this.timeOut(), this.timeoutMs, UPKEEP);
      // Settled in a promise reaction, after whatever step ran the handler: timed as deferred work.
      returned.then(
        (output) => host.measure(() => this.succeed(output)),
        (error: unknown) => host.measure(() => this.fail(error)),
      );
    } else this.succeed(returned);
  }

  private succeed(output: unknown): void {
    const { host, call, tool } = this;
    const isObject = typeof output === 'object' && output !== null && !Array.isArray(output);
    let checked: Validation;
    try {
      checked = isObject ? tool!.validateOutput(output) : { ok: false, message: 'output must be an object' };
    } catch (error) {
      checked = { ok: false, message: firstLine(error) };
    }
    if (checked.ok && 'value' in checked) output = checked.value;
    if (this.settled) {
      host.hostError({
        code: 'handler_late',
        tool: call.tool,
        sessionId: this.sessionId,
        message: `${call.tool}: the handler finished after its ${this.timeoutMs} ms timeout; the agent had \`timeout\`, and a retry with call_id ${call.call_id} gets this result`,
      });
      if (checked.ok) this.keepLate(this.result(true, output as JsonObject, undefined, 'handler'));
      return;
    }
    this.settle();
    if (!checked.ok) {
      host.hostError({
        code: 'output_invalid',
        tool: call.tool,
        sessionId: this.sessionId,
        message: `tool "${call.tool}" returned an output that breaks its output_schema: ${checked.message}`,
      });
      return this.refuse('output_invalid', `${call.tool} produced an invalid result; the game has been told`);
    }
    this.finish(true, output as JsonObject, undefined, 'handler');
  }

  private fail(error: unknown): void {
    if (this.settled) return this.keepLate(this.result(false, undefined, handlerError(this.call.tool, error), 'handler'));
    this.settle();
    if (!(error instanceof ToolError)) {
      this.host.hostError({
        code: 'handler_threw',
        tool: this.call.tool,
        sessionId: this.sessionId,
        message: `tool "${this.call.tool}" threw: ${firstLine(error)}`,
        cause: error,
      });
    }
    this.finish(false, undefined, handlerError(this.call.tool, error), 'handler');
  }

  private timeOut(): void {
    if (this.settled) return;
    this.settled = true;
    this.controller?.abort(new Error(`${this.call.tool} timed out after ${this.timeoutMs} ms`));
    if (this.controller !== undefined) this.calls.release(this.controller);
    this.refuse('timeout', `${this.call.tool} did not finish within ${this.timeoutMs} ms`);
  }

  private settle(): void {
    this.settled = true;
    if (this.timer !== undefined) this.host.clock.clearTimeout(this.timer);
    if (this.controller !== undefined) this.calls.release(this.controller);
  }

  private refuse(kind: RefusalKind, message: string): void {
    this.finish(false, undefined, refusal(kind, message), 'bridge');
  }

  /** A result made after the call timed out: kept for a retry of its call_id, not sent (a call of the capsule's own has no retry). */
  private keepLate(result: CallResult): void {
    if (this.own === undefined) this.calls.keepLate(result);
  }

  private finish(ok: boolean, output: JsonObject | undefined, error: WireError | undefined, source: string): void {
    if (this.calls.closed) return;
    const result = this.result(ok, output, error, source);
    const own = this.own;
    if (own === undefined) {
      this.calls.finish(result);
      this.host.completed(this, result, this.tool);
    } else {
      own.answer(result);
      this.host.completed(this, result, this.tool, own.source);
    }
  }

  /** The call's result, made once: kept for a repeated call_id and sent as it is. */
  private result(ok: boolean, output: JsonObject | undefined, error: WireError | undefined, source: string): CallResult {
    const host = this.host;
    const meta: Meta = { tick: this.ticks.tick, latency_ms: Math.max(0, Math.round(host.clock.now() - this.arrivedAt)), source };
    return ok ? { call_id: this.callId, ok: true, output: output!, meta } : { call_id: this.callId, ok: false, error: error!, meta };
  }
}

/** What the agent learns of a handler's failure: a ToolError's message, or an Error's first line. */
function handlerError(tool: string, error: unknown): WireError {
  if (error instanceof ToolError) return refusal('execution_failed', error.message || `${tool} failed`, error.retryable);
  return refusal('execution_failed', `${tool} failed: ${firstLine(error)}`);
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : typeof error === 'string' ? error : 'unknown error';
  const line = text.split('\n', 1)[0]!.trim();
  return (line.length > 200 ? `${line.slice(0, 200)}…` : line) || 'unknown error';
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
