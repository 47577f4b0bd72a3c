// A ChatBackend that speaks to a model directly — through pi's provider library, a local
// OpenAI-compatible server, or a cassette — instead of through a pi process. The character's tools
// are the model's native tools (input schemas from the manifest); the pilot's briefing and digests
// are the user messages; each tool call the model makes goes to the capsule as an ordinary aicc
// tool_call through the character's AgentClient (every check and limit applies), and its result,
// or its refusal with what to do, goes back as the tool's result, until the model stops calling
// tools. The conversation stays inside a declared budget (conversation.ts); requests go through a
// gate shared per provider (providerGate.ts).

import type { CallOutcome } from '../agentClient.js';
import { clip } from '../../base/clip.js';
import { CapsuleError, messageOf } from '../../base/errors.js';
import type { JsonObject, Manifest, ToolDescriptor } from '../../protocol/messages.js';
import { compact } from '../../runtime/compact.js';
import { refusalText } from '../refusalAdvice.js';
import { toolDescription } from '../toolDescription.js';
import type { ChatBackend, ChatSignal, SendKind } from '../pilot/backend.js';
import { usable } from '../pilot/catalog.js';
import { Conversation, type ConversationOptions } from './conversation.js';
import type { ModelReply, ModelTool, ModelToolCall, ModelToolResult, ModelTurn } from './modelPort.js';
import { ModelFailure, type ModelFailureKind, ProviderGate } from './providerGate.js';

/** What the backend needs of the character's session: its manifest, and calls (an AgentClient has both). */
export interface ModelToolClient {
  readonly manifest: Manifest;
  call(tool: string, input: JsonObject): Promise<CallOutcome>;
}

export interface ModelBackendOptions {
  /** The character's session: its tools are the model's, its calls go here. */
  client: ModelToolClient;
  /** One model turn (src/node/model/piAi.ts makes one from pi-ai; a cassette replays one). */
  turn: ModelTurn;
  /** The gate this provider's requests go through: share one among every backend of a provider. Default: a gate of its own. */
  gate?: ProviderGate;
  /** The system prompt. Default: a short one; the pilot's briefing, the first user message, says the rest. */
  systemPrompt?: string;
  /** Estimated tokens the conversation may hold before older turns fold. Default 8,000. */
  contextBudgetTokens?: number;
  /** How tokens are estimated (default: characters / 4). */
  estimateTokens?: ConversationOptions['estimate'];
  /** Model requests in one decision (each tool round trip is one). Default 6. */
  maxStepsPerDecision?: number;
  /** Tool calls carried out from one model message; the rest are answered as skipped. Default 8. */
  maxCallsPerStep?: number;
  /** Longest text of a tool's output the model gets back. Default 600 characters. */
  maxOutputChars?: number;
  /** Stamps messages (pi-ai wants a timestamp on each). Default Date.now; a cassette run passes the capsule clock. */
  now?: () => number;
}

export const MODEL_BACKEND_DEFAULTS = Object.freeze({ maxStepsPerDecision: 6, maxCallsPerStep: 8, maxOutputChars: 600 });

export const DEFAULT_MODEL_SYSTEM_PROMPT =
  'You play one character in a game. You act only by calling the tools you are given; the user messages are the game telling you what happens.';

interface Run {
  abort: AbortController;
  done: Promise<string | null>;
  settled: boolean;
}

export class ModelBackend implements ChatBackend {
  private readonly conversation: Conversation;
  private readonly gate: ProviderGate;
  private readonly observers = new Set<(signal: ChatSignal) => void>();
  private readonly pending: string[] = [];
  /** How the last failed model turn failed (after the gate's retries), for a caller that tells a crash from garbage. */
  lastFailure: ModelFailureKind | undefined;
  private readonly maxSteps: number;
  private readonly maxCalls: number;
  private readonly maxOutput: number;
  private readonly now: () => number;
  private run: Run | undefined;
  private closed = false;

