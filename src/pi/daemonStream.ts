// The event streams of the sessions a DaemonClient is attached to, keyed by (hostInstanceId,
// sessionId, generation). pi-daemon numbers each session's events from 1 per incarnation; this
// module drops what is stale (another host, an older generation, a session not attached), reports
// gaps and duplicates, and lets a late event (one that fills a reported gap) through.
//
// An incarnation is not always a generation. pi-daemon evicts an idle session (`sessionDormant`,
// then `sessionEvicted`) but keeps every connection's subscription to its (sessionId, generation);
// a durable session reopened at the same generation — by this client or any other — is a new
// incarnation numbered from 1 again (`opened`, sequence 1), and its events reach the old
// subscribers too. Read by the last sequence alone they would all be duplicates; so an `opened` at
// sequence 1, or any sequence 1 after the stream's last event (`sessionEvicted`, `sessionClosed`),
// starts the stream again.

import type { DaemonEvent, SessionRef } from './daemonProtocol.js';

/** Something wrong with the event order, reported on the client's `stream` event. */
export type StreamReport =
  /** Events `from`..`to` never came (yet): the stream jumped ahead to `to + 1`. The event is delivered. */
  | { kind: 'gap'; sessionId: string; generation: number; from: number; to: number }
  /** An event came twice; the second copy is dropped. */
  | { kind: 'duplicate'; sessionId: string; generation: number; sequence: number }
  /** An event from a reported gap came after all: delivered, out of order. */
  | { kind: 'late'; sessionId: string; generation: number; sequence: number }
  /** Dropped: from another host instance, an older generation, or a session not attached. */
  | { kind: 'stale'; sessionId: string; generation: number; sequence: number; reason: 'host' | 'generation' | 'unattached' }
  /**
   * Dropped: a sequence or generation above Number.MAX_SAFE_INTEGER, where one number can no longer
   * be told from the next (the schema admits any integer; no host counts that far).
   */
  | { kind: 'invalid'; sessionId: string; generation: number; sequence: number };

export interface StreamVerdict {
  deliver: boolean;
  report?: StreamReport;
}

/** Default bounds. */
export const STREAM_DEFAULTS = Object.freeze({
  /** Sessions attached at once on one client. */
  maxStreams: 256,
  /** Missing sequence numbers remembered per stream (so a late one is told from a duplicate). */
  maxMissing: 256,
});

/** The last event of an incarnation: what follows it at sequence 1 is the next one's. */
const INCARNATION_ENDS: ReadonlySet<string> = new Set(['sessionEvicted', 'sessionClosed']);

interface Stream {
  generation: number;
  /** Highest sequence seen. */
  last: number;
  /** The incarnation's last event came: a sequence 1 now begins the next one. */
  ended: boolean;
  /** Sequences skipped by a gap and not yet seen, oldest first. */
  missing: Set<number>;
}

export class EventStreams {
  private host: string | undefined;
  private readonly streams = new Map<string, Stream>();

  constructor(
    private readonly maxStreams: number = STREAM_DEFAULTS.maxStreams,
    private readonly maxMissing: number = STREAM_DEFAULTS.maxMissing,
  ) {}

  get hostInstanceId(): string | undefined {
    return this.host;
  }

  /** The host the client talks to now. A new one (a restart) ends every stream of the old one. */
  setHost(hostInstanceId: string): void {
    if (this.host !== hostInstanceId) this.streams.clear();
    this.host = hostInstanceId;
  }

  /** Whether `sessionId` has, or can have, a stream (maxStreams bounds the sessions attached). */
  canBegin(sessionId: string): boolean {
    return this.streams.has(sessionId) || this.streams.size < this.maxStreams;
  }

  /** Attached: events of `ref` after `sequence` are expected. False when maxStreams are open already. */
  begin(ref: SessionRef, sequence: number): boolean {
    if (!this.canBegin(ref.sessionId)) return false;
    this.streams.set(ref.sessionId, { generation: ref.generation, last: sequence, ended: false, missing: new Set() });
    return true;
  }

  /** Detached or closed: the session's events are no longer wanted. */
  end(sessionId: string): void {
    this.streams.delete(sessionId);
  }

  /** The sessions attached now, with their generations (to attach again after a reconnect). */
  attached(): SessionRef[] {
    return [...this.streams].map(([sessionId, stream]) => ({ sessionId, generation: stream.generation }));
  }

  accept(event: DaemonEvent): StreamVerdict {
    const { sessionId, generation, sequence } = event;
    const stale = (reason: 'host' | 'generation' | 'unattached'): StreamVerdict => ({
      deliver: false,
      report: { kind: 'stale', sessionId, generation, sequence, reason },
    });
    if (!Number.isSafeInteger(sequence) || !Number.isSafeInteger(generation))
      return { deliver: false, report: { kind: 'invalid', sessionId, generation, sequence } };
    if (event.hostInstanceId !== this.host) return stale('host');
    const stream = this.streams.get(sessionId);
    if (stream === undefined) return stale('unattached');
    if (generation < stream.generation) return stale('generation');
    if (generation > stream.generation) {
      // The session was reopened at a higher generation while attached: its numbering starts again.
      this.restart(stream, generation, false);
    } else if (this.restarts(stream, event)) {
      // Reopened at this generation after its incarnation ended. pi-daemon numbers some events 1
      // outside any incarnation (`openFailed`, `sessionDeleted` of a dormant session): after them the
      // next `opened` still begins one.
      this.restart(stream, generation, event.event !== 'opened');
    }
    if (INCARNATION_ENDS.has(event.event)) stream.ended = true;
    if (sequence === stream.last + 1) {
      stream.last = sequence;
      return { deliver: true };
    }
    if (sequence > stream.last) {
      const from = stream.last + 1;
      const to = sequence - 1;
      // Only the newest maxMissing are remembered (an older straggler then reads as a duplicate), so
      // the loop runs at most maxMissing times however wide the gap.
      for (let n = Math.max(from, to - this.maxMissing + 1); n <= to; n++) stream.missing.add(n);
      while (stream.missing.size > this.maxMissing) stream.missing.delete(stream.missing.values().next().value as number);
      stream.last = sequence;
      return { deliver: true, report: { kind: 'gap', sessionId, generation, from, to } };
    }
    if (stream.missing.delete(sequence)) return { deliver: true, report: { kind: 'late', sessionId, generation, sequence } };
    return { deliver: false, report: { kind: 'duplicate', sessionId, generation, sequence } };
  }

  private restart(stream: Stream, generation: number, ended: boolean): void {
    stream.generation = generation;
    stream.last = 0;
    stream.missing.clear();
    stream.ended = ended;
  }

  /**
   * Whether `event`, of the stream's own generation, begins a new incarnation. `opened` is the first
   * event of every incarnation and comes once in it, so an `opened` at sequence 1 on a stream past 1
   * is a new one (a stream at 1 may be seeing its own `opened` twice: that stays a duplicate).
   */
  private restarts(stream: Stream, event: DaemonEvent): boolean {
    if (event.sequence !== 1) return false;
    return stream.ended || (event.event === 'opened' && stream.last > 1);
  }
}
