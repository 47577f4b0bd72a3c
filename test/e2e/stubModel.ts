// A local OpenAI-compatible chat-completions server whose replies the test scripts, so the real pi
// can run end to end with no network and no key. It records every request it gets.

import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';

/** One scripted reply: its text, streamed in chunks, optionally slowly (to steer or abort mid-run). */
export interface StubReply {
  text: string;
  /** Native tool calls after the text (OpenAI `tool_calls` deltas; the reply then finishes with `tool_calls`). */
  toolCalls?: Array<{ name: string; arguments: object }>;
  /** Characters per SSE chunk (default: the whole text in one chunk). */
  chunkChars?: number;
  /** Pause before each chunk, in ms (default 0). */
  chunkDelayMs?: number;
  /** Token counts to report in a last chunk (OpenAI's `usage`, as with `stream_options.include_usage`). Default: none. */
  usage?: { promptTokens: number; completionTokens: number };
}

export interface StubRequest {
  /** The parsed JSON body pi sent: model, messages, stream, tools, … */
  body: {
    model?: string;
    stream?: boolean;
    messages?: Array<{ role: string; content: unknown; tool_call_id?: string }>;
    tools?: Array<{ type: string; function: { name: string } }>;
  };
  /** Set when the client went away before the reply was complete (an abort). */
  aborted: boolean;
  /** The text this request was answered with (scripted, or the fallback). */
  reply: string;
  /** performance.now() when the request arrived, and when the last byte of the answer was written (for benches: model time ends there). */
  startedAt: number;
  endedAt?: number;
}

export interface StubModel {
  /** `http://127.0.0.1:PORT/v1`: what models.json puts as baseUrl. */
  readonly baseUrl: string;
  readonly requests: StubRequest[];
  /** What a request gets when no reply is queued; a test may change it. */
  fallbackReply: string;
  /** Called with each request as it arrives (after it is recorded). */
  onRequest?: (request: StubRequest) => void;
  /** Queues replies; each request takes the next one (or `fallbackReply` when none is queued). */
  script(...replies: Array<string | StubReply>): void;
  /** Resolves once `n` requests have arrived. */
  waitForRequests(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export const STUB_PROVIDER = 'stub';
export const STUB_MODEL_ID = 'stub-model';

/** Starts the stub on 127.0.0.1 and an ephemeral port. */
export async function startStubModel(
  options: {
    fallbackReply?: string;
    /**
     * Answers each request from its body, instead of the queue: the same request, the same reply, in
     * whatever order requests arrive (several episodes on threads share one stub).
     */
    respond?: (body: StubRequest['body']) => string | StubReply;
  } = {},
): Promise<StubModel> {
  const queue: StubReply[] = [];
  const requests: StubRequest[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch(() => res.destroy());
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `stub model: no route ${req.method} ${req.url}` } }));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as StubRequest['body'];
    const answer = options.respond?.(body);
    const reply = answer !== undefined ? (typeof answer === 'string' ? { text: answer } : answer) : (queue.shift() ?? { text: model.fallbackReply });
    const record: StubRequest = { body, aborted: false, reply: reply.text, startedAt: performance.now() };
    requests.push(record);
    model.onRequest?.(record);
    for (const waiter of waiters.filter((w) => requests.length >= w.n)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    // The response's close (not the request's) tells a client that went away mid-stream.
    res.on('close', () => {
      if (!res.writableEnded) record.aborted = true;
    });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const size = reply.chunkChars ?? Math.max(1, reply.text.length);
    const base = { id: `chatcmpl-stub-${requests.length}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: STUB_MODEL_ID };
    const send = (choice: object): boolean => res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, ...choice }] })}\n\n`);
    for (let at = 0; at < reply.text.length; at += size) {
      if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
      if (record.aborted || res.destroyed) return;
      send({ delta: { content: reply.text.slice(at, at + size) } });
    }
    if (record.aborted || res.destroyed) return;
    const calls = reply.toolCalls ?? [];
    calls.forEach((call, index) => {
      send({
        delta: {
          tool_calls: [
            { index, id: `call_stub_${requests.length}_${index}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } },
          ],
        },
      });
    });
    send({ delta: {}, finish_reason: calls.length > 0 ? 'tool_calls' : 'stop' });
    if (reply.usage !== undefined) {
      const { promptTokens, completionTokens } = reply.usage;
      res.write(
        `data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens } })}\n\n`,
      );
    }
    res.end('data: [DONE]\n\n');
    record.endedAt = performance.now();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('stubModel: expected a TCP address');

  const model: StubModel = {
    baseUrl: `http://127.0.0.1:${address.port}/v1`,
    requests,
    fallbackReply: options.fallbackReply ?? 'stub: no reply was scripted',
    script: (...replies) => queue.push(...replies.map((r) => (typeof r === 'string' ? { text: r } : r))),
    waitForRequests(n, timeoutMs = 20_000) {
      if (requests.length >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`stubModel: ${requests.length} of ${n} requests after ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ n, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return model;
}

const DIRECTIONS = ['north', 'south', 'east', 'west'];

/**
 * A stub's answer by the request alone, for runs whose requests arrive in any order (evals on threads
 * or queue workers): a walk in a direction picked by the conversation's length, a word after each
 * tool result, and usage for each.
 */
export function walkingReply(body: StubRequest['body']): StubReply {
  const messages = body.messages ?? [];
  const usage = { promptTokens: 100 + messages.length, completionTokens: 10 };
  if (messages.at(-1)?.role === 'tool') return { text: 'Onwards.', usage };
  return { text: '', toolCalls: [{ name: 'go', arguments: { direction: DIRECTIONS[messages.length % 4]! } }], usage };
}

/** The models.json pi reads from `$PI_CODING_AGENT_DIR`, pointing provider `stub` at the stub. */
export function stubModelsJson(baseUrl: string): object {
  return {
    providers: {
      [STUB_PROVIDER]: {
        baseUrl,
        api: 'openai-completions',
        // A literal key: pi insists on one, the stub never checks it.
        apiKey: 'stub-key',
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
        models: [{ id: STUB_MODEL_ID, contextWindow: 32000, maxTokens: 1024 }],
      },
    },
  };
}

/** Writes models.json into `agentDir` (created if missing), for `PI_CODING_AGENT_DIR`. */
export function writePiAgentDir(agentDir: string, baseUrl: string): void {
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(join(agentDir, 'models.json'), `${JSON.stringify(stubModelsJson(baseUrl), null, 2)}\n`);
}

/** The text of the user messages of a recorded request, in order (content may be a string or parts). */
export function userTexts(request: StubRequest): string[] {
  return (request.body.messages ?? []).filter((m) => m.role === 'user').map((m) => contentText(m.content));
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (part && typeof part === 'object' && 'text' in part ? String(part.text) : '')).join('');
  return '';
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
