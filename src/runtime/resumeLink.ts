// A link handed to capsule.accept(): its first message must be a session_resume for a live
// session, which then continues on it. Anything else is refused and the link closed; a link that
// stays silent past firstMessageTimeoutMs is closed too, so a stray connection holds nothing.

import type { Link } from '../links/link.js';
import { Wire, type WireOptions } from '../protocol/wire.js';
import { UPKEEP, type Clock, type TimerId } from '../base/clock.js';
import { CapsuleError } from '../base/errors.js';
import { refusal } from '../protocol/refusals.js';
import { randomUuid, type RandomBytes } from '../protocol/ids.js';
import { checkAgentMessage } from '../protocol/messageCheck.js';
import { NIL_UUID, PROTOCOL } from '../protocol/messages.js';
import type { Session } from './session.js';

export interface AcceptOptions extends WireOptions {
  /** How long the link may stay silent before its session_resume, on the capsule's clock. Default 10,000 ms. */
  firstMessageTimeoutMs?: number;
}

/** What accepting a link needs from its capsule. */
export interface ResumeHost {
  readonly clock: Clock;
  readonly randomBytes: RandomBytes;
  session(id: string): Session | undefined;
}

export function acceptResume(host: ResumeHost, link: Link, options: AcceptOptions): void {
  const waitMs = options.firstMessageTimeoutMs ?? 10_000;
  if (!(Number.isFinite(waitMs) && waitMs > 0))
    throw new CapsuleError('AICC_INVALID_OPTION', `accept: firstMessageTimeoutMs must be a number > 0, got ${waitMs}`);
  const wire = new Wire(link, checkAgentMessage, options);
  let timer: TimerId | undefined = host.clock.setTimeout(
    () => {
      timer = undefined;
      wire.close(`accept: no session_resume within ${waitMs} ms`);
    },
    waitMs,
    UPKEEP,
  );
  const heard = (): void => {
    if (timer !== undefined) host.clock.clearTimeout(timer);
    timer = undefined;
  };
  const refuse = (kind: 'unknown_session' | 'schema_violation' | 'protocol_mismatch' | 'malformed_frame', message: string, sessionId = NIL_UUID): void => {
    const error = refusal(kind, message);
    wire.send({ protocol: PROTOCOL, type: 'error', session_id: sessionId, message_id: randomUuid(host.randomBytes), error });
    wire.close(error.message);
  };
  wire.listen({
    message: (message) => {
      heard();
      if (message.type !== 'session_resume')
        return refuse('schema_violation', `accept: the first message on a resumed link must be session_resume, got ${message.type}`);
      const session = host.session(message.session_id);
      if (session === undefined || session.state === 'closed') {
        return refuse('unknown_session', `session ${message.session_id} is unknown or expired; open a new session`, message.session_id);
      }
      session.resume(wire, message.message_id);
    },
    invalid: (problem) => {
      heard();
      refuse(problem.kind === 'protocol_mismatch' ? 'protocol_mismatch' : 'malformed_frame', problem.message);
    },
    ended: heard,
  });
}
