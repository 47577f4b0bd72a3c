// What the pi-client targets check of everything a client gives back: no secret in any string or
// key it shows, and every failure of the client's own error class with a documented code and a
// boolean retryable (peersDocs.ts and daemonDocs.ts say which class and which codes).

import type { FuzzContext } from '../harness/context.js';

/** Every string and key in `value` goes through context.seen (a JSON text would hide escaped ones). */
export function seenIn(context: FuzzContext, value: unknown, where: string): void {
  const stack: unknown[] = [value];
  for (let visited = 0; stack.length > 0 && visited < 5_000; visited++) {
    const item = stack.pop();
    if (typeof item === 'string') context.seen(item, where);
    else if (Array.isArray(item)) stack.push(...item);
    else if (item !== null && typeof item === 'object') {
      for (const [key, inner] of Object.entries(item)) {
        context.seen(key, where);
        stack.push(inner);
      }
    }
  }
}

/** What a thrown thing is, for a problem line. */
export function kindOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message.slice(0, 80)}` : typeof error;
}

/** A failure's code (or its class), for a problem line that repeats as one line, not one per request id. */
export function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : typeof error;
}

/** A check of how a call failed: a problem, or undefined when the failure is one the docs allow. */
export type FailureCheck = (error: unknown) => string | undefined;

/** What both clients' errors have. */
export type ClientError = { message: string; readonly details?: unknown; retryable: unknown };

/** A client's error class as its docs give it. */
export interface ErrorDocs<E extends ClientError> {
  name: string;
  is(error: unknown): error is E;
  code(error: E): unknown;
  /** The codes allowed. */
  codes: ReadonlySet<string>;
  /** Whether a failure names `id`, the one the call can be retried with (a delivery's id, an idempotency key). */
  names(error: E, id: string): boolean;
  /** The problem when it does not. */
  unnamed: string;
}

/**
 * How a client's call may fail at `where`: of the client's class, with a documented code, no
 * secret in its message or details, a boolean retryable, and naming `id` when one is given.
 */
export function failureCheck<E extends ClientError>(context: FuzzContext, docs: ErrorDocs<E>): (where: string, id?: string) => FailureCheck {
  return (where, id) => (error) => {
    if (!docs.is(error)) return `${where} rejected with ${kindOf(error)}, not a ${docs.name}`;
    context.code(docs.code(error), docs.codes, `${where} ${docs.name}`);
    context.seen(error.message, `${where} error message`);
    seenIn(context, error.details, `${where} error details`);
    if (typeof error.retryable !== 'boolean') return `${where}: a ${docs.name} without a boolean retryable`;
    if (id !== undefined && !docs.names(error, id)) return `${where}: ${docs.unnamed}`;
    return undefined;
  };
}
