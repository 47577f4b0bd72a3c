// `aicc demo --agent mcp` as an MCP client meets it: the client (the MCP SDK's own Client) starts the
// built CLI as its stdio server, lists Cleo's tools, calls them in real time — a refusal it then
// corrects among them — reads her news, and hangs up; the day ends and its story goes to stderr.

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';

const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const text = (result: unknown): string => (result as { content: Array<{ text: string }> }).content[0]!.text;

describe('aicc demo --agent mcp, over stdio', () => {
  it('serves Cleo to an MCP client that starts it: tools, calls, a corrected refusal, news, and the end of the day', async () => {
    if (!existsSync(cli)) throw new Error('dist/cli.js is missing: run `npm run build` first (npm test does)');
    const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'demo', '--agent', 'mcp', '--ticks', '600'], stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += String(chunk)));
    const client = new Client({ name: 'stdio test', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.name).toBe('aicc-cleo');
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['look', 'go', 'say', 'take', 'observe']));

      const look = await client.callTool({ name: 'look', arguments: {} });
      expect(look.structuredContent).toMatchObject({ name: 'Tavern' });
      const wrong = await client.callTool({ name: 'go', arguments: { to: 'south' } });
      expect(wrong.isError).toBe(true);
      expect(text(wrong)).toMatch(/^go refused \(invalid_input\): .*What to do: fix the arguments/);
      const right = await client.callTool({ name: 'go', arguments: { direction: 'south' } });
      expect(right.isError).toBeFalsy();
      expect(right.structuredContent).toMatchObject({ direction: 'south', to: expect.objectContaining({ name: 'Market' }) });

      const news = await client.readResource({ uri: 'aicc://cleo/news' });
      expect((news.contents[0] as { text: string }).text).toMatch(/^tick \d+/);
    } finally {
      await client.close();
    }
    // The client hung up: the day ends, and its story and summary reach stderr (stdout was MCP's).
    for (let i = 0; i < 100 && !/ticks: \d+ \(the guest left\)/.test(stderr); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stderr).toContain('Cleo is played from outside the village.');
    expect(stderr).toMatch(/ticks: \d+ \(the guest left\)/);
  }, 30_000);
});
