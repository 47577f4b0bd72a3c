// Waiting for an agent's reply the way pi-peers prescribes: read `settled` before delivering, then
// poll get_state until `settled` has grown and the agent is idle, then read the last assistant text.
// Each get_state also asks for the aicc gateway's reply-wait extension (StateWait): a gateway that
// serves it holds the answer until the reply is ready and sends its text along, so the wait ends
// as soon as pi settles, with one round trip; a plain agent answers at once and the polling goes on.

import type { Clock, TimerId } from '../base/clock.js';
import { localError, PeersError } from './peersError.js';
import type { AgentState, StateWait } from './peersProtocol.js';

export interface WaitForReplyOptions {
  /** Pause between get_state polls, for an agent without the reply-wait extension. Default 1,000 ms. */
  pollMs?: number;
  /** How long an agent with the reply-wait extension may hold each get_state. Default 15,000 ms. */
  holdMs?: number;
  /** Give up (a retryable `timeout`) after this long. Default 600,000 ms: model runs are slow. */
  timeoutMs?: number;
  /** Aborting rejects with `aborted`. */
  signal?: AbortSignal;
  /** Told the get_state that ended the wait, before it resolves (for the extensions it may carry, such as aiccUsage). */
  onSettled?: (state: AgentState) => void;
}

export const WAIT_DEFAULTS = Object.freeze({ pollMs: 1000, holdMs: 15_000, timeoutMs: 600_000 });

/** What polling needs of a client. */
export interface ReplySource {
  getState(wait?: StateWait): Promise<AgentState>;
  getLastAssistantText(): Promise<string | null>;
  /** A closed client ends the wait at once, not at the next poll. */
  on(type: 'close', handler: (event: { reason: string }) => void): () => void;
}

/**
 * Resolves with the last assistant text once `settled > sinceSettled` and `idle`. A retryable
 * failure of one poll (a timeout, a drop being reconnected) only means "poll again"; anything else
 * ends the wait. One poll at a time: the next is scheduled after the previous one has finished.
 */
export function waitForReply(source: ReplySource, clock: Clock, sinceSettled: number, options: WaitForReplyOptions = {}): Promise<string | null> {
  const pollMs = options.pollMs ?? WAIT_DEFAULTS.pollMs;
  const holdMs = options.holdMs ?? WAIT_DEFAULTS.holdMs;
  const timeoutMs = options.timeoutMs ?? WAIT_DEFAULTS.timeoutMs;
  const signal = options.signal;
  return new Promise((resolve, reject) => {
    let done = false;
    let pollTimer: TimerId | undefined;
    let lastFailure = '';
    const finish = (settle: () => void): void => {
      if (done) return;
      done = true;
      clock.clearTimeout(deadline);
      if (pollTimer !== undefined) clock.clearTimeout(pollTimer);
      signal?.removeEventListener('abort', onAbort);
      offClose();
      settle();
    };
    const onAbort = (): void => finish(() => reject(localError('aborted', 'PeersClient.waitForReply: aborted by the caller')));
    const deadline = clock.setTimeout(
      () =>
        finish(() =>
          reject(localError('timeout', `PeersClient.waitForReply: no reply (settled > ${sinceSettled} and idle) within ${timeoutMs} ms${lastFailure}`)),
        ),
      timeoutMs,
    );
    const offClose = source.on('close', ({ reason }) =>
      finish(() => reject(localError('closed', `PeersClient.waitForReply: the client closed while waiting (${reason})`, {}, false))),
    );
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });

    const poll = async (): Promise<void> => {
      pollTimer = undefined;
      try {
        const state = await source.getState({ settledAbove: sinceSettled, holdMs });
        if (done) return;
        if (typeof state.settled !== 'number' || typeof state.idle !== 'boolean') {
          return finish(() =>
            reject(localError('invalid_response', 'PeersClient.waitForReply: get_state data has no "settled" and "idle", so the reply cannot be awaited')),
          );
        }
        if (state.settled > sinceSettled && state.idle) {
          const sent = state.held === true && (typeof state.lastAssistantText === 'string' || state.lastAssistantText === null);
          const text = sent ? (state.lastAssistantText as string | null) : await source.getLastAssistantText();
          return finish(() => {
            options.onSettled?.(state);
            resolve(text);
          });
        }
      } catch (error) {
        if (done) return;
        if (!(error instanceof PeersError) || !error.retryable) return finish(() => reject(error));
        lastFailure = ` (last poll: ${error.code})`;
      }
      if (!done) pollTimer = clock.setTimeout(() => void poll(), pollMs);
    };
    void poll();
  });
}
