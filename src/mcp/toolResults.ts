// How an aicc/0.1 tool call looks to an MCP client: a manifest tool as an MCP tool (its schemas,
// description and annotations), and a call's outcome as a CallToolResult — the output as
// `structuredContent` with a short text, or a refusal as an `isError` result that names the aicc
// code, says whether a retry can succeed and what to do, so a model can correct itself.

import type { CallOutcome } from '../agent/agentClient.js';
import { refusalText } from '../agent/refusalAdvice.js';
import { toolDescription } from '../agent/toolDescription.js';
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

/** A manifest tool as MCP lists it: a sensor is read-only; nothing an agent does here is destructive. */
export function mcpTool(tool: ToolDescriptor): McpTool {
  const sensor = tool.class === 'sensor';
  return {
    name: tool.id,
    description: toolDescription(tool),
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
  return { content: [{ type: 'text', text: refusalText(tool, code, message, retryable) }], isError: true };
}
