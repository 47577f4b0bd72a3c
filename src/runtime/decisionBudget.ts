// Decision budgets: what a session's character does while its agent is late. A decision starts when
// news reaches the agent and ends at its next tool_call (the span the capsule already measures as
// decision latency, delivery.ts); a session connected with a budget has that span timed on the
// capsule's clock. When the budget passes with no action, the decision counts over budget and the
// session's `whenLate` is applied once: 'hold' (nothing more), 'stop' (the game hears it and stops
// the character), or a default action, run for the character through the ordinary call pipeline.
// The agent is told in its next news with an aicc/0.1 state_change (docs/PROTOCOL.md, "Decision
// budgets"). Everything here is a timer on the capsule's clock: nothing waits, the tick loop least of all.

import { CapsuleError } from '../base/errors.js';
import { UPKEEP, type Clock, type TimerId } from '../base/clock.js';
import { PROTOCOL, type JsonObject, type ToolCall } from '../protocol/messages.js';
import type { QueuedEvent } from './events.js';
import type { CallResult } from './resultCache.js';
import type { DecisionCounts, DecisionObserver, SessionView } from './sessionTypes.js';

export type { DecisionCounts, DecisionObserver } from './sessionTypes.js';

/** What a character does while its agent is late: nothing, stop, or a default action of the game's. */
export type WhenLate = 'hold' | 'stop' | { tool: string; input?: JsonObject };

/** ConnectOptions.decisionBudget. Default: none (no budget; decisions are not judged). */
export interface DecisionBudget {
  /** Time the agent has, from news to its next tool_call, on the capsule's clock. */
  ms: number;
  /**
   * Reserved: accepted and kept, never counted yet. aicc/0.1 gives an agent no message to report its
   * token usage in (tool_call and heartbeat take no extra fields), so the capsule cannot judge it.
   */
  tokens?: number;
  whenLate: WhenLate;
}

/** What the agent's `whenLate` came to, as the host hears it. */
export type AppliedWhenLate = 'hold' | 'stop' | { tool: string; input: JsonObject };

/** The host event `decision_late`: a session's budget passed with no action from its agent. */
export interface DecisionLate {
  session: SessionView;
  character: string;
  budgetMs: number;
  /** Time since the news that started the decision (the budget, give or take a wall-clock timer's lateness). */
  lateMs: number;
  /** 'stop': the game should stop the character now. A tool: its call follows (the host's `call` event, source 'budget'). */
  applied: AppliedWhenLate;
}

/** The field of the state_change that tells the agent (entity: its character). */
export const DECISION_FIELD = 'decision';

/** The call ids of default actions: never sent, never cached, only seen by the host's `call` listeners. */
const CALL_ID_PREFIX = 'budget-';

/** What a watch needs from its capsule. */
export interface BudgetHost {
  readonly clock: Clock;
  /** The host hears `decision_late`. */
  decisionLate(event: DecisionLate): void;
}

/** What a watch needs from its session: who it is, its news, and a call of the capsule's own for it. */
export interface BudgetedSession {
  readonly view: SessionView;
  /** An event for this session alone (the agent's notice). */
  enqueue(event: QueuedEvent): void;
  /** Runs `call` for the session through the call pipeline, every check applying; its result goes to `answer`, not to the agent. */
  callForIt(call: ToolCall, now: number, answer: (result: CallResult) => void): void;
}

/** One session's budget: the timer of the decision under way, and the counts. */
export class DecisionBudgetWatch implements DecisionObserver {
  readonly counts: DecisionCounts = { inBudget: 0, overBudget: 0 };
  private startedAt: number | undefined;
  private timer: TimerId | undefined;
  /** The budget passed for the decision under way (its count and whenLate are done). */
  private late = false;
  private defaults = 0;
  private closed = false;

  constructor(
    readonly budget: Readonly<DecisionBudget>,
    private readonly host: BudgetHost,
    private readonly session: BudgetedSession,
  ) {}

  started(at: number): void {
    if (this.closed) return;
    this.startedAt = at;
    this.late = false;
    this.timer = this.host.clock.setTimeout(() => this.passed(), this.budget.ms, UPKEEP);
  }

  ended(at: number): void {
    const startedAt = this.startedAt;
    if (startedAt === undefined) return;
    this.startedAt = undefined;
    this.clearTimer();
    if (this.late) return;
    // A wall clock's timer may not have fired yet when a late action comes: late all the same, but
    // the agent's own action is here, so no default is applied.
    if (at - startedAt < this.budget.ms) this.counts.inBudget++;
    else this.counts.overBudget++;
  }

  /** The session closed: no decision is pending any more. */
  close(): void {
    this.closed = true;
    this.startedAt = undefined;
    this.clearTimer();
  }

