// The bridge's side of the heartbeat, for all of a capsule's sessions at once: one timer beats
// every linked session each heartbeatIntervalMs, instead of a timer per session — at thousands of
// sessions, a timer each is most of what an idle session costs. A session linked between two beats
// gets its first one at the next beat, at most an interval later.

import { UPKEEP, type Clock, type TimerId } from './clock.js';

/** A session as the heartbeat sees it. */
export interface Beating {
  /** Sends a heartbeat, or drops the link of an agent silent too long. */
  beat(): void;
}

export class Heartbeats {
  private readonly sessions = new Set<Beating>();
  private timer: TimerId | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly intervalMs: number,
  ) {}

  /** Beats `session` from the next beat on, until stop(). */
  start(session: Beating): void {
    this.sessions.add(session);
    this.timer ??= this.clock.setTimeout(this.beatAll, this.intervalMs, UPKEEP);
  }

  stop(session: Beating): void {
    this.sessions.delete(session);
    if (this.sessions.size === 0 && this.timer !== undefined) {
      this.clock.clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private readonly beatAll = (): void => {
    this.timer = undefined;
    // A session may stop (its link dropped) while beaten: walk a copy.
    for (const session of [...this.sessions]) session.beat();
    if (this.sessions.size > 0) this.timer = this.clock.setTimeout(this.beatAll, this.intervalMs, UPKEEP);
  };
}
