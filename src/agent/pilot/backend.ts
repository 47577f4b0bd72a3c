// The one thing a pilot needs from a chat agent: send it text, read its reply, know whether it is
// running, stop it. pi-peers and pi-daemon each implement this, so there is one pilot for both.

/** How text enters the model's conversation (the names pi uses). */
export type SendKind = 'prompt' | 'follow_up' | 'steer';

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
}
