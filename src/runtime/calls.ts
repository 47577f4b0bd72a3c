// The tool_call pipeline, in the order docs/PROTOCOL.md gives: (protocol and message schema are
// checked by the Wire) → repeated call_id → tool exists → enabled → capability → limits → input →
// handler under a timeout → output. Every refusal comes back to the agent as data.

import { UPKEEP, type Clock, type TimerId } from './clock.js';
import { clip, MAX_QUOTED_NAME } from '../base/clip.js';
import { refusal, type RefusalKind } from '../protocol/refusals.js';
import { ToolError } from '../base/errors.js';
import type { JsonObject, Meta, Topic, ToolCall, WireError } from '../protocol/messages.js';
import type { CallResult } from './resultCache.js';
import type { Session } from './session.js';
import type { RegisteredTool, ToolContext } from './tool.js';

/** A call's whole story, for the host's `call` listeners (an inspector, a recorder). */
export interface CallRecord {
  sessionId: string;
  character: string;
  tool: string;
  callId: string;
  input: JsonObject;
  result: CallResult;
}

/**
 * Something the game should hear about: a handler that threw or answered late, an output that broke
 * its schema, a tick listener that threw, or a failure inside the bridge (a bug of ours).
 */
export interface HostError {
  /** `clock_stalled`: calls wait for a tick, but nothing steps the capsule (see CapsuleOptions.tickMode). */
  code: 'handler_threw' | 'output_invalid' | 'handler_late' | 'listener_threw' | 'bridge_failed' | 'clock_stalled';
  tool?: string;
  sessionId?: string;
  message: string;
  cause?: unknown;
}

/** What a finished call tells its host, beside its result. */
export interface FinishedCall {
  readonly sessionId: string;
  readonly character: string;
  readonly callId: string;
  readonly call: ToolCall;
}

export interface CallHost {
  readonly clock: Clock;
  readonly tick: number;
  readonly toolTimeoutMs: number;
  tool(id: string): RegisteredTool | undefined;
  directEvent(session: Session, topic: Topic, payload: JsonObject, meta?: Meta): void;
  /** A call has its result; the host builds a CallRecord from `call` only for listeners (most calls have none). */
  completed(call: FinishedCall, result: CallResult, tool: RegisteredTool | undefined): void;
  hostError(error: HostError): void;
  /** Runs work the capsule does outside a step or a message of its own (see CapsuleOptions.measureWork). */
  measure(work: () => void): void;
}

/** Runs one accepted call to its result. `arrivedAt` is when the call reached the capsule. */
export function runCall(host: CallHost, session: Session, call: ToolCall, arrivedAt: number): void {
  new CallRun(host, session, call, arrivedAt).run();
}

/**
 * One call on its way through the pipeline. A class rather than a nest of closures: one object per
 * call is what the hot path can afford.
 */
class CallRun implements ToolContext {
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
    private readonly session: Session,
    readonly call: ToolCall,
    private readonly arrivedAt: number,
  ) {
    this.sessionId = session.id;
    this.character = session.character;
    this.callId = call.call_id;
    this.tick = host.tick;
  }

  get signal(): AbortSignal {
    this.controller ??= this.session.controller();
    return this.controller.signal;
  }

  /** Sends an event to the calling session alone, whatever its subscriptions. */
  emit(topic: Topic, payload: JsonObject, meta?: Meta): void {
    this.host.directEvent(this.session, topic, payload, meta);
  }

  run(): void {
    const { host, session, call } = this;
    const tool = (this.tool = host.tool(call.tool));
    if (tool === undefined) return this.refuse('tool_unknown', `no tool "${clip(call.tool, MAX_QUOTED_NAME)}" in this world; request the manifest for the current catalog`);
    if (!tool.enabled) return this.refuse('tool_disabled', `${call.tool} is disabled for now`);
    const { descriptor } = tool;
    const capability = descriptor.requires_capability;
    if (capability !== undefined && !session.holds(descriptor.class, capability)) {
      return this.refuse('capability_missing', `${call.tool} requires the ${descriptor.class} capability "${capability}", which this session does not hold`);
    }
    const usage = session.usageOf(descriptor.id);
    const now = host.clock.now();
    const limit = usage.check(descriptor.id, descriptor.limits, now);
    if (!limit.ok) return this.refuse(limit.kind, limit.message);
    const valid = tool.validateInput(call.input);
    if (!valid.ok) return this.refuse('invalid_input', `${call.tool}: ${valid.message}`);
    usage.record(descriptor.limits, now);

    this.timeoutMs = tool.definition.timeout_ms ?? host.toolTimeoutMs;
    let returned: unknown;
    try {
      returned = tool.definition.handler(call.input, this);
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
    const checked = isObject ? tool!.validateOutput(output) : { ok: false as const, message: 'output must be an object' };
    if (this.settled) {
      host.hostError({ code: 'handler_late', tool: call.tool, sessionId: this.sessionId, message: `${call.tool}: the handler finished after its ${this.timeoutMs} ms timeout; the agent had \`timeout\`, and a retry with call_id ${call.call_id} gets this result` });
      if (checked.ok) this.keepLate({ ok: true, output: output as JsonObject });
      return;
    }
    this.settle();
    if (!checked.ok) {
      host.hostError({ code: 'output_invalid', tool: call.tool, sessionId: this.sessionId, message: `tool "${call.tool}" returned an output that breaks its output_schema: ${checked.message}` });
      return this.refuse('output_invalid', `${call.tool} produced an invalid result; the game has been told`);
    }
    this.finish({ ok: true, output: output as JsonObject }, 'handler');
  }

  private fail(error: unknown): void {
    if (this.settled) return this.keepLate({ ok: false, error: handlerError(this.call.tool, error) });
    this.settle();
    if (!(error instanceof ToolError)) {
      this.host.hostError({ code: 'handler_threw', tool: this.call.tool, sessionId: this.sessionId, message: `tool "${this.call.tool}" threw: ${firstLine(error)}`, cause: error });
    }
    this.finish({ ok: false, error: handlerError(this.call.tool, error) }, 'handler');
  }

  private timeOut(): void {
    if (this.settled) return;
    this.settled = true;
    this.controller?.abort(new Error(`${this.call.tool} timed out after ${this.timeoutMs} ms`));
    if (this.controller !== undefined) this.session.release(this.controller);
    this.refuse('timeout', `${this.call.tool} did not finish within ${this.timeoutMs} ms`);
  }

  private settle(): void {
    this.settled = true;
    if (this.timer !== undefined) this.host.clock.clearTimeout(this.timer);
    if (this.controller !== undefined) this.session.release(this.controller);
  }

  private refuse(kind: RefusalKind, message: string): void {
    this.finish({ ok: false, error: refusal(kind, message) }, 'bridge');
  }

  /** A result made after the call timed out: kept for a retry of its call_id, not sent. */
  private keepLate(result: Omit<CallResult, 'call_id' | 'meta'>): void {
    const { host, session, call } = this;
    if (session.state === 'closed') return;
    session.keepLateResult({ call_id: call.call_id, ...result, meta: { tick: host.tick, latency_ms: Math.max(0, Math.round(host.clock.now() - this.arrivedAt)), source: 'handler' } });
  }

  private finish(result: Omit<CallResult, 'call_id' | 'meta'>, source: string): void {
    const { host, session, call } = this;
    if (session.state === 'closed') return;
    const meta: Meta = { tick: host.tick, latency_ms: Math.max(0, Math.round(host.clock.now() - this.arrivedAt)), source };
    const full: CallResult = { call_id: call.call_id, ...result, meta };
    session.finishCall(full);
    host.completed(this, full, this.tool);
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