  constructor(private readonly options: ModelBackendOptions) {
    if (typeof options?.turn !== 'function') throw new CapsuleError('AICC_INVALID_OPTION', 'ModelBackend: options.turn must be a function (a ModelTurn)');
    if (options.client === undefined) throw new CapsuleError('AICC_INVALID_OPTION', "ModelBackend: options.client must be the character's AgentClient");
    this.conversation = new Conversation({
      ...(options.contextBudgetTokens !== undefined && { budgetTokens: options.contextBudgetTokens }),
      ...(options.estimateTokens !== undefined && { estimate: options.estimateTokens }),
    });
    this.gate = options.gate ?? new ProviderGate();
    this.maxSteps = positive('maxStepsPerDecision', options.maxStepsPerDecision ?? MODEL_BACKEND_DEFAULTS.maxStepsPerDecision);
    this.maxCalls = positive('maxCallsPerStep', options.maxCallsPerStep ?? MODEL_BACKEND_DEFAULTS.maxCallsPerStep);
    this.maxOutput = positive('maxOutputChars', options.maxOutputChars ?? MODEL_BACKEND_DEFAULTS.maxOutputChars);
    this.now = options.now ?? Date.now;
  }

  get busy(): boolean {
    return this.run !== undefined && !this.run.settled;
  }

  /** The model calls the character's tools itself: the pilot briefs it for native tools and reads no calls out of its text. */
  async callsToolsNatively(): Promise<boolean> {
    return true;
  }

  /** How many times the conversation was folded to stay inside its budget. */
  get folds(): number {
    return this.conversation.folds;
  }

  async send(kind: SendKind, text: string): Promise<void> {
    if (this.closed) throw new Error('ModelBackend.send: the backend is closed');
    this.pending.push(text);
    // A steer or follow-up joins the running decision at its next model request (with none running,
    // the next decision's); a prompt starts a decision.
    if (this.busy || kind !== 'prompt') return;
    this.start();
  }

  async reply(signal?: AbortSignal): Promise<string | null> {
    const run = this.run;
    if (run === undefined) return null;
    if (signal === undefined) return run.done;
    return Promise.race([run.done, new Promise<null>((resolve) => signal.addEventListener('abort', () => resolve(null), { once: true }))]);
  }

  observe(listener: (signal: ChatSignal) => void): () => void {
    this.observers.add(listener);
    return () => this.observers.delete(listener);
  }

  async abort(): Promise<void> {
    this.run?.abort.abort();
  }

  close(): void {
    this.closed = true;
    this.run?.abort.abort();
    this.pending.length = 0;
  }

  // ── one decision ───────────────────────────────────────────────────────────────────────────

  private start(): void {
    const abort = new AbortController();
    const run: Run = { abort, settled: false, done: Promise.resolve(null) };
    run.done = this.decide(abort.signal).finally(() => {
      run.settled = true;
    });
    // A failed decision rejects reply(); nobody may be listening yet, so the rejection is marked seen.
    run.done.catch(() => undefined);
    this.run = run;
  }

