// Reads pi's message events into ChatSignals: the first streamed delta of each model message (a
// token), and the usage pi puts on each model message as it ends. pi-daemon forwards pi's own
// events as messageStart / messageUpdate / messageEnd (`{message}`, `{assistantMessageEvent}`,
// `{message}`); pi's RPC mode sends the same payloads as message_start / message_update /
// message_end. Only what pi wrote is read: a field it left out stays out of the signal.

import type { ChatSignal } from './backend.js';

/** Which of pi's message events this is. */
export type MessagePhase = 'start' | 'update' | 'end';

export class ModelSignals {
  /** The current model message has streamed already: its later deltas are not a first token. */
  private streaming = false;

  /** The signal one of pi's message events carries, if any. `data` is the event's payload. */
  read(phase: MessagePhase, data: unknown): ChatSignal | undefined {
    if (phase === 'start') {
      if (roleOf(field(data, 'message')) === 'assistant') this.streaming = false;
      return undefined;
    }
    if (phase === 'update') {
      const type = field(field(data, 'assistantMessageEvent'), 'type');
      // text_delta, thinking_delta, toolcall_delta: the model has begun to answer.
      if (this.streaming || typeof type !== 'string' || !type.endsWith('_delta')) return undefined;
      this.streaming = true;
      return { type: 'token' };
    }
    const message = field(data, 'message');
    if (roleOf(message) !== 'assistant') return undefined;
    return usageSignal(field(message, 'usage'));
  }
}

/**
 * pi's Usage (`{input, output, cacheRead, cacheWrite, totalTokens, cost:{…, total}}`) as a signal;
 * undefined when it holds none of the counts. Prompt tokens add the cached ones: pi counts them apart.
 */
export function usageSignal(usage: unknown): ChatSignal | undefined {
  const input = [field(usage, 'input'), field(usage, 'cacheRead'), field(usage, 'cacheWrite')].filter(isCount);
  const output = field(usage, 'output');
  const cost = field(field(usage, 'cost'), 'total');
  const signal: ChatSignal = { type: 'usage' };
  if (input.length > 0) signal.inputTokens = input.reduce((a, b) => a + b, 0);
  const cached = field(usage, 'cacheRead');
  if (isCount(cached)) signal.cachedInputTokens = cached;
  if (isCount(output)) signal.outputTokens = output;
  if (isCount(cost)) signal.costUsd = cost;
  return Object.keys(signal).length > 1 ? signal : undefined;
}

function field(value: unknown, name: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined;
}

function roleOf(message: unknown): unknown {
  return field(message, 'role');
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
