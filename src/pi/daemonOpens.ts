// The sessions a DaemonClient opened, with what it opened them with: so that, after a reconnect
// through an aicc gateway — which gives a new page connection none of the old one's sessions — the
// client can open each again exactly as before (the same generation and policy is a no-op on the
// daemon, the conversation kept) and attach to it, rather than lose it.

import type { SessionRef } from './daemonProtocol.js';

export class OpenedSessions {
  private readonly opens = new Map<string, { generation: number; payload: Record<string, unknown> }>();

  /** At most `max` sessions are remembered; the one opened longest ago goes first. */
  constructor(private readonly max: number) {}

  remember(ref: SessionRef, payload: Record<string, unknown>): void {
    this.opens.delete(ref.sessionId);
    this.opens.set(ref.sessionId, { generation: ref.generation, payload });
    if (this.opens.size > this.max) this.opens.delete(this.opens.keys().next().value!);
  }

  forget(sessionId: string): void {
    this.opens.delete(sessionId);
  }

  /** What `ref` was opened with, if this client opened that very generation. */
  payloadOf(ref: SessionRef): Record<string, unknown> | undefined {
    const open = this.opens.get(ref.sessionId);
    return open?.generation === ref.generation ? open.payload : undefined;
  }
}