  /** Model requests until the model stops calling tools (or the step bound): its last text, or null. */
  private async decide(signal: AbortSignal): Promise<string | null> {
    let text: string | null = null;
    for (let step = 1; step <= this.maxSteps; step++) {
      if (this.pending.length > 0) this.conversation.add({ role: 'user', content: this.pending.splice(0).join('\n\n'), timestamp: this.now() });
      this.conversation.fold();
      let first = true;
      let reply: ModelReply;
      try {
        reply = await this.gate.run(
          this.options.turn,
          { systemPrompt: this.options.systemPrompt ?? DEFAULT_MODEL_SYSTEM_PROMPT, messages: this.conversation.messages as never, tools: this.tools() },
          {
            signal,
            onToken: () => {
              if (first) this.tell({ type: 'token' });
              first = false;
            },
          },
          (_attempt, why) => this.tell({ type: 'retry', why }),
        );
      } catch (error) {
        if (error instanceof ModelFailure && error.kind === 'aborted') return text;
        this.lastFailure = error instanceof ModelFailure ? error.kind : 'provider_error';
        throw new Error(`ModelBackend: the model turn failed (${error instanceof ModelFailure ? error.kind : 'error'}): ${messageOf(error)}`);
      }
      this.tellUsage(reply);
      this.conversation.add(reply);
      const said = reply.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
      if (said.trim() !== '') text = said;
      const calls = reply.content.filter((block): block is ModelToolCall => block.type === 'toolCall');
      if (calls.length === 0 && this.pending.length === 0) return text;
      for (const [at, call] of calls.entries()) {
        if (signal.aborted) {
          this.conversation.add(this.result(call, 'not run: the decision was aborted', true));
          continue;
        }
        this.conversation.add(at < this.maxCalls ? await this.carryOut(call) : this.result(call, `skipped: at most ${this.maxCalls} calls a turn`, true));
      }
      if (signal.aborted) return text;
    }
    return text;
  }

  /** One of the model's tool calls, sent to the capsule as an aicc tool_call. */
  private async carryOut(call: ModelToolCall): Promise<ModelToolResult> {
    const known = this.options.client.manifest.tools.some((tool) => tool.id === call.name);
    if (!known) return this.result(call, refusalText(call.name, 'tool_unknown', `there is no tool called ${JSON.stringify(clip(call.name, 64))}`, false), true);
    const input = call.arguments;
    if (input === null || typeof input !== 'object' || Array.isArray(input))
      return this.result(call, refusalText(call.name, 'invalid_input', 'the arguments must be a JSON object', false), true);
    this.tell({ type: 'tool_call' });
    const outcome = await this.options.client.call(call.name, input as JsonObject);
    if (outcome.ok) return this.result(call, clip(compact(outcome.output, { maxLength: this.maxOutput }), this.maxOutput) || 'done', false);
    const { code, message, retryable } = outcome.error;
    return this.result(call, refusalText(call.name, code, clip(message, 300), retryable), true);
  }

  private result(call: ModelToolCall, text: string, isError: boolean): ModelToolResult {
    return { role: 'toolResult', toolCallId: call.id, toolName: call.name, content: [{ type: 'text', text }], isError, timestamp: this.now() };
  }

  /** The character's usable tools, as the model gets them (read at each request: grants change). */
  private tools(): ModelTool[] {
    const { manifest } = this.options.client;
    return manifest.tools.filter((tool) => usable(tool, manifest.capabilities)).map(modelTool);
  }

  private tellUsage(reply: ModelReply): void {
    const usage = reply.usage;
    if (usage === undefined || usage === null) return;
    const counts = [usage.input, usage.cacheRead, usage.cacheWrite].filter((n) => Number.isFinite(n) && n >= 0);
    const signal: ChatSignal = { type: 'usage' };
    if (counts.length > 0) signal.inputTokens = counts.reduce((a, b) => a + b, 0);
    if (Number.isFinite(usage.cacheRead) && usage.cacheRead >= 0) signal.cachedInputTokens = usage.cacheRead;
    if (Number.isFinite(usage.output) && usage.output >= 0) signal.outputTokens = usage.output;
    const cost = usage.cost?.total;
    if (typeof cost === 'number' && Number.isFinite(cost) && cost >= 0) signal.costUsd = cost;
    this.tell(signal);
  }

  private tell(signal: ChatSignal): void {
    for (const listener of [...this.observers]) listener(signal);
  }
}

/** A manifest tool as a model tool: its id, its description with the limits, its input schema. */
export function modelTool(tool: ToolDescriptor): ModelTool {
  return { name: tool.id, description: toolDescription(tool), parameters: { ...(tool.input_schema as object), type: 'object' } };
}

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new CapsuleError('AICC_INVALID_OPTION', `ModelBackend: ${name} must be a whole number >= 1, got ${value}`);
  return value;
}
