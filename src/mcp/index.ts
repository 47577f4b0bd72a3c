// aicc-capsule/mcp — a game character as MCP tools (Node and any runtime the MCP SDK runs in; kept
// out of the browser entries): serveMcp(capsule, { character, transport }) serves one character's
// aicc/0.1 session to any MCP client. @modelcontextprotocol/sdk is an optional peer dependency,
// loaded only by this entry.

export { serveMcp } from './serveMcp.js';
export { createCharacterServer } from './characterServer.js';
export { CharacterNews } from './characterNews.js';
export { mcpTool, mcpResult, refusedResult, MAX_RESULT_TEXT } from './toolResults.js';

export type { ServeMcpOptions, McpService } from './serveMcp.js';
export type { SessionOpener, InProcessOptions } from '../agent/inProcess.js';
export type { CharacterServer, CharacterServerOptions } from './characterServer.js';
export type { McpTool, McpToolResult } from './toolResults.js';
