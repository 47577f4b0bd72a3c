// Everything a session sends goes out through its outbox: the outbound sequence and the message ids
// made from it, the resume state (what was sent, kept for a replay), the tap that recorders and
// inspectors read, and the send on the session's current link. Messages a session sends while it
// has no link are numbered and kept all the same, for the resume that brings one.

import { PROTOCOL, type AiccMessage, type EventMessage, type ToolResult } from '../protocol/messages.js';
import type { CallResult } from './resultCache.js';
import { SequencedIds, type RandomBytes } from '../protocol/ids.js';
import type { SharedEncodings } from '../protocol/codec.js';
import { eventMessage } from '../protocol/eventMessage.js';
import type { MessageWire } from '../protocol/directWire.js';
import { NO_REPLAY, type ReplayStore, type SentEvent } from './resumeReplay.js';
import type { OutboundBody } from './sessionTypes.js';

/** Who hears every message a session sends (the capsule's `message` listeners), when anyone does. */
export interface OutboxTap<S> {
  /** Whether anyone listens: the hot path builds nothing for nobody. */
  readonly tapping: boolean;
  tap(session: S, direction: 'out', message: AiccMessage): void;
}

/** `S`: the session, as the tap names it; its `id` goes on every message. */
export class Outbox<S extends { readonly id: string } = { readonly id: string }> {
  /** The link messages go out on; undefined while the session has none (detached or closed). */
  wire: MessageWire | undefined;
  /** Messages handed to a link. */
  sent = 0;
  private sequence = 0;
  private readonly ids: SequencedIds;

  constructor(
    randomBytes: RandomBytes,
    private readonly replay: ReplayStore,
    private readonly tap: OutboxTap<S>,
    private readonly owner: S,
  ) {
    this.ids = new SequencedIds(randomBytes);
  }

  /** Sequences a message, keeps it for replay (bare heartbeats excepted) and sends it if linked. */
  send(body: OutboundBody): void {
    const sequence = ++this.sequence;
    const message = { protocol: PROTOCOL, session_id: this.owner.id, message_id: this.ids.idOf(sequence), ...body } as AiccMessage;
    if (!(message.type === 'heartbeat' && message.manifest_update === undefined)) this.replay.push(sequence, message);
    if (this.tap.tapping) this.tap.tap(this.owner, 'out', message);
    if (this.wire !== undefined) {
      this.sent++;
      this.wire.send(message);
    }
  }

  /** send() of a tool_result, built in one step from the call's result (the result is kept as it is). */
  sendResult(result: CallResult): void {
    const sequence = ++this.sequence;
    const message: ToolResult =
      result.error === undefined
        ? {
            protocol: PROTOCOL,
            session_id: this.owner.id,
            message_id: this.ids.idOf(sequence),
            type: 'tool_result',
            call_id: result.call_id,
            ok: result.ok,
            output: result.output!,
            meta: result.meta,
          }
        : {
            protocol: PROTOCOL,
            session_id: this.owner.id,
            message_id: this.ids.idOf(sequence),
            type: 'tool_result',
            call_id: result.call_id,
            ok: result.ok,
            error: result.error,
            meta: result.meta,
          };
    this.replay.push(sequence, message);
    if (this.tap.tapping) this.tap.tap(this.owner, 'out', message);
    if (this.wire !== undefined) {
      this.sent++;
      this.wire.send(message);
    }
  }

  /**
   * send() for the commonest message, built in one fixed shape: an event delivery is the hot path.
   * `event` is shared with every session it reaches (its payload is encoded once for them all, and
   * the replay keeps a reference to it, not a copy). A trusted agent in this process (a direct wire)
   * takes the shared object itself: no envelope or id is made for it (every message a session sends
   * reaches its link, so the agent counts the event's sequence number from the message before it).
   */
  sendEvent(event: SentEvent & SharedEncodings): void {
    const sequence = ++this.sequence;
    this.replay.pushEvent(sequence, event);
    const wire = this.wire;
    const tapping = this.tap.tapping;
    if (wire === undefined && !tapping) return;
    if (wire !== undefined && !tapping && wire.sharesEvents) {
      this.sent++;
      wire.sendShared(event);
      return;
    }
    const message = this.envelope(sequence, event);
    if (tapping) this.tap.tap(this.owner, 'out', message);
    if (wire !== undefined) {
      this.sent++;
      wire.sendEvent(message, event);
    }
  }

  /** Holds what is sent until uncork(), to go out in as few frames as the link's framing allows (one delivery). */
  cork(): void {
    this.wire?.cork();
  }

  uncork(): void {
    this.wire?.uncork();
  }

  /** Whether it keeps what it sends for a resume (not with NO_REPLAY: an agent in this process). */
  get resumable(): boolean {
    return this.replay !== NO_REPLAY;
  }

  /** The sequence number one of this outbox's message ids carries, or undefined for a foreign id. */
  sequenceOf(messageId: string): number | undefined {
    return this.ids.sequenceOf(messageId);
  }

  /** The last sequence number used. */
  get last(): number {
    return this.sequence;
  }

  /** Every kept message after `sequence`, in order, or undefined when some of them are no longer kept. */
  after(sequence: number): AiccMessage[] | undefined {
    return this.replay.after(sequence, (kept, event) => this.envelope(kept, event));
  }

  /** The envelope of an event sent under `sequence`: how it went out, and how a replay rebuilds it. */
  private envelope(sequence: number, event: SentEvent): EventMessage {
    return eventMessage(this.owner.id, this.ids.idOf(sequence), event);
  }
}
