// A manifest tool's description as a model reads it, with its limits: one wording for every road a
// model takes to the tools (MCP clients, the direct model backend).

import type { ToolDescriptor } from '../protocol/messages.js';

/** `Walk one room on. Limits: calls per minute 30.` */
export function toolDescription(tool: ToolDescriptor): string {
  if (tool.limits === undefined) return tool.description;
  const limits = Object.entries(tool.limits)
    .map(([name, value]) => `${name.replace(/_/g, ' ')} ${String(value)}`)
    .join(', ');
  return `${tool.description} Limits: ${limits}.`;
}
