// tools/call straight to the character, past the MCP SDK's dispatch. The SDK's Protocol checks
// every incoming message against three zod schemas and builds a request context before it finds a
// handler: about 0.25 ms of a cold call on the gateway, and a fifth of a hot in-memory one. A model
// sends tools/call all the time, so that one method is looked for first and answered through the
// same transport; every other message (initialize, the lists, resources, notifications,
// cancellations) goes on to the SDK's server as before. The answer is the one the server's own
// handler gives (CharacterServer.callTool), so both paths agree.
//
// Through the SDK's documented seam only: this is a Transport of the project's own, wrapping the
// one the client is on. The server connects to it (`server.connect(new DirectToolCalls(…))`) and
// sets this object's callbacks, as any Protocol does; this object alone listens to the inner
// transport, as the one party connected to it.

import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type JSONRPCMessage, type MessageExtraInfo, type RequestId } from '@modelcontextprotocol/sdk/types.js';

export class DirectToolCalls implements Transport {
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  /** `callTool` answers a tools/call's params (CharacterServer.callTool); `inner` is where the client is. */
  constructor(
    private readonly inner: Transport,
    private readonly callTool: (params: unknown) => Promise<object>,
  ) {}

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  async start(): Promise<void> {
    // Callbacks its owner set before (the gateway hears a session close) still run first, as the SDK's Protocol keeps them.
    const { onmessage, onclose, onerror } = this.inner;
    this.inner.onmessage = (message, extra) => {
      onmessage?.(message, extra);
      const id = toolCallId(message);
      if (id === undefined) this.onmessage?.(message, extra);
      else this.answer(id, (message as { params?: unknown }).params);
    };
    this.inner.onclose = () => {
      onclose?.();
      this.onclose?.();
    };
    this.inner.onerror = (error) => {
      onerror?.(error);
      this.onerror?.(error);
    };
    await this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  private answer(id: RequestId, params: unknown): void {
    const reply = (message: JSONRPCMessage): Promise<void> => this.inner.send(message).catch(() => {}); // a transport closed meanwhile: nowhere to answer
    this.callTool(params).then(
      (result) => reply({ jsonrpc: '2.0', id, result: result as never }),
      (error: unknown) =>
        reply({
          jsonrpc: '2.0',
          id,
          error: { code: error instanceof McpError ? error.code : ErrorCode.InternalError, message: error instanceof Error ? error.message : 'internal error' },
        }),
    );
  }
}

/** The id of a tools/call request, or undefined for any other message. */
function toolCallId(message: JSONRPCMessage): RequestId | undefined {
  const { method, id } = message as { method?: unknown; id?: unknown };
  return method === 'tools/call' && (typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id))) ? id : undefined;
}
