// A ModelTurn on pi's own provider library, pi-ai: OpenAI, Anthropic, Google, Mistral, Groq,
// OpenRouter, Bedrock… from its model catalog, or any OpenAI-compatible server (Ollama, vLLM,
// LM Studio, llama.cpp) by its base URL. pi-ai is an optional peer, loaded only here and only when
// asked for: @earendil-works/pi-ai 1.x (its `compat` entry: Node >= 22.19) where it runs, else
// @mariozechner/pi-ai 0.73 (Node 20). Both give the same `getModel`, `stream`, `getEnvApiKey`.
//
// The key is read here, on this side — the caller's, the provider's environment variable, or pi's
// credential store (auth.json in pi's agent folder) — and goes nowhere but into pi-ai's request: it
// never reaches a message, a recording, a log line or an error (each error is scrubbed of it).

import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ModelReply, ModelTurn } from '../../agent/model/modelPort.js';

export interface PiAiModelOptions {
  /** pi-ai's provider id (`anthropic`, `openai`, `openrouter`, …), or any name for a server at `baseUrl`. */
  provider: string;
  /** The model's id in the provider's catalog (or as the server at `baseUrl` names it). */
  model: string;
  /** An OpenAI-compatible server (`http://127.0.0.1:8080/v1`): the model is described here, not looked up. */
  baseUrl?: string;
  /** The key. Default: the provider's environment variable, then pi's credential store; none for a local server. */
  apiKey?: string;
  /** pi's agent folder, where auth.json is (default: PI_CODING_AGENT_DIR, else ~/.pi/agent). */
  agentDir?: string;
  /** Longest answer, in tokens. Default 512: a character's turn is short. */
  maxTokens?: number;
  temperature?: number;
  /** With `baseUrl`: the model's context window, for the record. Default 8,192. */
  contextWindow?: number;
  /** Which pi-ai to load. Default: 1.x where Node allows it, else 0.73. */
  library?: '@earendil-works/pi-ai' | '@mariozechner/pi-ai';
}

/** A ready model: its turn, and what to call it in summaries and recordings (never the key). */
export interface PiAiModel {
  turn: ModelTurn;
  /** `provider/model`. */
  name: string;
  /** The pi-ai package and version that serves it. */
  library: string;
  /** What one turn may take, as the catalog (or the options, for a server at baseUrl) says: for worst-case plans. */
  limits: { maxTokens: number; contextWindow: number };
  /** USD per million tokens in and out, from pi-ai's catalog; 0 for a server at baseUrl. */
  price: { input: number; output: number };
}

/** The part of pi-ai this adapter uses (the same in 0.73 and in 1.x's compat entry). */
interface PiAiLike {
  getModel(provider: string, model: string): unknown;
  stream(model: unknown, context: unknown, options: Record<string, unknown>): AsyncIterable<{ type: string }> & { result(): Promise<unknown> };
  getEnvApiKey(provider: string): string | undefined;
}

