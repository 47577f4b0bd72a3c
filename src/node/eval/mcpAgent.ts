// An MCP client as the agent under test (`mcp:COMMAND`): the program is started once per seat, as a
// cmd: program is, and its character is served to it as an MCP server over the program's own stdio
// (the SDK's stdio server transport on the child's streams): the program's standard output carries
// its JSON-RPC requests, its standard input the answers. A client built on the MCP SDK connects its
// Client to `new StdioServerTransport()` — the transport is symmetric — and lists and calls the
// character's tools and `observe`; every call is an aicc tool_call through the capsule's checks.
// Time and failures are a program's (programAgent.ts): settled when its every request unanswered is
// a call the capsule holds for the next tick (an MCP client waiting for its tools/call), or when quiet.
// Loaded only when an eval names an MCP client: it brings the MCP SDK, an optional peer dependency.

import { CapsuleError, messageOf } from '../../base/errors.js';
import type { EvalAgent } from '../../research/evalEpisode.js';
import { type ProgramAgentOptions, type ProgramProtocol, startProgram } from './programAgent.js';

/** JSON-RPC as MCP's stdio carries it: a request (a method and an id) is answered by a result or an error with its id. */
export const MCP_MESSAGES: ProgramProtocol = {
  isRequest: (message) => typeof message.method === 'string' && message.id !== undefined,
  isAnswer: (message) => message.method === undefined && message.id !== undefined && ('result' in message || 'error' in message),
  // The handshake's last word: a client is up once it has initialized.
  isReady: (message) => message.method === 'notifications/initialized',
};

/** An MCP client started by `command` (run by the shell) for each seat, with AICC_CHARACTER set to the character. */
export function mcpAgent(command: string, options: ProgramAgentOptions = {}): EvalAgent {
  return async (seat) => {
    const [{ createCharacterServer }, { StdioServerTransport }] = await loadSdk();
    const client = await seat.client();
    return startProgram(command, seat, options, MCP_MESSAGES, (stdio, fail) => {
      const served = createCharacterServer(client, { character: seat.character });
      served.connect(new StdioServerTransport(stdio.stdout, stdio.stdin)).catch((error: unknown) => fail(`the MCP server did not start: ${messageOf(error)}`));
      return {
        sessionId: client.sessionId,
        close: async () => {
          served.detach();
          await served.server.close();
        },
      };
    });
  };
}

async function loadSdk(): Promise<[typeof import('../../mcp/index.js'), typeof import('@modelcontextprotocol/sdk/server/stdio.js')]> {
  try {
    return await Promise.all([import('../../mcp/index.js'), import('@modelcontextprotocol/sdk/server/stdio.js')]);
  } catch (error) {
    throw new CapsuleError(
      'AICC_INVALID_OPTION',
      `eval: mcp: agents need the optional dependency @modelcontextprotocol/sdk (npm install @modelcontextprotocol/sdk); loading it failed: ${messageOf(error).split('\n', 1)[0]}`,
    );
  }
}
