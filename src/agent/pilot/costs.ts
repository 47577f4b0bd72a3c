// What each decision cost: how long the model took to start answering, to answer, and for the
// character to act on the answer, and the tokens and money pi counted for it. Times are measured on
// the pilot's clock from the moment the prompt is sent; tokens and cost come only from what the
// backend saw the agent report (ChatSignal) — a backend that sees nothing leaves them undefined,
// so a figure here is never a guess. The last records are kept (bounded), the totals for all.

import type { DecisionCost, DecisionEnd } from '../../runtime/decisionCost.js';
import { CapsuleError } from '../../base/errors.js';
import type { ChatSignal } from './backend.js';

/** Decision records a pilot keeps unless `maxDecisionCosts` says otherwise; older ones are dropped (the totals keep counting). */
export const DECISION_COSTS_KEPT = 256;

/** One timing across decisions: the mean over all that had it, the median over the kept records. */
export interface CostFigure {
  mean?: number;
  /** Over the decisions still kept (the last DECISION_COSTS_KEPT by default). */
  p50?: number;
  /** Decisions that had this figure. */
  samples: number;
}

export interface DecisionCostTotals {
  /** Decisions ended, all of them (not only the kept ones). */
  decisions: number;
  /** The last records, oldest first. */
  recent: DecisionCost[];
  /** Summed over the decisions that reported them; undefined while none has. */
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
  /** Decisions that reported usage. */
  withUsage: number;
  firstTokenMs: CostFigure;
  firstToolCallMs: CostFigure;
  totalMs: CostFigure;
}

export function emptyCostTotals(): DecisionCostTotals {
  return { decisions: 0, recent: [], withUsage: 0, firstTokenMs: { samples: 0 }, firstToolCallMs: { samples: 0 }, totalMs: { samples: 0 } };
}

export function copyCostTotals(totals: DecisionCostTotals): DecisionCostTotals {
  return {
    ...totals,
    recent: totals.recent.map((record) => ({ ...record })),
    firstTokenMs: { ...totals.firstTokenMs },
    firstToolCallMs: { ...totals.firstToolCallMs },
    totalMs: { ...totals.totalMs },
  };
}

/** Measures the decision in progress and folds each finished one into `totals`. */
export class DecisionMeter {
  private readonly keep: number;
  private open: (Omit<DecisionCost, 'totalMs' | 'ended'> & { usage: boolean }) | undefined;

  constructor(
    private readonly totals: DecisionCostTotals,
    keep: number = DECISION_COSTS_KEPT,
  ) {
    if (!Number.isInteger(keep) || keep < 0) throw new CapsuleError('AICC_INVALID_OPTION', `Pilot: maxDecisionCosts must be a whole number >= 0, got ${keep}`);
    this.keep = keep;
  }

  begin(decision: number, now: number): void {
    this.open = { decision, startedAt: now, calls: 0, usage: false };
  }

  /** A signal from the backend. One that comes while no decision is open (a run after an abort) is dropped. */
  signal(signal: ChatSignal, now: number): void {
    const open = this.open;
    if (open === undefined) return;
    if (signal.type === 'token') {
      open.firstTokenMs ??= now - open.startedAt;
      return;
    }
    if (signal.type === 'tool_call') return this.callSent(now);
    if (signal.type === 'retry') {
      open.retries = (open.retries ?? 0) + 1;
      return;
    }
    if (count(signal.cachedInputTokens)) open.cachedInputTokens = (open.cachedInputTokens ?? 0) + signal.cachedInputTokens;
    // A run can hold several model messages (a steer or a follow-up adds one): their counts add up.
    if (count(signal.inputTokens)) open.inputTokens = (open.inputTokens ?? 0) + signal.inputTokens;
    if (count(signal.outputTokens)) open.outputTokens = (open.outputTokens ?? 0) + signal.outputTokens;
    if (count(signal.costUsd)) open.costUsd = (open.costUsd ?? 0) + signal.costUsd;
    open.usage ||= count(signal.inputTokens) || count(signal.outputTokens) || count(signal.costUsd);
  }

  replied(now: number): void {
    if (this.open !== undefined) this.open.replyMs = now - this.open.startedAt;
  }

  /** A call of the reply is about to go to the capsule. */
  callSent(now: number): void {
    const open = this.open;
    if (open === undefined) return;
    open.firstToolCallMs ??= now - open.startedAt;
    open.calls++;
  }

