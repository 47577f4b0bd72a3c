// The capsule side of bench/mcp.bench.ts: the MCP SDK's Client calling `move_to` (bench/capsulePeer.ts,
// the same tool and handler work as the SDK peer in bench/mcpPeer.ts) on a character served by
// serveMcp, over the SDK's in-memory transport pair. Behind the bridge the capsule runs in event
// mode, so a call runs the moment it arrives and nothing needs ticking.
//
// What a call travels: the Client's request → InMemoryTransport → the SDK's low-level Server →
// the bridge's tools/call handler → AgentClient.call → memory link (objectCodec) → the capsule's
// checks (message, session, capability, limits, input schema) → handler → output schema →
// tool_result → the bridge's CallToolResult (structuredContent plus a short text) → back.
// The session subscribes to no events, so the bridge's news has nothing to gather.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createCapsule } from '../src/index.js';
import { serveMcp } from '../src/mcp/serveMcp.js';
import { inputFor, moveTool, type CallPeer, type Place } from './capsulePeer.js';

export async function bridgeOverMemory(): Promise<CallPeer> {
  const place: Place = { x: 0, y: 0 };
  const capsule = createCapsule({ world: { name: 'Bench', kind: '2d' }, tickMode: 'event' });
  capsule.registerTool(moveTool(place));
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const service = await serveMcp(capsule, { character: 'wren', capabilities: { actuators: ['locomotion'] }, subscriptions: [], transport: serverTransport });
  // Like bench/mcpPeer.ts, the client does not list the tools first, so it does not check outputs.
  const client = new Client({ name: 'bench-agent', version: '0.0.0' });
  await client.connect(clientTransport);
  return {
    async call(n) {
      const result = await client.callTool({ name: 'move_to', arguments: inputFor(n) });
      if (result.isError === true || result.structuredContent === undefined) throw new Error(`bench: bridge move_to failed: ${JSON.stringify(result.content)}`);
    },
    async close() {
      await client.close();
      await service.close('bench over');
      capsule.dispose('bench over');
    },
  };
}
