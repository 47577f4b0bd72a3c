// How a session listens to its Wire: one small object rather than closures (a capsule holds many),
// which hands the session what its current link brings and ignores a superseded link.

import type { InvalidFrame, Wire, WireHandlers } from '../protocol/wire.js';
import type { AiccMessage } from '../protocol/messages.js';
import type { Session } from './session.js';

/** What a session listens to its Wire with: one small object rather than closures (a capsule holds many). */
export class SessionListener implements WireHandlers {
  constructor(
    private readonly session: Session,
    private readonly wire: Wire,
  ) {}

  frame(): void {
    if (this.session.linkedBy(this.wire)) this.session.heard();
  }

  message(message: AiccMessage): void {
    if (this.session.linkedBy(this.wire)) this.session.receiveSafely(message);
  }

  invalid(problem: InvalidFrame): void {
    if (this.session.linkedBy(this.wire)) this.session.refuseFrame(problem);
  }

  close(reason: string): void {
    if (this.session.linkedBy(this.wire)) this.session.detach(`link closed: ${reason}`);
  }
}