  private passed(): void {
    this.timer = undefined;
    if (this.startedAt === undefined || this.closed) return;
    this.late = true;
    this.counts.overBudget++;
    const now = this.host.clock.now();
    const lateMs = now - this.startedAt;
    const whenLate = this.budget.whenLate;
    const budgetMs = this.budget.ms;
    if (typeof whenLate === 'string') {
      this.host.decisionLate({ session: this.session.view, character: this.session.view.character, budgetMs, lateMs, applied: whenLate });
      this.tell({ budget_ms: budgetMs, late_ms: lateMs, applied: whenLate });
      return;
    }
    // Copies: the game's listeners, the pipeline (which may strip undeclared fields) and the agent's
    // notice each get their own, and the budget's stays as the game gave it.
    const given = (): JsonObject => structuredClone(whenLate.input ?? {});
    const { view } = this.session;
    this.host.decisionLate({ session: view, character: view.character, budgetMs, lateMs, applied: { tool: whenLate.tool, input: given() } });
    if (this.closed) return; // a listener closed the session
    const callId = `${CALL_ID_PREFIX}${++this.defaults}`;
    const call: ToolCall = {
      protocol: PROTOCOL,
      type: 'tool_call',
      session_id: view.id,
      message_id: callId,
      call_id: callId,
      tool: whenLate.tool,
      input: given(),
    };
    // The agent made no call, so it gets no tool_result: the outcome rides in its notice.
    this.session.callForIt(call, now, (result: CallResult) => {
      const outcome: JsonObject = result.ok
        ? { tool: whenLate.tool, input: given(), ok: true, output: result.output! }
        : { tool: whenLate.tool, input: given(), ok: false, error: { ...result.error! } };
      this.tell({ budget_ms: budgetMs, late_ms: lateMs, applied: outcome });
    });
  }

  /** The agent hears of it in its next news: a state_change of its own character, to it alone. */
  private tell(value: JsonObject): void {
    if (!this.closed) this.session.enqueue({ topic: 'state_change', payload: { entity: this.session.view.character, field: DECISION_FIELD, value } });
  }

  private clearTimer(): void {
    if (this.timer !== undefined) this.host.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}

const TOOL_ID = /^[a-z][a-z0-9_]*$/;
const KNOWN_FIELDS: ReadonlySet<string> = new Set(['ms', 'tokens', 'whenLate']);

/**
 * Checks ConnectOptions.decisionBudget and returns a frozen copy (later edits by the game change
 * nothing). `toolExists` says whether a default action's tool is registered.
 */
export function checkDecisionBudget(value: unknown, toolExists: (id: string) => boolean): Readonly<DecisionBudget> {
  const fail = (what: string): never => {
    throw new CapsuleError('AICC_INVALID_OPTION', `connect: options.decisionBudget${what}`);
  };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(' must be an object { ms, tokens?, whenLate } (leave it out for no budget)');
  const budget = value as Record<string, unknown>;
  for (const key of Object.keys(budget)) if (!KNOWN_FIELDS.has(key)) fail(` has no field "${key}"; its fields are ms, tokens and whenLate`);
  const ms = budget['ms'];
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) fail(`.ms must be a number of ms > 0, got ${JSON.stringify(ms)}`);
  const tokens = budget['tokens'];
  if (tokens !== undefined && !(typeof tokens === 'number' && Number.isInteger(tokens) && tokens > 0))
    fail(`.tokens must be a whole number > 0 when given, got ${JSON.stringify(tokens)}`);
  const whenLate = budget['whenLate'];
  let checked: WhenLate;
  if (whenLate === 'hold' || whenLate === 'stop') checked = whenLate;
  else if (whenLate !== null && typeof whenLate === 'object' && !Array.isArray(whenLate)) {
    const action = whenLate as Record<string, unknown>;
    for (const key of Object.keys(action)) if (key !== 'tool' && key !== 'input') fail(`.whenLate has no field "${key}"; a default action is { tool, input? }`);
    const tool = action['tool'];
    if (typeof tool !== 'string' || !TOOL_ID.test(tool)) fail(`.whenLate.tool must be a tool id (lowercase snake_case), got ${JSON.stringify(tool)}`);
    if (!toolExists(tool as string)) fail(`.whenLate.tool "${tool as string}" is not a registered tool; register it before connecting, or pick another`);
    const input = action['input'];
    if (input !== undefined && (input === null || typeof input !== 'object' || Array.isArray(input)))
      fail(`.whenLate.input must be a JSON object when given, got ${JSON.stringify(input)}`);
    let copy: JsonObject | undefined;
    try {
      copy = input === undefined ? undefined : (structuredClone(input) as JsonObject);
    } catch {
      fail('.whenLate.input must be plain JSON (it could not be copied)');
    }
    checked = copy === undefined ? { tool: tool as string } : { tool: tool as string, input: copy };
  } else {
    return fail(`.whenLate must be 'hold', 'stop' or a default action { tool, input? }, got ${JSON.stringify(whenLate)}`);
  }
  const copy: DecisionBudget =
    tokens === undefined ? { ms: ms as number, whenLate: checked } : { ms: ms as number, tokens: tokens as number, whenLate: checked };
  return Object.freeze(copy);
}

/**
 * Decision budgets for a capsule: `createCapsule({ …, decisionBudgets: decisionBudgets() })` from
 * aicc-capsule/core (the root entry's createCapsule includes them). Apart, so a game that never
 * budgets its agents' decisions does not ship the watch.
 */
export interface DecisionBudgets {
  check(value: unknown, toolExists: (id: string) => boolean): Readonly<DecisionBudget>;
  watch(budget: Readonly<DecisionBudget>, host: BudgetHost, session: BudgetedSession): DecisionBudgetWatch;
}

export function decisionBudgets(): DecisionBudgets {
  return { check: checkDecisionBudget, watch: (budget, host, session) => new DecisionBudgetWatch(budget, host, session) };
}
