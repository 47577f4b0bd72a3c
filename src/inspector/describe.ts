// How the inspector puts peer and game values into short text: the lengths it clips names, values
// and details to, how it abridges a payload, which characters an event names, and the one line a
// chat model's decision gets among the events.

import { clip } from '../base/clip.js';
import type { DecisionShown } from './rows.js';

/** Longest abridged argument or payload, in characters. */
export const MAX_VALUE_CHARS = 160;
/** Longest input, output or error message a call keeps for its expanded view, in characters. */
export const MAX_DETAIL_CHARS = 800;
/** Longest name (tool, character, topic) or message shown. */
export const MAX_NAME_CHARS = 64;

/** How a value is abridged for a row. */
export const ABRIDGE = { maxString: 48, maxItems: 6, maxDepth: 3, maxLength: MAX_VALUE_CHARS } as const;
/** How a value is abridged for a call's opened part. */
export const DETAIL = { maxString: MAX_DETAIL_CHARS, maxItems: 20, maxDepth: 4, maxLength: MAX_DETAIL_CHARS } as const;

/** The payload fields of the reserved topics that name a character or entity. */
const NAME_FIELDS = ['a', 'b', 'source', 'entity', 'from', 'to'] as const;

/** The characters or entities a world event's payload names. */
export function namesIn(payload: Readonly<Record<string, unknown>>): string[] {
  const names: string[] = [];
  for (const field of NAME_FIELDS) {
    const value = payload[field];
    if (typeof value === 'string') names.push(clip(value, MAX_NAME_CHARS));
  }
  return names;
}

/** `#3: first token 320 ms, first call 900 ms, total 1000 ms, 2 calls, tokens 1800/40, $0.00120`; what was not measured is left out. */
export function describeDecision(cost: DecisionShown): string {
  const ms = (value: number | undefined): string | undefined => (typeof value === 'number' ? `${Math.round(value)} ms` : undefined);
  const parts = [
    ms(cost.firstTokenMs) && `first token ${ms(cost.firstTokenMs)}`,
    ms(cost.firstToolCallMs) && `first call ${ms(cost.firstToolCallMs)}`,
    `total ${ms(cost.totalMs) ?? '?'}`,
    `${cost.calls} call${cost.calls === 1 ? '' : 's'}`,
    cost.inputTokens !== undefined || cost.outputTokens !== undefined ? `tokens ${cost.inputTokens ?? '?'}/${cost.outputTokens ?? '?'}` : undefined,
    typeof cost.costUsd === 'number' ? `$${cost.costUsd.toPrecision(3)}` : undefined,
    cost.ended === 'replied' ? undefined : clip(String(cost.ended), MAX_NAME_CHARS),
  ];
  return `#${cost.decision}: ${parts.filter((part) => part !== undefined).join(', ')}`;
}
