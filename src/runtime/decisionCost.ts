// What one decision of a chat model cost: the figures the pilot measures, the recording keeps and
// the inspector shows. Defined once here, below all three (the recording and the inspector may not
// import the pilot), as plain data.

/**
 * How a decision ended: `replied` — the reply was read (null when there was none) and its calls
 * carried out; `send_failed` — the backend refused the prompt; `reply_failed` — the prompt went, but
 * the backend failed before the reply came (its link dropped mid-answer, the agent went away): no
 * reply, no calls; `aborted` — the host aborted it; `stopped` — the pilot stopped during it.
 */
export type DecisionEnd = 'replied' | 'send_failed' | 'reply_failed' | 'aborted' | 'stopped';

export interface DecisionCost {
  /** The decision's number in the pilot's life: 1 is the briefing (PilotStats.decisions when it began). */
  decision: number;
  /** When the prompt was sent, on the pilot's clock (ms). */
  startedAt: number;
  /** Prompt → the model's first streamed token. Undefined when the backend cannot see tokens, or none came. */
  firstTokenMs?: number;
  /** Prompt → the reply read. Undefined when no reply was waited for to the end. */
  replyMs?: number;
  /** Prompt → the first call of the reply sent to the capsule. Undefined when none was sent. */
  firstToolCallMs?: number;
  /** Prompt → the decision over: reply read and its calls answered (or the decision ended otherwise). */
  totalMs: number;
  /** Prompt tokens pi counted for the decision's model messages, summed; undefined when none were reported. */
  inputTokens?: number;
  /** Output tokens, likewise. */
  outputTokens?: number;
  /** Of the prompt tokens, those the provider read from its prompt cache; undefined when not reported. */
  cachedInputTokens?: number;
  /** Cost in US dollars as pi reported it, summed; undefined when none was reported. */
  costUsd?: number;
  /** Calls sent to the capsule. */
  calls: number;
  /** Model requests tried again after a rate limit, a server error or a timeout; absent when none. */
  retries?: number;
  ended: DecisionEnd;
}
