// The baseline of bench/toolCall.bench.ts: the MCP TypeScript SDK making the same `move_to` call —
// an McpServer with the tool registered with zod input and output schemas of the same shape as the
// capsule's JSON Schemas, the same handler work (walkTo), and a Client over the SDK's in-memory
// transport pair (which hands message objects across without serialising them).
//
// Validation matches the capsule's: the server checks the input (zod) before the handler and the
// structured output (zod) after it. The client does not list the tools first, so it does not also
// check the output against an ajv-compiled outputSchema (which the SDK's Client would do after
// listTools): the capsule's AgentClient does not check outputs either, so neither side does that work.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { inputFor, MOVE_DESCRIPTION, walkTo, type CallPeer, type Place } from './capsulePeer.js';

export async function mcpOverMemory(): Promise<CallPeer> {
  const place: Place = { x: 0, y: 0 };
  const server = new McpServer({ name: 'bench', version: '0.0.0' });
  server.registerTool(
    'move_to',
    {
      description: MOVE_DESCRIPTION,
      // `.strict()`: undeclared fields are refused, as the capsule's strict_input: true does.
      inputSchema: z.object({ x: z.number(), y: z.number() }).strict(),
      outputSchema: { arrived: z.boolean(), distance: z.number() },
    },
    // No text copy of the output in `content`: the structured output is the whole answer, as on the capsule.
    ({ x, y }) => ({ content: [], structuredContent: walkTo(place, x, y) }),
  );
  const client = new Client({ name: 'bench-agent', version: '0.0.0' });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  return {
    async call(n) {
      const result = await client.callTool({ name: 'move_to', arguments: inputFor(n) });
      if (result.isError === true || result.structuredContent === undefined) throw new Error(`bench: MCP move_to failed: ${JSON.stringify(result.content)}`);
    },
    async close() {
      await client.close();
      await server.close();
    },
  };
}
