// A character of a capsule in this process, served to an MCP client: a session opened for the
// character (connectInProcess: the capsule checks everything the client's calls carry), an MCP server
// over that session, connected to the transport given — stdio for a client that spawns its servers,
// the SDK's in-memory pair for a client in the same process, or any other MCP transport.

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { AgentClient } from '../agent/agentClient.js';
import { connectInProcess, type InProcessOptions, type SessionOpener } from '../agent/inProcess.js';
import { createCharacterServer, type CharacterServer, type CharacterServerOptions } from './characterServer.js';

export interface ServeMcpOptions extends InProcessOptions, Omit<CharacterServerOptions, 'character'> {
  /** Where the MCP client is. */
  transport: Transport;
}

export interface McpService extends CharacterServer {
  /** The character's session, as the MCP client's calls travel it. */
  client: AgentClient;
  /** True once the MCP client hung up, the session ended or close() was called. */
  readonly closed: boolean;
  /** Closes the MCP connection and the character's session. */
  close(reason?: string): Promise<void>;
}

/**
 * Opens a session for `options.character` on `opener` (a capsule) and serves it on `options.transport`.
 *
 * @example
 * import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
 * const service = await serveMcp(capsule, { character: 'keeper', capabilities: { sensors: ['sight'] }, transport: new StdioServerTransport() });
 * // …the MCP client lists the keeper's tools and calls them; later:
 * await service.close();
 */
export async function serveMcp(opener: SessionOpener, options: ServeMcpOptions): Promise<McpService> {
  const { transport, name, maxNewsLines, observePerMinute, now, immediate, ...session } = options;
  const client = await connectInProcess(opener, session);
  let served: CharacterServer;
  try {
    served = createCharacterServer(client, {
      character: options.character,
      ...(name !== undefined && { name }),
      ...(maxNewsLines !== undefined && { maxNewsLines }),
      ...(observePerMinute !== undefined && { observePerMinute }),
      ...(now !== undefined && { now }),
      ...(immediate !== undefined && { immediate }),
    });
  } catch (error) {
    // Options it cannot work with: the session just opened for it does not stay.
    await client.close('serveMcp: refused its options');
    throw error;
  }
  let closed = false;
  const close = async (reason = 'mcp client gone'): Promise<void> => {
    if (closed) return;
    closed = true;
    served.detach();
    await served.server.close();
    await client.close(reason);
  };
  // The client hanging up ends the character's session too.
  served.server.onclose = () => void close();
  // The session ending (the capsule disposed, the game closed it) ends the MCP connection.
  client.on('close', () => void close());
  await served.connect(transport);
  return {
    ...served,
    client,
    close,
    get closed() {
      return closed;
    },
  };
}
