// Heartbeats, for both ends of aicc: the capsule beats all of its sessions, an AgentClient its one
// session, with the same two parts.
// - Heartbeats: one timer beats every linked member each heartbeatIntervalMs, instead of a timer per
//   session — at thousands of sessions, a timer each is most of what an idle session costs. A member
//   linked between two beats gets its first one at the next beat, at most an interval later.
// - Liveness: when the peer was last heard, and what a beat does: a heartbeat to a peer heard
//   lately, the link dropped when it has been silent for deadPeerTimeoutMs.

import { UPKEEP, type Clock, type TimerId } from '../base/clock.js';

/** A session as the heartbeat sees it. */
export interface Beating {
  /** Sends a heartbeat, or drops the link of an agent silent too long. */
  beat(): void;
}

/** When the peer was last heard (any frame counts), and what one beat does about it. */
export class Liveness {
  private lastHeard: number;

  constructor(
    private readonly clock: Clock,
    private readonly deadPeerTimeoutMs: number,
    /** Who the peer is, for the reason a silent link is dropped with: "agent" or "bridge". */
    private readonly peer: string,
  ) {
    this.lastHeard = clock.now();
  }

  get lastHeardAt(): number {
    return this.lastHeard;
  }

  heard(): void {
    this.lastHeard = this.clock.now();
  }

  /** One beat: `send` a heartbeat to a peer heard lately, or `drop` the link of one silent too long. */
  beat(send: () => void, drop: (reason: string) => void): void {
    const silentFor = this.clock.now() - this.lastHeard;
    if (silentFor >= this.deadPeerTimeoutMs) drop(`${this.peer} silent for ${Math.round(silentFor)} ms`);
    else send();
  }
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
