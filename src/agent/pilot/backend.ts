// The one thing a pilot needs from a chat agent: send it text, read its reply, know whether it is
// running, stop it. pi-peers and pi-daemon each implement this, so there is one pilot for both.
// A backend that can see the model at work (streamed tokens, pi's usage counts) also offers
// `observe`, so the pilot can tell what each decision cost; one that cannot leaves it out.

/** How text enters the model's conversation (the names pi uses). */
export type SendKind = 'prompt' | 'follow_up' | 'steer';

/**
 * What a backend saw of the model at work, as the agent reported it. Times are not in it: the
 * pilot stamps each signal on its own clock when it arrives.
 * - `token`: a model message began to stream (its first delta of text, thinking or a tool call).
 * - `usage`: a model message ended, with the counts pi gave for it. A field the agent did not give
 *   is absent, never guessed.
 */
export type ChatSignal =
  | { type: 'token' }
  /** The backend itself sent one of the model's native tool calls to the capsule (the direct model backend). */
  | { type: 'tool_call' }
  /** The backend tried a model request again (a rate limit, a server error, a timeout), and why. */
  | { type: 'retry'; why: string }
  | {
      type: 'usage';
      /** Prompt tokens, cached or not (pi's `input + cacheRead + cacheWrite`). */
      inputTokens?: number;
      /** Of those, the ones read from the provider's prompt cache (pi's `cacheRead`). */
      cachedInputTokens?: number;
      /** pi's `output`. */
      outputTokens?: number;
      /** pi's `cost.total`, in US dollars, as pi computes it from its model catalog (0 for a model with no prices). */
      costUsd?: number;
    };

export interface ChatBackend {
  /**
   * Sends text into the model's conversation: `prompt` (a new turn), `follow_up` (after the current
   * run), `steer` (into the running turn). Resolves when accepted; rejects when refused.
   */
  send(kind: SendKind, text: string): Promise<void>;
  /**
   * Resolves with the text of the model's reply once the agent is idle again after what was sent;
   * null when there is none. When `signal` aborts it resolves null or rejects — a pilot reads both
   * as "no reply".
   */
  reply(signal?: AbortSignal): Promise<string | null>;
  /** Whether a run is in progress (a steer is only useful then). */
  readonly busy: boolean;
  /** Stops the running turn, if any. */
  abort(): Promise<void>;
  close(): void;
  /**
   * Optional: calls `listener` with each ChatSignal as the agent reports it, until the returned
   * function is called. Signals arrive before the reply they belong to resolves. Left out by a
   * backend that cannot see the model at work: the pilot then leaves time to first token, tokens and
   * cost undefined. (Over pi-peers 1.0, which has no events, only the usage a gateway hosting pi
   * adds to get_state comes through.)
   */
  observe?(listener: (signal: ChatSignal) => void): () => void;
  /**
   * Optional: whether the agent calls `character`'s tools natively (its own tool calls reach the
   * capsule, as pi 1.x hosted with the character's MCP server does). Asked once, before the briefing,
   * by a pilot not told either way. Left out (or false) means the text protocol.
   */
  callsToolsNatively?(character: string): Promise<boolean>;
  /**
   * Optional: calls `listener` once if the agent goes away for good while the backend is open — its
   * link closed and did not come back (reconnects given up, or none configured), or its host refused
   * it. Not called for the backend's own close(). A pilot stops then, with the reason, instead of
   * failing one send after another.
   */
  onGone?(listener: (reason: string) => void): () => void;
}

/**
 * Whether the model behind `backend` calls `character`'s tools natively, as the backend says; false
 * when it cannot say (told to `report`): the text protocol works either way.
 */
export async function callsToolsNatively(backend: ChatBackend, character: string, report: (message: string) => void): Promise<boolean> {
  try {
    return (await backend.callsToolsNatively?.(character)) ?? false;
  } catch (error) {
    report(`backend.callsToolsNatively: ${error instanceof Error ? error.message : String(error)}; using the text protocol`);
    return false;
  }
}
