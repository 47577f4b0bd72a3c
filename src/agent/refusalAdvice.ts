// What a model should do after each refusal: the advice the `retryable` flag alone cannot give. One
// table for every road a model takes to the tools (MCP clients, the direct model backend), so a
// refusal reads the same wherever a model meets it.

import type { ErrorCode } from '../protocol/messages.js';

const ADVICE: Record<ErrorCode, { retry: string; stop: string }> = {
  invalid_input: { retry: 'fix the arguments and call again', stop: "fix the arguments to match the tool's inputSchema, then call again" },
  tool_unknown: { retry: 'list the tools again', stop: 'this character has no such tool now: list the tools (they change with the game) and pick another' },
  tool_unavailable: {
    retry: 'wait a moment (a limit or a busy game), then call again',
    stop: 'this tool is not available to this character now (a missing capability or a used-up quota): do something else',
  },
  timeout: { retry: 'the game did not answer in time: call again', stop: 'the game did not answer in time: do something else' },
  execution_failed: {
    retry: 'the game could not do it just now: call again',
    stop: 'the game could not do it (see why): change the arguments or do something else',
  },
  session_expired: { retry: 'the session is reconnecting: call again shortly', stop: "the character's session is over: stop calling its tools" },
  internal_error: { retry: 'the game failed: call again', stop: 'the game failed on this call: do something else' },
  protocol_mismatch: { retry: 'call again', stop: 'the game and this bridge do not speak the same protocol: stop' },
};

/** A refusal as a model reads it: `TOOL refused (CODE[, retryable]): why. What to do: …`. */
export function refusalText(tool: string, code: ErrorCode, message: string, retryable: boolean): string {
  const advice = ADVICE[code] ?? ADVICE.internal_error;
  return `${tool} refused (${code}${retryable ? ', retryable' : ''}): ${message}. What to do: ${retryable ? advice.retry : advice.stop}.`;
}
