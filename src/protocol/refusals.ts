// Every way the bridge refuses something an agent sent, with the wire code and `retryable` it gets.

import { clip, MAX_REFUSAL_MESSAGE } from '../base/clip.js';
import type { ErrorCode, WireError } from './messages.js';

/**
 * Every way the bridge refuses something, with the wire code and `retryable` it gets. This table is
 * the one in docs/PROTOCOL.md ("Refusals"); a test keeps the two in step.
 */
export const REFUSALS = {
  protocol_mismatch: { code: 'protocol_mismatch', retryable: false },
  malformed_frame: { code: 'invalid_input', retryable: false },
  oversized_frame: { code: 'invalid_input', retryable: false },
  too_deep: { code: 'invalid_input', retryable: false },
  forbidden_key: { code: 'invalid_input', retryable: false },
  schema_violation: { code: 'invalid_input', retryable: false },
  wrong_direction: { code: 'invalid_input', retryable: false },
  unknown_session: { code: 'session_expired', retryable: false },
  replay_gap: { code: 'session_expired', retryable: false },
  tool_unknown: { code: 'tool_unknown', retryable: false },
  tool_disabled: { code: 'tool_unavailable', retryable: true },
  capability_missing: { code: 'tool_unavailable', retryable: false },
  rate_limited: { code: 'tool_unavailable', retryable: true },
  quota_exhausted: { code: 'tool_unavailable', retryable: false },
  queue_full: { code: 'tool_unavailable', retryable: true },
  invalid_input: { code: 'invalid_input', retryable: false },
  timeout: { code: 'timeout', retryable: true },
  execution_failed: { code: 'execution_failed', retryable: false },
  output_invalid: { code: 'internal_error', retryable: false },
  internal: { code: 'internal_error', retryable: false },
} as const satisfies Record<string, { code: ErrorCode; retryable: boolean }>;

export type RefusalKind = keyof typeof REFUSALS;

/** The wire error for a refusal of this kind; its message is cut to MAX_REFUSAL_MESSAGE. */
export function refusal(kind: RefusalKind, message: string, retryable?: boolean): WireError {
  const entry = REFUSALS[kind];
  return { code: entry.code, message: clip(message, MAX_REFUSAL_MESSAGE) || entry.code, retryable: retryable ?? entry.retryable };
}
