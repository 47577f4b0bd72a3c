// The conversation a model backend keeps with its model, inside a declared context budget. It only
// grows at its end between folds, so a provider's prompt cache (or a local server's prefix reuse)
// hits on everything already sent. When the estimate passes the budget, the oldest turns after the
// briefing are folded into one summary line — whole turns only: a tool call is never parted from
// its result, and the briefing and the turn in progress are never folded.

import { CapsuleError } from '../../base/errors.js';
import type { ModelMessage, ModelReply, ModelToolResult } from './modelPort.js';

export interface ConversationOptions {
  /** Estimated tokens the conversation may hold (briefing included). Default 8,000. */
  budgetTokens?: number;
  /** After a fold, the conversation is cut to this share of the budget. Default 0.6. */
  foldTo?: number;
  /** Estimates a message's tokens. Default: its characters / 4. */
  estimate?: (message: ModelMessage) => number;
}

export const CONVERSATION_DEFAULTS = Object.freeze({ budgetTokens: 8_000, foldTo: 0.6 });

export class Conversation {
  private readonly list: ModelMessage[] = [];
  private readonly budget: number;
  private readonly foldTo: number;
  private readonly estimate: (message: ModelMessage) => number;
  /** Turns folded so far, and what their calls were (for the summary line). */
  private foldedTurns = 0;
  private readonly foldedCalls = new Map<string, number>();
  private foldedRefusals = 0;
  folds = 0;

  constructor(options: ConversationOptions = {}) {
    this.budget = options.budgetTokens ?? CONVERSATION_DEFAULTS.budgetTokens;
    this.foldTo = options.foldTo ?? CONVERSATION_DEFAULTS.foldTo;
    if (!Number.isFinite(this.budget) || this.budget < 256)
      throw new CapsuleError('AICC_INVALID_OPTION', `ModelBackend: contextBudgetTokens must be a number >= 256, got ${this.budget}`);
    if (!(this.foldTo > 0 && this.foldTo < 1))
      throw new CapsuleError('AICC_INVALID_OPTION', `ModelBackend: foldTo must lie between 0 and 1, got ${this.foldTo}`);
    this.estimate = options.estimate ?? ((message) => Math.ceil(JSON.stringify(message.content).length / 4));
  }

  /** The messages as they go to the model (the same array: a request must not keep it). */
  get messages(): readonly ModelMessage[] {
    return this.list;
  }

  get tokens(): number {
    return this.list.reduce((sum, message) => sum + this.estimate(message), 0);
  }

  add(message: ModelMessage): void {
    this.list.push(message);
  }

  /**
   * Folds the oldest whole turns (a turn starts at a user message) into one summary line when the
   * conversation is over its budget; the briefing (the first message) and the newest turn stay.
   * Returns whether it folded.
   */
  fold(): boolean {
    if (this.tokens <= this.budget) return false;
    const starts = this.list.flatMap((message, at) => (message.role === 'user' && at > 0 ? [at] : []));
    // Turn boundaries after the briefing (and after the summary line of an earlier fold), newest turn kept.
    const first = this.folds > 0 ? 2 : 1;
    const boundaries = starts.filter((at) => at > first);
    if (boundaries.length === 0) return false;
    const target = this.budget * this.foldTo;
    let cut = boundaries[0]!;
    for (const at of boundaries) {
      cut = at;
      const kept = this.list.slice(0, first).concat(this.list.slice(at));
      if (kept.reduce((sum, message) => sum + this.estimate(message), 0) <= target) break;
    }
    const folded = this.list.slice(first, cut);
    for (const message of folded) this.count(message);
    this.foldedTurns += folded.filter((message) => message.role === 'user').length;
    const summary = { role: 'user' as const, content: this.summary(), timestamp: folded[0]?.timestamp ?? 0 };
    this.list.splice(1, cut - 1, summary);
    this.folds++;
    return true;
  }

  private count(message: ModelMessage): void {
    if (message.role === 'assistant') {
      for (const block of (message as ModelReply).content)
        if (block.type === 'toolCall') this.foldedCalls.set(block.name, (this.foldedCalls.get(block.name) ?? 0) + 1);
    } else if (message.role === 'toolResult' && (message as ModelToolResult).isError) this.foldedRefusals++;
  }

  private summary(): string {
    const calls = [...this.foldedCalls].map(([name, n]) => `${name}×${n}`).join(', ');
    return `${SUMMARY_HEAD} ${this.foldedTurns} earlier turns were folded to keep this conversation short; your calls in them: ${calls === '' ? 'none' : calls}${this.foldedRefusals > 0 ? ` (${this.foldedRefusals} refused)` : ''}. The news after this line is what happened since.`;
  }
}

const SUMMARY_HEAD = 'Earlier, in brief:';
