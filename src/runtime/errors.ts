import { clip, MAX_REFUSAL_MESSAGE } from './clip.js';
import type { ErrorCode, WireError } from './protocol.js';

/** Stable codes of the errors a host program gets for misusing the API (thrown at once). */
export type CapsuleErrorCode =
  | 'AICC_INVALID_OPTION'
  | 'AICC_INVALID_TOOL'
  | 'AICC_DUPLICATE_TOOL'
  | 'AICC_TOOL_REMOVED'
  | 'AICC_INVALID_EVENT'
  | 'AICC_SCHEMA_COMPILE'
  | 'AICC_SESSION_CLOSED'
  | 'AICC_NOT_CONNECTED'
  | 'AICC_DISPOSED';

/** A programmer error: names the place in its message and says what to fix. */
export class CapsuleError extends Error {
  override readonly name = 'CapsuleError';
  constructor(
    readonly code: CapsuleErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Thrown by a tool handler to refuse with a message meant for the agent. Any other thrown value
 * becomes `execution_failed` with its first line as the message (never a stack trace).
 */
export class ToolError extends Error {
  override readonly name = 'ToolError';
  readonly retryable: boolean;
  constructor(message: string, options: { retryable?: boolean } = {}) {
    super(message);
    this.retryable = options.retryable ?? false;
  }
}

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
