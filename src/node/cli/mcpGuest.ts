// `aicc demo --agent mcp[:NAME]`: a villager served to an MCP client over this process's standard
// input and output (the client starts `aicc demo --agent mcp` as its stdio server). Loaded only when
// asked for: it brings the MCP SDK, an optional peer dependency.

import type { Guest } from '../../worlds/village/run.js';
import type { Capsule } from '../../runtime/capsule.js';
import { VILLAGER_SESSION } from '../../worlds/village/world.js';

/** How to add this server to pi 1.x and to any client that reads an `mcpServers` file. */
export function mcpConfigLines(character: string): string[] {
  const args = ['aicc', 'demo', '--agent', `mcp:${character}`];
  return [
    `pi 1.x:  pi mcp add aicc-${character} -- npx ${args.join(' ')}`,
    `any MCP client (mcpServers): ${JSON.stringify({ mcpServers: { [`aicc-${character}`]: { command: 'npx', args } } })}`,
  ];
}

/** The guest hook for runVillage: serves `character` on stdio once the village is built. */
export async function stdioGuest(character: string): Promise<{ character: string; join(capsule: Capsule): Promise<Guest> }> {
  let mcp: typeof import('../../mcp/index.js');
  let stdio: typeof import('@modelcontextprotocol/sdk/server/stdio.js');
  try {
    [mcp, stdio] = await Promise.all([import('../../mcp/index.js'), import('@modelcontextprotocol/sdk/server/stdio.js')]);
  } catch (error) {
    throw new Error(
      `--agent mcp needs the optional dependency @modelcontextprotocol/sdk (npm install @modelcontextprotocol/sdk); loading it failed: ${(error as Error).message.split('\n', 1)[0]}`,
    );
  }
  return {
    character,
    join: async (capsule) => {
      const service = await mcp.serveMcp(capsule, { character, ...VILLAGER_SESSION, transport: new stdio.StdioServerTransport() });
      // A stdio client hangs up by closing our standard input (then it waits a moment before
      // SIGTERM): the transport does not watch for that, so the day ends here, story and all.
      process.stdin.once('end', () => void service.close('the MCP client hung up'));
      return {
        get gone() {
          return service.closed;
        },
        close: (reason) => service.close(reason),
      };
    },
  };
}
