// The calls that wait for the next tick (fixed and hybrid modes), in arrival order, bounded per
// session: a call past the bound is refused queue_full (retryable) rather than held.

import type { ToolCall } from '../protocol/messages.js';
import type { Session } from './session.js';

export interface WaitingCall {
  session: Session;
  call: ToolCall;
  /** When the call reached the capsule, for its latency. */
  arrivedAt: number;
}

export class TickQueue {
  private waiting: WaitingCall[] = [];
  private readonly perSession = new Map<Session, number>();

  /** `perSessionBound`: calls one session may have waiting (CapsuleOptions.callQueueSize). */
  constructor(readonly perSessionBound: number) {}

  /** Queues the call; false when its session already has perSessionBound waiting. */
  add(entry: WaitingCall): boolean {
    const count = this.perSession.get(entry.session) ?? 0;
    if (count >= this.perSessionBound) return false;
    this.perSession.set(entry.session, count + 1);
    this.waiting.push(entry);
    return true;
  }

  /** Every waiting call, oldest first; the queue is empty afterwards. */
  take(): WaitingCall[] {
    const due = this.waiting;
    this.waiting = [];
    this.perSession.clear();
    return due;
  }
}
