// The two kinds of line a run with a model adds to its recording (docs/RECORDING.md): an exchange
// line for each model turn (the cassette: what was sent, what came back, at which ticks), and a
// hash line every few ticks (the world's state hash, so a replay proves it passed the same states).
// Plain data here; the agent side (src/agent/model/cassette.ts) writes and replays the exchanges.

import type { JsonObject } from '../protocol/messages.js';

/** An exchange line: written when the model turn settled, at the capsule's tick and clock then. */
export interface RecordedExchange {
  tick: number;
  at: number;
  character: string;
  exchange: {
    n: number;
    hash: string;
    sentTick: number;
    tokenTick?: number;
    request?: JsonObject;
    reply?: JsonObject;
    error?: string;
    aborted?: true;
  };
}

/** A hash line: the world's state hash at a tick. */
export interface RecordedHash {
  tick: number;
  at: number;
  hash: string;
}

const HEX128 = /^[0-9a-f]{32}$/;

/** Checks an exchange line; undefined when it is sound. */
export function exchangeProblem(line: unknown): string | undefined {
  const l = line as Record<string, unknown>;
  const extra = Object.keys(l).find((key) => !['tick', 'at', 'character', 'exchange'].includes(key));
  if (extra !== undefined) return `an exchange line has tick, at, character and exchange only, not ${JSON.stringify(extra)}`;
  if (!Number.isInteger(l['tick']) || (l['tick'] as number) < 0) return 'tick must be an integer >= 0';
  if (typeof l['at'] !== 'number' || !Number.isFinite(l['at'])) return 'at must be a number of ms';
  if (typeof l['character'] !== 'string' || l['character'] === '') return 'character must name a character';
  const e = l['exchange'] as Record<string, unknown> | null;
  if (e === null || typeof e !== 'object' || Array.isArray(e)) return 'exchange must be an object';
  if (!Number.isInteger(e['n']) || (e['n'] as number) < 1) return 'exchange.n must be an integer >= 1';
  if (typeof e['hash'] !== 'string' || !HEX128.test(e['hash'])) return 'exchange.hash must be 32 hex digits';
  if (!Number.isInteger(e['sentTick']) || (e['sentTick'] as number) < 0 || (e['sentTick'] as number) > (l['tick'] as number))
    return "exchange.sentTick must be an integer from 0 to the line's tick";
  if (
    e['tokenTick'] !== undefined &&
    (!Number.isInteger(e['tokenTick']) || (e['tokenTick'] as number) < (e['sentTick'] as number) || (e['tokenTick'] as number) > (l['tick'] as number))
  )
    return "exchange.tokenTick must be an integer from sentTick to the line's tick";
  const outcomes = ['reply', 'error', 'aborted'].filter((key) => e[key] !== undefined);
  if (outcomes.length !== 1) return 'exchange must hold exactly one of reply, error and aborted';
  if (e['reply'] !== undefined) {
    const reply = e['reply'] as Record<string, unknown> | null;
    if (reply === null || typeof reply !== 'object' || reply['role'] !== 'assistant' || !Array.isArray(reply['content']))
      return 'exchange.reply must be a model message: {"role":"assistant","content":[…],…}';
  }
  if (e['error'] !== undefined && typeof e['error'] !== 'string') return 'exchange.error must be a string';
  if (e['aborted'] !== undefined && e['aborted'] !== true) return 'exchange.aborted must be true when present';
  if (e['request'] !== undefined) {
    const request = e['request'] as Record<string, unknown> | null;
    if (request === null || typeof request !== 'object' || !Array.isArray(request['messages']) || !Array.isArray(request['tools']))
      return 'exchange.request must be a model request: {"systemPrompt":…,"messages":[…],"tools":[…]}';
  }
  const extraField = Object.keys(e).find((key) => !['n', 'hash', 'sentTick', 'tokenTick', 'request', 'reply', 'error', 'aborted'].includes(key));
  if (extraField !== undefined) return `exchange.${extraField} is not a field of an exchange line (see docs/RECORDING.md)`;
  return undefined;
}

/** Checks a hash line; undefined when it is sound. */
export function hashProblem(line: unknown): string | undefined {
  const l = line as Record<string, unknown>;
  const extra = Object.keys(l).find((key) => !['tick', 'at', 'hash'].includes(key));
  if (extra !== undefined) return `a hash line has tick, at and hash only, not ${JSON.stringify(extra)}`;
  if (!Number.isInteger(l['tick']) || (l['tick'] as number) < 0) return 'tick must be an integer >= 0';
  if (typeof l['at'] !== 'number' || !Number.isFinite(l['at'])) return 'at must be a number of ms';
  if (typeof l['hash'] !== 'string' || !HEX128.test(l['hash'])) return 'hash must be 32 hex digits';
  return undefined;
}
