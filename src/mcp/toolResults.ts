// How an aicc/0.1 tool call looks to an MCP client: a manifest tool as an MCP tool (its schemas,
// description and annotations), and a call's outcome as a CallToolResult — the output as
// `structuredContent` with a short text, or a refusal as an `isError` result that names the aicc
// code, says whether a retry can succeed and what to do, so a model can correct itself.

import type { CallOutcome } from '../agent/agentClient.js';
import { clip } from '../base/clip.js';
import { compact } from '../runtime/compact.js';
import type { ErrorCode, JsonObject, ToolDescriptor } from '../protocol/messages.js';

/** The fields of an MCP `Tool` this bridge fills (tools/list). */
export interface McpTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  outputSchema?: { type: 'object'; [key: string]: unknown };
  annotations: { title?: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
}

/** The fields of an MCP `CallToolResult` this bridge fills (tools/call). */
export interface McpToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: JsonObject;
  isError?: boolean;
}

/** Longest text rendering of an output in `content` (the whole output is in structuredContent). */
export const MAX_RESULT_TEXT = 1_000;

/** What a model should do after each refusal: the retry advice the `retryable` flag alone cannot give. */
const ADVICE: Record<ErrorCode, { retry: string; stop: string }> = {
  invalid_input: { retry: 'fix the arguments and call again', stop: "fix the arguments to match the tool's inputSchema, then call again" },
  tool_unknown: { retry: 'list the tools again', stop: 'this character has no such tool now: list the tools (they change with the game) and pick another' },
  tool_unavailable: {
    retry: 'wait a moment (a limit or a busy game), then call again',
    stop: 'this tool is not available to this character now (a missing capability or a used-up quota): do something else',
  },
  timeout: { retry: 'the game did not answer in time: call again', stop: 'the game did not answer in time: do something else' },
  execution_failed: {
    retry: 'the game could not do it just now: call again',
    stop: 'the game could not do it (see why): change the arguments or do something else',
  },
  session_expired: { retry: 'the session is reconnecting: call again shortly', stop: "the character's session is over: stop calling its tools" },
  internal_error: { retry: 'the game failed: call again', stop: 'the game failed on this call: do something else' },
  protocol_mismatch: { retry: 'call again', stop: 'the game and this bridge do not speak the same protocol: stop' },
};

/** A manifest tool as MCP lists it: a sensor is read-only; nothing an agent does here is destructive. */
export function mcpTool(tool: ToolDescriptor): McpTool {
  const sensor = tool.class === 'sensor';
  const limits =
    tool.limits === undefined
      ? ''
      : ` Limits: ${Object.entries(tool.limits)
          .map(([name, value]) => `${name.replace(/_/g, ' ')} ${String(value)}`)
          .join(', ')}.`;
  return {
    name: tool.id,
    description: `${tool.description}${limits}`,
    inputSchema: { ...(tool.input_schema as object), type: 'object' },
    ...(isObjectSchema(tool.output_schema) && { outputSchema: { ...tool.output_schema, type: 'object' as const } }),
    annotations: { readOnlyHint: sensor, destructiveHint: false, idempotentHint: sensor, openWorldHint: false },
  };
}

function isObjectSchema(schema: JsonObject | undefined): schema is JsonObject & { type: 'object' } {
  return schema !== undefined && schema['type'] === 'object';
}

/** A call's outcome as an MCP tool result. */
export function mcpResult(tool: string, outcome: CallOutcome): McpToolResult {
  if (outcome.ok) {
    const output = outcome.output;
    const text = clip(compact(output), MAX_RESULT_TEXT) || 'done';
    return { content: [{ type: 'text', text }], structuredContent: output };
  }
  return refusedResult(tool, outcome.error.code, outcome.error.message, outcome.error.retryable);
}

/** A refusal as an `isError` result: `refused (CODE, retryable): why. What to do: …`. */
export function refusedResult(tool: string, code: ErrorCode, message: string, retryable: boolean): McpToolResult {
  const advice = ADVICE[code] ?? ADVICE.internal_error;
  const text = `${tool} refused (${code}${retryable ? ', retryable' : ''}): ${message}. What to do: ${retryable ? advice.retry : advice.stop}.`;
  return { content: [{ type: 'text', text }], isError: true };
}
