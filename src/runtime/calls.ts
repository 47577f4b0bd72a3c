// The tool_call pipeline, in the order docs/PROTOCOL.md gives: (protocol and message schema are
// checked by the Wire) → repeated call_id → tool exists → enabled → capability → limits → input →
// handler under a timeout → output. Every refusal comes back to the agent as data.

import type { Clock, TimerId } from './clock.js';
import { refusal, ToolError, type RefusalKind } from './errors.js';
import type { JsonObject, Meta, Topic, ToolCall, WireError } from './protocol.js';
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
  code: 'handler_threw' | 'output_invalid' | 'handler_late' | 'listener_threw' | 'bridge_failed';
  tool?: string;
  sessionId?: string;
  message: string;
  cause?: unknown;
}

export interface CallHost {
  readonly clock: Clock;
  readonly tick: number;
  readonly toolTimeoutMs: number;
  tool(id: string): RegisteredTool | undefined;
  directEvent(session: Session, topic: Topic, payload: JsonObject, meta?: Meta): void;
  completed(record: CallRecord, tool: RegisteredTool | undefined): void;
  hostError(error: HostError): void;
}

/** Runs one accepted call to its result. `arrivedAt` is when the call reached the capsule. */
export function runCall(host: CallHost, session: Session, call: ToolCall, arrivedAt: number): void {
  const finish = (result: Omit<CallResult, 'call_id' | 'meta'>, source: string, tool?: RegisteredTool): void => {
    if (session.state === 'closed') return;
    const meta: Meta = { tick: host.tick, latency_ms: Math.max(0, Math.round(host.clock.now() - arrivedAt)), source };
    const full: CallResult = { call_id: call.call_id, ...result, meta };
    session.finishCall(full);
    host.completed({ sessionId: session.id, character: session.character, tool: call.tool, callId: call.call_id, input: call.input, result: full }, tool);
  };
  const refuse = (kind: RefusalKind, message: string, tool?: RegisteredTool): void => finish({ ok: false, error: refusal(kind, message) }, 'bridge', tool);

  const tool = host.tool(call.tool);
  if (tool === undefined) return refuse('tool_unknown', `no tool "${call.tool}" in this world; request the manifest for the current catalog`);
  if (!tool.enabled) return refuse('tool_disabled', `${call.tool} is disabled for now`, tool);
  const { descriptor } = tool;
  const capability = descriptor.requires_capability;
  if (capability !== undefined && !session.holds(descriptor.class, capability)) {
    return refuse('capability_missing', `${call.tool} requires the ${descriptor.class} capability "${capability}", which this session does not hold`, tool);
  }
  const usage = session.usageOf(descriptor.id);
  const now = host.clock.now();
  const limit = usage.check(descriptor.id, descriptor.limits, now);
  if (!limit.ok) return refuse(limit.kind, limit.message, tool);
  const valid = tool.validateInput(call.input);
  if (!valid.ok) return refuse('invalid_input', `${call.tool}: ${valid.message}`, tool);
  usage.record(descriptor.limits, now);

  // The signal's controller is made only for handlers that read it: most never do.
  let controller: AbortController | undefined;
  let settled = false;
  let timer: TimerId | undefined;
  const timeoutMs = tool.definition.timeout_ms ?? host.toolTimeoutMs;
  const timeOut = (): void => {
    if (settled) return;
    settled = true;
    controller?.abort(new Error(`${call.tool} timed out after ${timeoutMs} ms`));
    if (controller !== undefined) session.release(controller);
    refuse('timeout', `${call.tool} did not finish within ${timeoutMs} ms`, tool);
  };

  const succeed = (output: unknown): void => {
    if (settled) {
      host.hostError({ code: 'handler_late', tool: call.tool, sessionId: session.id, message: `${call.tool}: the handler finished after its ${timeoutMs} ms timeout; its result was dropped` });
      return;
    }
    settle();
    const isObject = typeof output === 'object' && output !== null && !Array.isArray(output);
    const checked = isObject ? tool.validateOutput(output) : { ok: false as const, message: 'output must be an object' };
    if (!checked.ok) {
      host.hostError({ code: 'output_invalid', tool: call.tool, sessionId: session.id, message: `tool "${call.tool}" returned an output that breaks its output_schema: ${checked.message}` });
      return refuse('output_invalid', `${call.tool} produced an invalid result; the game has been told`, tool);
    }
    finish({ ok: true, output: output as JsonObject }, 'handler', tool);
  };
  const fail = (error: unknown): void => {
    if (settled) return;
    settle();
    if (!(error instanceof ToolError)) {
      host.hostError({ code: 'handler_threw', tool: call.tool, sessionId: session.id, message: `tool "${call.tool}" threw: ${firstLine(error)}`, cause: error });
    }
    finish({ ok: false, error: handlerError(call.tool, error) }, 'handler', tool);
  };
  const settle = (): void => {
    settled = true;
    if (timer !== undefined) host.clock.clearTimeout(timer);
    if (controller !== undefined) session.release(controller);
  };

  const context: ToolContext = {
    sessionId: session.id,
    character: session.character,
    callId: call.call_id,
    tick: host.tick,
    get signal() {
      controller ??= session.controller();
      return controller.signal;
    },
    emit: (topic, payload, meta) => host.directEvent(session, topic, payload, meta),
  };
  let returned: unknown;
  try {
    returned = tool.definition.handler(call.input, context);
  } catch (error) {
    return fail(error);
  }
  if (isPromiseLike(returned)) {
    // Only a handler that returned a promise can outlive its call; a synchronous one is done.
    timer = host.clock.setTimeout(timeOut, timeoutMs);
    returned.then(succeed, fail);
  } else succeed(returned);
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
