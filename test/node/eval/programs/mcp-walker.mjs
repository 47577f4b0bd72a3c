// An MCP client for the eval's tests, as a user would write one with the MCP SDK: its Client on the
// SDK's stdio transport (the eval serves the character over this program's stdin and stdout), it
// lists the character's tools, then looks around and walks, one call at a time — each answered at
// the world's next tick. `node mcp-walker.mjs [CRASH_AFTER] [PAUSE_MS]`: exits with code 3, after a
// word on stderr, after that many calls (`-` for never); thinks PAUSE_MS before each call but the first.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const crashAfter = process.argv[2] === undefined || process.argv[2] === '-' ? Number.POSITIVE_INFINITY : Number(process.argv[2]);
const pauseMs = Number(process.argv[3] ?? 0);
const client = new Client({ name: 'mcp-walker', version: '1.0.0' });
await client.connect(new StdioServerTransport());
const { tools } = await client.listTools();
if (!tools.some((tool) => tool.name === 'go')) throw new Error(`mcp-walker: no go among ${tools.map((tool) => tool.name)}`);
const directions = ['north', 'south', 'east', 'west'];
for (let calls = 1; ; calls++) {
  if (calls > 1 && pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  const walk = calls % 3 === 0;
  await client.callTool({ name: walk ? 'go' : 'look', arguments: walk ? { direction: directions[calls % 4] } : {} });
  if (calls >= crashAfter) {
    process.stderr.write(`mcp-walker: giving up after ${calls} calls\n`);
    process.exit(3);
  }
}
