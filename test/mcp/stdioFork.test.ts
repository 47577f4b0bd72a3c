// `aicc replay day.ndjson --until N --then mcp` as an MCP client meets it: a model-driven day is
// rebuilt to tick N from its cassette, and from there the villager is the client's — the client (the
// MCP SDK's own Client) starts the built CLI as its stdio server, lists Cleo's tools and calls them;
// when it hangs up the fork ends, its story on stderr and its recording naming its parent and tick.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelReply } from '../../src/agent/model/modelPort.js';
import { main } from '../../src/node/cli/main.js';
import { modelAgentOf } from '../../src/node/cli/modelAgent.js';
import { runVillage } from '../../src/worlds/village/run.js';
import { tempDir } from '../node/gateway/helpers.js';

const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
const quiet = { stdout: { write: () => true }, stderr: { write: () => true } };

describe('aicc replay --until N --then mcp, over stdio', () => {
  let dir: ReturnType<typeof tempDir> | undefined;
  afterEach(() => dir?.remove());

  it('hands the villager to the MCP client that started it, at the tick its state hash was recorded', async () => {
    if (!existsSync(cli)) throw new Error('dist/cli.js is missing: run `npm run build` first (npm test does)');
    dir = tempDir('aicc-fork-mcp-');
    const record = join(dir.path, 'day.ndjson');
    const fork = join(dir.path, 'fork.ndjson');
    // A model-driven day recorded without waiting on the wall clock: the model goes south, greets the market, then waits.
    const replies: ModelReply['content'][] = [
      [{ type: 'toolCall', id: 'c1', name: 'go', arguments: { direction: 'south' } }],
      [{ type: 'toolCall', id: 'c2', name: 'say', arguments: { text: 'Hello, market!' } }],
    ];
    const agent = modelAgentOf(
      () => async () => {
        await new Promise((resolve) => setImmediate(resolve));
        const content = replies.shift() ?? [{ type: 'text', text: 'I wait.' }];
        return { role: 'assistant', content, usage, stopReason: content[0]!.type === 'text' ? 'stop' : 'toolUse', timestamp: 0 };
      },
      'scripted',
    );
    const lines: string[] = [];
    await runVillage({
      ticks: 200,
      record: (line) => lines.push(line),
      pilot: { character: 'cleo', backend: agent.backend },
      recordOptions: { pilot: { character: 'cleo', agent: 'model:test/scripted' } },
      hashEvery: 50,
      pace: async () => {
        for (let i = 0; i < 4; i++) await new Promise((resolve) => setImmediate(resolve));
      },
    });
    await agent.close();
    writeFileSync(record, lines.join(''));
    const hashAt50 = readFileSync(record, 'utf8')
      .split('\n')
      .find((line) => line.startsWith('{"tick":50,') && line.includes('"hash"'));
    expect(hashAt50).toBeDefined();

    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli, 'replay', record, '--until', '50', '--then', 'mcp', '--record', fork],
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += String(chunk)));
    const client = new Client({ name: 'fork test', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.name).toBe('aicc-cleo');
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['look', 'go', 'say']));
      // The model went south before tick 50: the client takes Cleo over where the cassette left her.
      const look = await client.callTool({ name: 'look', arguments: {} });
      expect(look.isError).toBeFalsy();
      expect(look.structuredContent).toMatchObject({ name: 'Market' });
      const said = await client.callTool({ name: 'say', arguments: { text: 'The client speaks now.' } });
      expect(said.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    for (let i = 0; i < 200 && !stderr.includes('fork: tick 50'); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    // stdout was MCP's: the story and the verdict went to stderr.
    expect(stderr).toContain('Cleo is handed over to a player outside the village.');
    expect(stderr).toContain('Cleo says: "The client speaks now."');
    expect(stderr).toContain(`state hash ${(JSON.parse(hashAt50!) as { hash: string }).hash} as recorded; then mcp`);
    const header = JSON.parse(readFileSync(fork, 'utf8').split('\n')[0]!) as { options: object };
    expect(header.options).toMatchObject({ parent: { recording: expect.stringMatching(/^day\.ndjson sha256:/), tick: 50 }, pilot: { agent: 'mcp' } });
    expect(await main(['validate', fork], quiet)).toBe(0);
  }, 60_000);
});
