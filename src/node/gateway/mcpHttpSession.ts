// One MCP session over Streamable HTTP (MCP 2025-06-18 and later), written on Node's own request
// and response: the MCP SDK's StreamableHTTPServerTransport turns every request into a Web-standard
// Request and back through @hono/node-server, which cost ~0.5 ms of a tool call's 0.5 ms budget
// (issue 18; bench/nativeDecision.bench.ts). What this session does of the transport spec:
// - POST carries one JSON-RPC message or a batch; one holding requests is answered with
//   application/json once every request in it has its response (the spec lets a server choose JSON
//   over an event stream); one holding only notifications or responses gets 202. Every POST is
//   answered: a message is taken only in a shape the MCP SDK dispatches (its own strict schemas: a
//   request it would neither answer nor take as a notification never waits here for an answer), a
//   batch may not repeat a request id, and a request the client cancels (notifications/cancelled,
//   after which the SDK says nothing) is answered REQUEST_CANCELLED here;
// - GET opens the session's one event stream, for what the server says unasked
//   (notifications/tools/list_changed, resources/updated); a second one gets 409;
// - DELETE ends the session;
// - initialize opens the session and names it in the `mcp-session-id` header; an
//   `mcp-protocol-version` header must name a version the SDK speaks.
// Resumable streams (Last-Event-ID) are not offered: a client that loses the event stream opens
// another and reads the character's news, which the gateway keeps. The caller checks Host, Origin,
// the key and the session id before a request reaches here (mcpEndpoint.ts).

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/** Most messages in one POSTed batch (the SDK's own limit). */
export const MAX_MCP_BATCH = 100;
/** Most requests of one session waiting for their responses; a POST beyond them gets 503. */
export const MAX_MCP_PENDING_REQUESTS = 64;
/** Bytes the event stream may hold unsent before the client is taken as gone and the stream closed. */
export const MAX_MCP_STREAM_BACKLOG = 1024 * 1024;

/**
 * The JSON-RPC error code of the answer to a request its client cancelled (notifications/cancelled):
 * the SDK's server stops its handler and says nothing, but the POST that carried the request must
 * still be answered. The code is LSP's RequestCancelled; JSON-RPC leaves it to the server.
 */
export const REQUEST_CANCELLED = -32800;

/** Why a request is refused: the HTTP status, and the JSON-RPC error the body holds. */
export interface McpRefusal {
  status: number;
  /** The JSON-RPC error code. */
  code: number;
  message: string;
}

/** A POST waiting for the responses to the requests it carried. */
interface PendingPost {
  response: ServerResponse;
  ids: RequestId[];
  answers: Map<RequestId, JSONRPCMessage>;
}

export class McpHttpSession implements Transport {
  sessionId?: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly posts = new Map<RequestId, PendingPost>();
  private stream: ServerResponse | undefined;
  private closed = false;

  /**
   * `opened` is told the session's id when initialize names it; `unkeyed` takes the gateway key out
   * of what a header says before an answer quotes it.
   */
  constructor(
    private readonly unkeyed: (text: string) => string,
    private readonly opened: (sessionId: string) => void,
  ) {}

  async start(): Promise<void> {}

  /** A POST whose body was read and parsed (`body`). */
  handlePost(request: IncomingMessage, response: ServerResponse, body: unknown): void {
    const messages = checkPost(request, body);
    if (!Array.isArray(messages)) return refuseWith(response, messages);
    if (this.closed) return answerError(response, 404, 'Session not found', -32001);
    const initialize = messages.some((message) => requestId(message) !== undefined && 'method' in message && message.method === 'initialize');
    if (initialize) {
      if (this.sessionId !== undefined) return answerError(response, 400, 'Invalid Request: the session is already initialized', -32600);
      if (messages.length > 1) return answerError(response, 400, 'Invalid Request: initialize comes alone', -32600);
      this.sessionId = randomUUID();
      this.opened(this.sessionId);
    } else {
      if (this.sessionId === undefined) return answerError(response, 400, 'Bad Request: start with an initialize request');
      const refusal = this.versionRefusal(request);
      if (refusal !== undefined) return answerError(response, 400, refusal);
    }
    const ids = messages.flatMap((message) => requestId(message) ?? []);
    if (ids.length === 0) {
      response.writeHead(202).end();
    } else {
      if (this.posts.size + ids.length > MAX_MCP_PENDING_REQUESTS)
        return answerError(response, 503, `Service Unavailable: ${MAX_MCP_PENDING_REQUESTS} requests of this session already wait for their responses`);
      if (ids.some((id) => this.posts.has(id))) return answerError(response, 400, 'Invalid Request: a request id already waits for its response', -32600);
      const post: PendingPost = { response, ids, answers: new Map() };
      for (const id of ids) this.posts.set(id, post);
      // A client gone before its answers: nothing will be written to it.
      response.once('close', () => {
        for (const id of ids) if (this.posts.get(id) === post) this.posts.delete(id);
      });
    }
    for (const message of messages) {
      const cancelled = cancelledId(message);
      if (cancelled !== undefined && this.posts.has(cancelled))
        this.answer(cancelled, {
          jsonrpc: '2.0',
          id: cancelled,
          error: { code: REQUEST_CANCELLED, message: `Request cancelled: the client cancelled request ${clipId(cancelled)}` },
        });
      this.onmessage?.(message);
    }
  }

