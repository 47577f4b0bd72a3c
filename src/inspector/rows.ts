// The rows the inspector keeps and draws: a call, an event, a decision's cost. Shared by the record,
// its call store, its descriptions and the panel; this module imports none of them.

import type { Topic } from '../protocol/messages.js';
import type { DecisionCost } from '../runtime/decisionCost.js';

export interface CallRow {
  /** Grows with every row: the panel keys its elements by it. */
  readonly seq: number;
  readonly sessionId: string;
  readonly character: string;
  readonly tool: string;
  readonly callId: string;
  /** The arguments, abridged to MAX_VALUE_CHARS for the row. */
  readonly input: string;
  /** The arguments, abridged to MAX_DETAIL_CHARS for the expanded view. */
  readonly inputDetail: string;
  /** The output of a call that succeeded, abridged to MAX_DETAIL_CHARS. */
  output?: string;
  readonly startedAt: number;
  /** `unanswered`: the session closed before the result left. */
  state: 'running' | 'ok' | 'error' | 'unanswered';
  /** The wire error code of a failed call. */
  errorCode?: string;
  /** Its message, clipped to MAX_DETAIL_CHARS. */
  errorMessage?: string;
  retryable?: boolean;
  /** From the tool_call arriving to its tool_result leaving, on the inspector's clock. */
  latencyMs?: number;
  /** Bumped on every change, so the panel redraws only rows that changed. */
  version: number;
}

export interface EventRow {
  readonly seq: number;
  readonly tick: number;
  /**
   * A world topic, `host_error` (a HostError the game should hear of), `wire_error` (an error sent
   * to an agent) or `decision` (what a chat model's decision cost, from the host's pilot).
   */
  readonly kind: Exclude<Topic, 'tick'> | 'host_error' | 'wire_error' | 'decision';
  /** The topic, or the error's code. */
  readonly label: string;
  readonly detail: string;
  /** The characters or entities it names (what the character filter matches). */
  readonly names: readonly string[];
  /** The tool it concerns (a host error's), for the tool filter. */
  readonly tool?: string;
}

/**
 * What one decision of a chat model cost, as a pilot measured it from its prompt (the pilot's
 * DecisionCost fits it; declared here because the inspector does not import the pilot). Absent:
 * not measured, or not reported by the model's agent.
 */
export type DecisionShown = Omit<DecisionCost, 'startedAt' | 'replyMs'>;
