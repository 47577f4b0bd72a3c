// What the direct model backend needs of a model provider, and nothing more: one model turn — a
// conversation in, the model's next message out. The shapes are pi-ai's own (`Context`, `Message`,
// `AssistantMessage`, `Tool` of @earendil-works/pi-ai 1.x and @mariozechner/pi-ai 0.73), declared
// here structurally so that this module, and the pilot with it, load without pi-ai: the provider is
// handed in as a value (src/node/model/piAi.ts makes one from pi-ai; a cassette replays one).

/** A text block of a message. */
export interface ModelText {
  type: 'text';
  text: string;
}

/** A tool call the model made: `arguments` as the provider parsed them (not yet checked). */
export interface ModelToolCall {
  type: 'toolCall';
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** The model's own reasoning, when the provider shows it (kept in the conversation as the provider gave it). */
export interface ModelThinking {
  type: 'thinking';
  thinking: string;
}

/** pi-ai's Usage: prompt tokens split into uncached (`input`), read from and written to the cache. */
export interface ModelUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens?: number;
  cost?: { total: number; [part: string]: number };
}

export type ModelStop = 'stop' | 'length' | 'toolUse' | 'error' | 'aborted';

export interface ModelUserMessage {
  role: 'user';
  content: string | ModelText[];
  timestamp: number;
}

/** The model's message: pi-ai's AssistantMessage (other fields the provider sets are kept as they are). */
export interface ModelReply {
  role: 'assistant';
  content: Array<ModelText | ModelThinking | ModelToolCall>;
  usage: ModelUsage;
  stopReason: ModelStop;
  errorMessage?: string;
  timestamp: number;
  [field: string]: unknown;
}

export interface ModelToolResult {
  role: 'toolResult';
  toolCallId: string;
  toolName: string;
  content: ModelText[];
  isError: boolean;
  timestamp: number;
}

export type ModelMessage = ModelUserMessage | ModelReply | ModelToolResult;

/** A tool as the model sees it: the manifest's id, description and input schema (JSON Schema). */
export interface ModelTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** One request: pi-ai's Context. */
export interface ModelRequest {
  systemPrompt: string;
  messages: ModelMessage[];
  tools: ModelTool[];
}

export interface ModelTurnOptions {
  /** Aborts the request (the pilot's abort, the backend's close, the gate's timeout). */
  signal: AbortSignal;
  /** Called once the model starts to answer (its first streamed delta), if the provider streams. */
  onToken(): void;
}

/**
 * One model turn. Resolves with the model's message — a failed request as pi-ai reports it, a
 * message whose `stopReason` is `error` (or `aborted`) with `errorMessage` — or rejects; the backend
 * reads both as a failed turn. Must not keep a reference to `request` after it settles: the
 * backend goes on appending to its messages.
 */
export type ModelTurn = (request: ModelRequest, options: ModelTurnOptions) => Promise<ModelReply>;