  /** Ends the open decision; its record, or undefined when none was open. */
  end(now: number, ended: DecisionEnd): DecisionCost | undefined {
    const open = this.open;
    if (open === undefined) return undefined;
    this.open = undefined;
    // In the documented order, so a recording's decision lines read alike; what was not seen is left out.
    const record: DecisionCost = {
      decision: open.decision,
      startedAt: open.startedAt,
      ...(open.firstTokenMs !== undefined && { firstTokenMs: open.firstTokenMs }),
      ...(open.replyMs !== undefined && { replyMs: open.replyMs }),
      ...(open.firstToolCallMs !== undefined && { firstToolCallMs: open.firstToolCallMs }),
      totalMs: now - open.startedAt,
      ...(open.inputTokens !== undefined && { inputTokens: open.inputTokens }),
      ...(open.outputTokens !== undefined && { outputTokens: open.outputTokens }),
      ...(open.cachedInputTokens !== undefined && { cachedInputTokens: open.cachedInputTokens }),
      ...(open.costUsd !== undefined && { costUsd: open.costUsd }),
      calls: open.calls,
      ...(open.retries !== undefined && { retries: open.retries }),
      ended,
    };
    const usage = open.usage;
    const totals = this.totals;
    totals.decisions++;
    if (this.keep > 0) {
      totals.recent.push(record);
      if (totals.recent.length > this.keep) totals.recent.shift();
    }
    if (usage) totals.withUsage++;
    if (record.inputTokens !== undefined) totals.inputTokens = (totals.inputTokens ?? 0) + record.inputTokens;
    if (record.outputTokens !== undefined) totals.outputTokens = (totals.outputTokens ?? 0) + record.outputTokens;
    if (record.costUsd !== undefined) totals.costUsd = (totals.costUsd ?? 0) + record.costUsd;
    fold(totals.firstTokenMs, record.firstTokenMs, totals.recent, (r) => r.firstTokenMs);
    fold(totals.firstToolCallMs, record.firstToolCallMs, totals.recent, (r) => r.firstToolCallMs);
    fold(totals.totalMs, record.totalMs, totals.recent, (r) => r.totalMs);
    return { ...record };
  }
}

/** One line for a run's summary: `decisions (pilot): 12, TTFT mean …, first call mean …, total mean …, tokens in/out …, cost …`. */
export function decisionCostLine(totals: DecisionCostTotals): string {
  const n = totals.decisions;
  const figure = (name: string, f: CostFigure): string => {
    if (f.mean === undefined) return `${name} not measured`;
    const median = f.p50 === undefined ? '' : `, p50 ${ms(f.p50)} ms`;
    return `${name} mean ${ms(f.mean)} ms${median}${f.samples < n ? ` (${f.samples} of ${n})` : ''}`;
  };
  const tokens =
    totals.inputTokens === undefined && totals.outputTokens === undefined
      ? 'tokens not reported'
      : `tokens in/out ${totals.inputTokens ?? '?'}/${totals.outputTokens ?? '?'}`;
  const cost = totals.costUsd === undefined ? 'cost not reported' : `cost $${dollars(totals.costUsd)}`;
  return `decisions (pilot): ${n}, ${figure('TTFT', totals.firstTokenMs)}, ${figure('first call', totals.firstToolCallMs)}, ${figure('total', totals.totalMs)}, ${tokens}, ${cost}`;
}

/** A count as pi gives it: a finite number >= 0. */
function count(value: number | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function fold(figure: CostFigure, value: number | undefined, recent: readonly DecisionCost[], pick: (record: DecisionCost) => number | undefined): void {
  if (value === undefined) return;
  figure.mean = ((figure.mean ?? 0) * figure.samples + value) / (figure.samples + 1);
  figure.samples++;
  const kept = recent.flatMap((record) => {
    const v = pick(record);
    return v === undefined ? [] : [v];
  });
  if (kept.length > 0) figure.p50 = median(kept);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function ms(value: number): string {
  return value.toFixed(1);
}

function dollars(value: number): string {
  if (value === 0) return '0';
  return value >= 1 ? value.toFixed(2) : value.toPrecision(3);
}

export type { DecisionCost, DecisionEnd } from '../../runtime/decisionCost.js';
