// The errors the library throws at its host: a programmer error (CapsuleError, with a stable code)
// and a tool handler's own refusal (ToolError).

/** Stable codes of the errors a host program gets for misusing the API (thrown at once); docs/ERRORS.md says when and what to do. */
export const CAPSULE_ERROR_CODES = [
  'AICC_INVALID_OPTION',
  'AICC_INVALID_TOOL',
  'AICC_DUPLICATE_TOOL',
  'AICC_TOOL_REMOVED',
  'AICC_INVALID_EVENT',
  'AICC_SCHEMA_COMPILE',
  'AICC_SESSION_CLOSED',
  'AICC_NOT_CONNECTED',
  'AICC_DISPOSED',
] as const;

export type CapsuleErrorCode = (typeof CAPSULE_ERROR_CODES)[number];

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

/** What a caught value says: an Error's message, anything else as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