  /** A GET: the session's event stream. */
  handleGet(request: IncomingMessage, response: ServerResponse): void {
    if (!(request.headers.accept ?? '').includes('text/event-stream'))
      return answerError(response, 406, 'Not Acceptable: the client must accept text/event-stream');
    const refusal = this.versionRefusal(request);
    if (refusal !== undefined) return answerError(response, 400, refusal);
    if (this.stream !== undefined) return answerError(response, 409, 'Conflict: only one event stream per session');
    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'mcp-session-id': this.sessionId ?? '',
    });
    response.flushHeaders();
    this.stream = response;
    response.once('close', () => {
      if (this.stream === response) this.stream = undefined;
    });
  }

  /** A DELETE: the client ends the session. */
  handleDelete(request: IncomingMessage, response: ServerResponse): void {
    const refusal = this.versionRefusal(request);
    if (refusal !== undefined) return answerError(response, 400, refusal);
    response.writeHead(200).end();
    void this.close();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const id = 'id' in message && !('method' in message) ? message.id : undefined;
    if (id !== undefined && this.posts.has(id)) return this.answer(id, message);
    // Said unasked (or a response whose POST is gone): on the event stream, if the client holds one.
    if (id === undefined && this.stream !== undefined) this.toStream(this.stream, message);
  }

  /** The response to request `id`, which a POST waits for: that POST is answered once it has them all. */
  private answer(id: RequestId, message: JSONRPCMessage): void {
    const post = this.posts.get(id)!;
    this.posts.delete(id);
    post.answers.set(id, message);
    if (post.answers.size < post.ids.length) return;
    const answers = post.ids.map((each) => post.answers.get(each)!);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    post.response.writeHead(200, headers).end(JSON.stringify(answers.length === 1 ? answers[0] : answers));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const post of new Set(this.posts.values()))
      if (!post.response.headersSent) answerError(post.response, 404, 'Session not found: the session ended', -32001);
    this.posts.clear();
    this.stream?.end();
    this.stream = undefined;
    this.onclose?.();
  }

  private toStream(stream: ServerResponse, message: JSONRPCMessage): void {
    if (stream.writableLength > MAX_MCP_STREAM_BACKLOG) {
      // The client stopped reading: let it reconnect rather than hold its backlog.
      stream.end();
      return;
    }
    stream.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  private versionRefusal(request: IncomingMessage): string | undefined {
    const version = request.headers['mcp-protocol-version'];
    if (version === undefined || (typeof version === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(version))) return undefined;
    return `Bad Request: unsupported MCP protocol version ${this.unkeyed(String(version)).slice(0, 40)} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`;
  }
}

/** A JSON-RPC error as the whole answer to an HTTP request. */
export function answerError(response: ServerResponse, status: number, message: string, code = -32000): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** A refusal as the whole answer to an HTTP request. */
export function refuseWith(response: ServerResponse, refusal: McpRefusal): void {
  answerError(response, refusal.status, refusal.message, refusal.code);
}

/**
 * What a POST's headers and parsed body carry, checked as far as they can be without a session:
 * the messages, or the refusal to answer with. The gateway checks an initialize this way before it
 * builds a server for it (mcpEndpoint.ts); handlePost checks every POST again.
 */
export function checkPost(request: IncomingMessage, body: unknown): JSONRPCMessage[] | McpRefusal {
  const accept = request.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
    return { status: 406, code: -32000, message: 'Not Acceptable: the client must accept both application/json and text/event-stream' };
  if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? ''))
    return { status: 415, code: -32000, message: 'Unsupported Media Type: the Content-Type must be application/json' };
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  if (messages.length === 0 || messages.length > MAX_MCP_BATCH)
    return { status: 400, code: -32600, message: `Invalid Request: a batch holds 1 to ${MAX_MCP_BATCH} messages` };
  const ids = new Set<RequestId>();
  for (const [index, message] of messages.entries()) {
    // The SDK's own schemas (strict: no member JSON-RPC has not): what passes them, its server answers
    // (a request) or takes (a notification, a response); anything else it would drop unanswered.
    if (!JSONRPCMessageSchema.safeParse(message).success) {
      const which = messages.length === 1 ? 'the message' : `message ${index + 1} of the batch`;
      return { status: 400, code: -32700, message: `Parse error: ${which} is not a JSON-RPC 2.0 request, notification or response` };
    }
    const id = requestId(message as JSONRPCMessage);
    if (id === undefined) continue;
    if (ids.has(id)) return { status: 400, code: -32600, message: `Invalid Request: the batch repeats the request id ${clipId(id)}` };
    ids.add(id);
  }
  return messages as JSONRPCMessage[];
}

/** The id of a request (a message with a method and an id), or undefined for any other message. */
function requestId(message: JSONRPCMessage): RequestId | undefined {
  return 'method' in message && 'id' in message ? message.id : undefined;
}

/** The request a notifications/cancelled names, or undefined for any other message. */
function cancelledId(message: JSONRPCMessage): RequestId | undefined {
  if (!('method' in message) || message.method !== 'notifications/cancelled' || 'id' in message) return undefined;
  const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : undefined;
}

/** A request id as an answer may quote it. */
function clipId(id: RequestId): string {
  return JSON.stringify(id).slice(0, 40);
}