/** Loads pi-ai and describes the model; rejects with what to install or configure. */
export async function piAiModel(options: PiAiModelOptions): Promise<PiAiModel> {
  const { library, version, pi } = await loadPiAi(options.library);
  let model: unknown;
  if (options.baseUrl !== undefined) {
    model = {
      id: options.model,
      name: options.model,
      api: 'openai-completions',
      provider: options.provider,
      baseUrl: options.baseUrl,
      reasoning: false,
      input: ['text'],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      contextWindow: options.contextWindow ?? 8_192,
      maxTokens: options.maxTokens ?? 512,
      // Local servers speak plain chat completions: a system message, no `store`, no reasoning effort.
      compat: { supportsDeveloperRole: false, supportsReasoningEffort: false, supportsStore: false },
    };
  } else {
    model = pi.getModel(options.provider, options.model);
    if (model === undefined || model === null)
      throw new Error(
        `piAiModel: ${library} ${version} has no model ${options.provider}/${options.model} in its catalog; check the ids, or give a baseUrl for an OpenAI-compatible server`,
      );
  }
  const key =
    options.apiKey ??
    pi.getEnvApiKey(options.provider) ??
    storedKey(options.provider, options.agentDir) ??
    (options.baseUrl !== undefined ? 'none' : undefined);
  if (key === undefined)
    throw new Error(
      `piAiModel: no key for ${options.provider}: set the provider's environment variable (see pi-ai's README), or log in with pi (auth.json in pi's agent folder)`,
    );
  const scrub = (text: string): string => (key.length >= 4 ? text.split(key).join('[key]') : text);
  const streamOptions = { apiKey: key, maxTokens: options.maxTokens ?? 512, ...(options.temperature !== undefined && { temperature: options.temperature }) };
  const turn: ModelTurn = async (request, { signal, onToken }) => {
    try {
      const events = pi.stream(model, { ...request, messages: [...request.messages] }, { ...streamOptions, signal });
      for await (const event of events) if (event.type.endsWith('_delta')) onToken();
      const reply = (await events.result()) as ModelReply;
      if (typeof reply?.errorMessage === 'string') reply.errorMessage = scrub(reply.errorMessage);
      return reply;
    } catch (error) {
      throw new Error(scrub(error instanceof Error ? error.message : String(error)));
    }
  };
  const described = model as { contextWindow?: unknown; cost?: { input?: unknown; output?: unknown } };
  const numberOr = (value: unknown, fallback: number): number => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);
  return {
    turn,
    name: `${options.provider}/${options.model}`,
    library: `${library}@${version}`,
    limits: { maxTokens: streamOptions.maxTokens, contextWindow: numberOr(described.contextWindow, options.contextWindow ?? 8_192) },
    price: { input: numberOr(described.cost?.input, 0), output: numberOr(described.cost?.output, 0) },
  };
}

async function loadPiAi(choice: PiAiModelOptions['library']): Promise<{ library: string; version: string; pi: PiAiLike }> {
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  const modern = major > 22 || (major === 22 && minor >= 19);
  const order = choice !== undefined ? [choice] : modern ? (['@earendil-works/pi-ai', '@mariozechner/pi-ai'] as const) : (['@mariozechner/pi-ai'] as const);
  const failures: string[] = [];
  for (const library of order) {
    try {
      const pi = (await import(library === '@earendil-works/pi-ai' ? '@earendil-works/pi-ai/compat' : '@mariozechner/pi-ai')) as unknown as PiAiLike;
      return { library, version: versionOf(library), pi };
    } catch (error) {
      failures.push(`${library}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
  }
  throw new Error(
    `piAiModel: pi's provider library is not installed (${failures.join('; ')}); install it beside aicc-capsule: npm install ${modern ? '@earendil-works/pi-ai' : '@mariozechner/pi-ai@0.73'}`,
  );
}

/** The installed version: the package.json above the entry Node resolves (its exports list no package.json). */
function versionOf(library: string): string {
  try {
    let dir = dirname(fileURLToPath(import.meta.resolve(library === '@earendil-works/pi-ai' ? `${library}/compat` : library)));
    for (let up = 0; up < 6; up++, dir = dirname(dir)) {
      const file = join(dir, 'package.json');
      if (!existsSync(file)) continue;
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === library) return pkg.version ?? '?';
    }
  } catch {}
  return '?';
}

/** An API key pi stored for `provider` (auth.json: `{ provider: { type: 'api_key', key } }`); OAuth logins are pi's own business. */
function storedKey(provider: string, agentDir?: string): string | undefined {
  const dir = agentDir ?? process.env['PI_CODING_AGENT_DIR'] ?? join(homedir(), '.pi', 'agent');
  try {
    const stored = (JSON.parse(readFileSync(join(dir, 'auth.json'), 'utf8')) as Record<string, { type?: unknown; key?: unknown }>)[provider];
    return stored?.type === 'api_key' && typeof stored.key === 'string' && stored.key !== '' ? stored.key : undefined;
  } catch {
    return undefined;
  }
}
