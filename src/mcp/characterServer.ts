// One character's aicc/0.1 session as an MCP server, built on the MCP SDK's low-level Server (its
// tools change with the manifest, which McpServer's static registry does not model):
// - tools/list is the session's manifest, plus a built-in `observe` tool;
// - tools/call is an aicc tool_call through the session's AgentClient, so every limit, capability
//   and schema check of the capsule applies, and every refusal comes back as an `isError` result;
// - a manifest update becomes notifications/tools/list_changed;
// - the events the session hears are gathered into coalesced news (the pilot's Digest): a resource
//   to read or subscribe to, and what `observe` returns — both empty it, so each read is "since the
//   last read".

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode as McpErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { AgentClient } from '../agent/agentClient.js';
import { CapsuleError } from '../base/errors.js';
import { SlidingWindow } from '../runtime/limits.js';
import type { JsonObject } from '../protocol/messages.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CharacterNews } from './characterNews.js';
import { DirectToolCalls } from './directToolCalls.js';
import { mcpResult, mcpTool, refusedResult, type McpTool, type McpToolResult } from './toolResults.js';

export interface CharacterServerOptions {
  /** The character the session plays: named in the server's name and as "you" in the news. */
  character: string;
  /** The server's name in the MCP handshake. Default `aicc-<character>`. */
  name?: string;
  /** Most lines of news in one read; the rest are counted. Default 30. Unused with `news`. */
  maxNewsLines?: number;
  /** News shared with other servers of the character (and kept by its giver); default: this server's own. */
  news?: CharacterNews;
  /** How many times a minute `observe` may be called, like any limited tool. Default 30. */
  observePerMinute?: number;
  /** Wall time in ms, for observe's limit. Default Date.now. */
  now?: () => number;
  /**
   * In hybrid tick mode, ask for each call to run at once instead of at the next tick (the aicc
   * `immediate` flag). A model's calls are slow to come and each is one decision. Default false.
   */
  immediate?: boolean;
}

export interface CharacterServer {
  /** The MCP server: connect it to a transport (`server.connect(transport)`). */
  server: Server;
  /** The URI of the news resource, `aicc://<character>/news`. */
  newsUri: string;
  /**
   * Answers a tools/call's params (checked here: a `name`, `arguments` an object if given) as the
   * server does; for a transport that routes the hot method straight here instead of through the
   * SDK's dispatch. Throws an McpError (InvalidParams) for params of the wrong shape.
   */
  callTool(params: unknown): Promise<McpToolResult>;
  /** Connects the server to `transport`, tools/call answered straight by callTool (directToolCalls.ts). */
  connect(transport: Transport): Promise<void>;
  /** Stops listening to the session (the session itself is the caller's to close). */
  detach(): void;
}

const OBSERVE = 'observe';

/** An MCP server for the session behind `client` (connected, with its manifest). */
export function createCharacterServer(client: AgentClient, options: CharacterServerOptions): CharacterServer {
  const { character } = options;
  const newsUri = `aicc://${encodeURIComponent(character)}/news`;
  const perMinute = options.observePerMinute ?? 30;
  if (!Number.isSafeInteger(perMinute) || perMinute < 1)
    throw new CapsuleError('AICC_INVALID_OPTION', `createCharacterServer: observePerMinute must be a whole number >= 1, got ${String(perMinute)}`);
  const owned = options.news === undefined;
  const news = options.news ?? new CharacterNews(client, character, options.maxNewsLines);
  const server = new Server(
    { name: options.name ?? `aicc-${character}`, version: '0.1.0' },
    {
      capabilities: { tools: { listChanged: true }, resources: { subscribe: true } },
      instructions: `You control ${character}, a character in a game, through these tools. Call \`${OBSERVE}\` (or read ${newsUri}) for what happened since you last looked. A refused call says why and what to do.`,
    },
  );
  let subscribed = false;
  /** A resources/updated was sent and the news not read since: one is enough. */
  let told = false;
  // observe is limited as any tool is, by the runtime's sliding window (on wall time: it is this server's own tool).
  const observed = new SlidingWindow(perMinute);

  const observeName = (): string => (client.manifest.tools.some((tool) => tool.id === OBSERVE) ? `aicc_${OBSERVE}` : OBSERVE);
  const observeTool = (): McpTool => ({
    name: observeName(),
    description: `What ${character} saw and heard since the last look: news, coalesced (repeated changes summed up, ticks counted). At most ${perMinute} calls a minute.`,
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    outputSchema: { type: 'object', properties: { news: { type: 'string' } }, required: ['news'] },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  });
  const takeNews = (): string => {
    told = false;
    return news.take() || 'nothing new';
  };
  const observe = (): McpToolResult => {
    const now = (options.now ?? Date.now)();
    if (observed.waitMs(now) > 0) return refusedResult(observeName(), 'tool_unavailable', `${observeName()} is limited to ${perMinute} calls a minute`, true);
    observed.record(now);
    const news = takeNews();
    return { content: [{ type: 'text', text: news }], structuredContent: { news } };
  };

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...client.manifest.tools.map(mcpTool), observeTool()] }));
  const callTool = async (params: unknown): Promise<McpToolResult> => {
    const { name, arguments: input = {} } = (params ?? {}) as { name?: unknown; arguments?: unknown };
    if (typeof name !== 'string') throw new McpError(McpErrorCode.InvalidParams, 'tools/call: params.name must be the name of a tool');
    if (typeof input !== 'object' || input === null || Array.isArray(input))
      throw new McpError(McpErrorCode.InvalidParams, `tools/call ${name}: params.arguments must be an object`);
    if (name === observeName()) return observe();
    return mcpResult(name, await client.call(name, input as JsonObject, options.immediate === true ? { immediate: true } : undefined));
  };
  server.setRequestHandler(CallToolRequestSchema, (request) => callTool(request.params));
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [
      {
        uri: newsUri,
        name: 'news',
        title: `${character}'s news`,
        description: `What ${character} saw and heard since the last read, coalesced.`,
        mimeType: 'text/plain',
      },
    ],
  }));
  const known = (uri: string): void => {
    if (uri !== newsUri) throw new McpError(McpErrorCode.InvalidParams, `no resource ${uri}; this server has ${newsUri}`);
  };
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    known(request.params.uri);
    return { contents: [{ uri: newsUri, mimeType: 'text/plain', text: takeNews() }] };
  });
  server.setRequestHandler(SubscribeRequestSchema, (request) => {
    known(request.params.uri);
    subscribed = true;
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    known(request.params.uri);
    subscribed = false;
    return {};
  });

  // A notification to a server with no transport yet (or one that closed) has nowhere to go.
  const notify = (send: () => Promise<void>): void => {
    if (server.transport !== undefined) send().catch(() => {});
  };
  const offs = [
    news.onNews(() => {
      if (subscribed && !told && news.hasNews) {
        told = true;
        notify(() => server.sendResourceUpdated({ uri: newsUri }));
      }
    }),
    client.on('manifest', () => notify(() => server.sendToolListChanged())),
  ];
  return {
    server,
    newsUri,
    callTool,
    connect: (transport) => server.connect(new DirectToolCalls(transport, callTool)),
    detach: () => {
      offs.splice(0).forEach((off) => off());
      if (owned) news.close();
    },
  };
}
