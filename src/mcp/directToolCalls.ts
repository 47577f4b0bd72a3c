// tools/call straight to the character, past the MCP SDK's dispatch. The SDK's Protocol checks
// every incoming message against three zod schemas and builds a request context before it finds a
// handler: about 0.25 ms of a cold call on the gateway, and a fifth of a hot in-memory one. A model
// sends tools/call all the time, so that one method is looked for first, on the transport, and
// answered through the same transport; every other message (initialize, the lists, resources,
// notifications, cancellations) goes on to the SDK's server as before. The answer is the one the
// server's own handler gives (CharacterServer.callTool), so both paths agree.

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/** After `server.connect(transport)`: tools/call requests on `transport` are answered by `callTool`. */
export function routeToolCalls(transport: Transport, callTool: (params: unknown) => Promise<object>): void {
  const onward = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const id = toolCallId(message);
    if (id === undefined) return onward?.(message, extra);
    const answer = (reply: JSONRPCMessage): Promise<void> => transport.send(reply).catch(() => {}); // a transport closed meanwhile: nowhere to answer
    callTool((message as { params?: unknown }).params).then(
      (result) => answer({ jsonrpc: '2.0', id, result: result as never }),
      (error: unknown) =>
        answer({
          jsonrpc: '2.0',
          id,
          error: { code: error instanceof McpError ? error.code : ErrorCode.InternalError, message: error instanceof Error ? error.message : 'internal error' },
        }),
    );
  };
}

/** The id of a tools/call request, or undefined for any other message. */
function toolCallId(message: JSONRPCMessage): RequestId | undefined {
  const { method, id } = message as { method?: unknown; id?: unknown };
  return method === 'tools/call' && (typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id))) ? id : undefined;
}
