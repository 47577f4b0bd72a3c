// tools/call answered straight from the transport, past the SDK's dispatch: the MCP SDK's own Client
// gets the same answers either way — a result, a refusal as an isError result; params of the wrong
// shape a JSON-RPC InvalidParams error — and every other method still reaches the SDK's server.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createCapsule } from '../../src/index.js';
import { createCharacterServer, type CharacterServer } from '../../src/mcp/characterServer.js';
import { connectInProcess } from '../../src/agent/inProcess.js';
import type { Capsule } from '../../src/runtime/capsuleTypes.js';

let capsule: Capsule;
let client: Client;

afterEach(async () => {
  await client?.close();
  capsule?.dispose();
});

/** A capsule with one tool, a character served over the SDK's in-memory pair, directly or through the server only. */
async function serve(direct: boolean): Promise<{ served: CharacterServer; handled: string[] }> {
  const handled: string[] = [];
  capsule = createCapsule({ world: { name: 'w', kind: 'abstract' }, tickMode: 'event' });
  capsule.registerTool({
    id: 'greet',
    class: 'actuator',
    description: 'Greets someone.',
    input_schema: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'], additionalProperties: false },
    output_schema: { type: 'object', properties: { said: { type: 'string' } }, required: ['said'] },
    handler: ({ who }) => (handled.push(who), { said: `hello, ${who}` }),
  });
  const agent = await connectInProcess(capsule, { character: 'wren' });
  const served = createCharacterServer(agent, { character: 'wren' });
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  if (direct) await served.connect(serverEnd);
  else await served.server.connect(serverEnd);
  client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientEnd);
  return { served, handled };
}

async function answers(direct: boolean): Promise<unknown[]> {
  const { handled } = await serve(direct);
  const ok = await client.callTool({ name: 'greet', arguments: { who: 'ada' } });
  const refused = await client.callTool({ name: 'greet', arguments: { whom: 'ada' } });
  const wrong = await client.request({ method: 'tools/call', params: { arguments: {} } as never }, CallToolResultSchema).catch((error: unknown) => error);
  const tools = (await client.listTools()).tools.map((tool) => tool.name);
  await client.close();
  capsule.dispose();
  return [ok, refused, { code: (wrong as { code?: number }).code }, tools, handled];
}

describe('tools/call straight to the character', () => {
  it('answers as the SDK server would, and leaves every other method to it', async () => {
    const direct = await answers(true);
    const through = await answers(false);
    // The same results, refusals, lists and handler runs; params of the wrong shape are an error on
    // both paths — InvalidParams here, where the SDK's server answers InternalError for its zod failure.
    expect([direct[0], direct[1], direct[3], direct[4]]).toEqual([through[0], through[1], through[3], through[4]]);
    expect(through[2]).toEqual({ code: ErrorCode.InternalError });
    const [ok, refused, wrong, tools, handled] = direct as [
      { structuredContent: unknown },
      { isError: boolean; content: Array<{ text: string }> },
      { code: number },
      string[],
      string[],
    ];
    expect(ok.structuredContent).toEqual({ said: 'hello, ada' });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toMatch(/^greet refused \(invalid_input\)/);
    expect(wrong.code).toBe(ErrorCode.InvalidParams);
    expect(tools).toEqual(['greet', 'observe']);
    expect(handled).toEqual(['ada']);
  });

  it('takes tools/call off the SDK server: its own handler no longer runs', async () => {
    const { served } = await serve(true);
    let throughServer = 0;
    const { CallToolRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
    served.server.setRequestHandler(CallToolRequestSchema, () => (throughServer++, { content: [] }));
    expect((await client.callTool({ name: 'greet', arguments: { who: 'bo' } })).structuredContent).toEqual({ said: 'hello, bo' });
    expect(throughServer).toBe(0);
  });

  it("is a transport of its own over the client's: what the transport's owner set before still runs, and a close reaches both", async () => {
    capsule = createCapsule({ world: { name: 'w', kind: 'abstract' }, tickMode: 'event' });
    const agent = await connectInProcess(capsule, { character: 'wren' });
    const served = createCharacterServer(agent, { character: 'wren' });
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    // The owner of the server's end (the gateway's HTTP session does this) listens before the server connects.
    const heard: string[] = [];
    serverEnd.onmessage = (message) => heard.push((message as { method?: string }).method ?? 'answer');
    serverEnd.onclose = () => heard.push('closed');
    let serverClosed = false;
    served.server.onclose = () => (serverClosed = true);
    await served.connect(serverEnd);
    client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientEnd);
    await client.callTool({ name: 'observe', arguments: {} });
    expect(heard).toEqual(['initialize', 'notifications/initialized', 'tools/call']);
    await client.close();
    expect(heard.at(-1)).toBe('closed');
    expect(serverClosed).toBe(true);
  });
});
