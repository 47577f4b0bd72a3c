// Waiting for an agent's reply the way pi-peers prescribes: read `settled` before delivering, then
// poll get_state until `settled` has grown and the agent is idle, then read the last assistant text.

import type { Clock, TimerId } from '../runtime/clock.js';
import { localError, PeersError } from './peersError.js';
import type { AgentState } from './peersProtocol.js';

export interface WaitForReplyOptions {
  /** Pause between get_state polls. Default 1,000 ms. */
  pollMs?: number;
  /** Give up (a retryable `timeout`) after this long. Default 600,000 ms: model runs are slow. */
  timeoutMs?: number;
  /** Aborting rejects with `aborted`. */
  signal?: AbortSignal;
}

export const WAIT_DEFAULTS = Object.freeze({ pollMs: 1000, timeoutMs: 600_000 });

/** What polling needs of a client. */
export interface ReplySource {
  getState(): Promise<AgentState>;
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
      () => finish(() => reject(localError('timeout', `PeersClient.waitForReply: no reply (settled > ${sinceSettled} and idle) within ${timeoutMs} ms${lastFailure}`))),
      timeoutMs,
    );
    const offClose = source.on('close', ({ reason }) => finish(() => reject(localError('closed', `PeersClient.waitForReply: the client closed while waiting (${reason})`, {}, false))));
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });

    const poll = async (): Promise<void> => {
      pollTimer = undefined;
      try {
        const state = await source.getState();
        if (done) return;
        if (typeof state.settled !== 'number' || typeof state.idle !== 'boolean') {
          return finish(() => reject(localError('invalid_response', 'PeersClient.waitForReply: get_state data has no "settled" and "idle", so the reply cannot be awaited')));
        }
        if (state.settled > sinceSettled && state.idle) {
          const text = await source.getLastAssistantText();
          return finish(() => resolve(text));
        }
      } catch (error) {
        if (done) return;
        if (!(error instanceof PeersError) || !error.retryable) return finish(() => reject(error));
        lastFailure = ` (last poll: ${error.errorCode})`;
      }
      if (!done) pollTimer = clock.setTimeout(() => void poll(), pollMs);
    };
    void poll();
  });
}
