import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { yieldToAgents } from '../../src/adapters/headless/runner.js';
import { serveMcp, type McpService } from '../../src/mcp/index.js';
import { buildVillage, VILLAGER_SESSION, type Village } from '../../src/worlds/village/world.js';

let village: Village;
let service: McpService;
let client: Client;

async function connect(options: { observePerMinute?: number; now?: () => number } = {}): Promise<void> {
  village = buildVillage(7);
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  const serving = serveMcp(village.capsule, { character: 'cleo', ...VILLAGER_SESSION, transport: serverEnd, ...options });
  await settle(serving);
  service = await serving;
  client = new Client({ name: 'test client', version: '1.0.0' });
  await client.connect(clientEnd);
}

/** Steps the village's clock (a call runs at the next tick) until `promise` settles. */
async function settle<T>(promise: Promise<T>): Promise<T> {
  let done = false;
  void promise.finally(() => (done = true)).catch(() => {});
  for (let i = 0; i < 100 && !done; i++) {
    await yieldToAgents();
    if (!done) village.capsule.step(100);
  }
  return promise;
}

afterEach(async () => {
  await client?.close();
  village?.capsule.dispose();
});

describe('serveMcp: a character as MCP tools', () => {
  it('lists the manifest as tools, with their schemas, a sensor as read-only, and observe', async () => {
    await connect();
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual([...village.capsule.tools().map((tool) => tool.id), 'observe']);
    const look = tools.find((tool) => tool.name === 'look')!;
    expect(look.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(look.outputSchema).toMatchObject({ type: 'object' });
    const go = tools.find((tool) => tool.name === 'go')!;
    expect(go.annotations?.readOnlyHint).toBe(false);
    expect(go.inputSchema).toEqual(expect.objectContaining({ type: 'object', required: ['direction'] }));
  });

  it('calls a tool as an aicc tool_call: the output as structuredContent, with a short text', async () => {
    await connect();
    const result = await settle(client.callTool({ name: 'look', arguments: {} }));
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ id: 'tavern', name: 'Tavern' });
    expect((result.content as Array<{ text: string }>)[0]!.text).toContain('Tavern');
    const calls = village.capsule.sessions()[0]!;
    expect(calls.character).toBe('cleo');
  });

  it('refuses a bad call with an isError result naming the aicc code and what to do, and the call after it works', async () => {
    await connect();
    const bad = await settle(client.callTool({ name: 'go', arguments: { where: 'south' } }));
    expect(bad.isError).toBe(true);
    const text = (bad.content as Array<{ text: string }>)[0]!.text;
    expect(text).toMatch(/^go refused \(invalid_input\): .+\. What to do: fix the arguments to match the tool's inputSchema, then call again\.$/);
    const unknown = await settle(client.callTool({ name: 'fly', arguments: {} }));
    const unknownText = (unknown.content as Array<{ text: string }>)[0]!.text;
    expect(unknownText).toMatch(/^fly refused \(tool_unknown\): .+\. What to do: .*list the tools/);
    // An MCP client lists tools; the aicc step (a manifest request) is not one it can take.
    expect(unknownText).not.toMatch(/manifest/i);
    const good = await settle(client.callTool({ name: 'go', arguments: { direction: 'south' } }));
    expect(good.isError).toBeFalsy();
    expect(village.world.roomOf('cleo').id).toBe('market');
  });

  it('tells the client when the manifest changes (notifications/tools/list_changed)', async () => {
    await connect();
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    village.capsule.registerTool({
      id: 'whistle',
      class: 'actuator',
      description: 'Whistle a tune.',
      input_schema: { type: 'object', properties: {} },
      output_schema: { type: 'object', properties: {} },
      handler: () => ({}),
    });
    await settle(
      new Promise<void>((resolve) => setTimeout(resolve, 0)).then(async () => {
        for (let i = 0; i < 20 && changed === 0; i++) await yieldToAgents();
      }),
    );
    expect(changed).toBeGreaterThanOrEqual(1);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('whistle');
  });

  it('tells the client when the character’s capabilities change, and calls follow the new ones', async () => {
    await connect();
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    // Cleo loses her legs.
    village.capsule.setCapabilities(service.client.sessionId, { sensors: ['sight', 'hearing'], actuators: ['hands', 'voice'], generators: ['quill'] });
    for (let i = 0; i < 20 && changed === 0; i++) await yieldToAgents();
    expect(changed).toBe(1);
    const go = await settle(client.callTool({ name: 'go', arguments: { direction: 'south' } }));
    expect((go.content as Array<{ text: string }>)[0]!.text).toMatch(
      /^go refused \(tool_unavailable\): .*legs.*What to do: this tool is not available to this character now/,
    );
  });

  it('gathers the events the character hears as news: a subscribed resource, and observe', async () => {
    await connect();
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updates.push(notification.params.uri));
    const { resources } = await client.listResources();
    expect(resources).toEqual([expect.objectContaining({ uri: service.newsUri, mimeType: 'text/plain' })]);
    await client.subscribeResource({ uri: service.newsUri });
    village.world.say('bram', 'Fresh apples at the market!');
    village.capsule.emit('agent_message', { from: 'bram', text: 'Fresh apples at the market!' });
    await settle(new Promise<void>((resolve) => setTimeout(resolve, 0)));
    for (let i = 0; i < 10 && updates.length === 0; i++) {
      village.capsule.step(100);
      await yieldToAgents();
    }
    expect(updates).toEqual([service.newsUri]);
    const read = await client.readResource({ uri: service.newsUri });
    expect((read.contents[0] as { text: string }).text).toContain('Fresh apples at the market!');
    // Reading empties it: news since the last read.
    const observed = await client.callTool({ name: 'observe', arguments: {} });
    expect(observed.structuredContent).toEqual({ news: expect.not.stringContaining('Fresh apples') });
    await expect(client.readResource({ uri: 'aicc://nobody/news' })).rejects.toThrow(/no resource aicc:\/\/nobody\/news; this server has aicc:\/\/cleo\/news/);
  });

  it('limits observe per minute like any tool, on the clock it is given', async () => {
    let now = 0;
    await connect({ observePerMinute: 2, now: () => now });
    expect((await client.callTool({ name: 'observe', arguments: {} })).isError).toBeFalsy();
    expect((await client.callTool({ name: 'observe', arguments: {} })).isError).toBeFalsy();
    const third = await client.callTool({ name: 'observe', arguments: {} });
    expect(third.isError).toBe(true);
    expect((third.content as Array<{ text: string }>)[0]!.text).toMatch(
      /^observe refused \(tool_unavailable, retryable\): observe is limited to 2 calls a minute\. What to do: wait/,
    );
    now = 60_000;
    expect((await client.callTool({ name: 'observe', arguments: {} })).isError).toBeFalsy();
  });

  it('refuses an observe limit it cannot keep, and leaves no session behind', async () => {
    village = buildVillage(7);
    for (const observePerMinute of [0, -1, 1.5]) {
      const [, serverEnd] = InMemoryTransport.createLinkedPair();
      await expect(serveMcp(village.capsule, { character: 'cleo', ...VILLAGER_SESSION, observePerMinute, transport: serverEnd })).rejects.toThrow(
        /createCharacterServer: observePerMinute must be a whole number >= 1/,
      );
    }
    expect(village.capsule.sessions()).toHaveLength(0);
  });

  it('closes the character’s session when the MCP client hangs up', async () => {
    await connect();
    expect(village.capsule.sessions()).toHaveLength(1);
    await client.close();
    for (let i = 0; i < 5; i++) await yieldToAgents();
    expect(village.capsule.sessions()).toHaveLength(0);
  });
});
