// The event streams of the sessions a DaemonClient is attached to, keyed by (hostInstanceId,
// sessionId, generation). pi-daemon numbers each session's events from 1 per incarnation; this
// module drops what is stale (another host, an older generation, a session not attached), reports
// gaps and duplicates, and lets a late event (one that fills a reported gap) through.

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

interface Stream {
  generation: number;
  /** Highest sequence seen. */
  last: number;
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
    this.streams.set(ref.sessionId, { generation: ref.generation, last: sequence, missing: new Set() });
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
    const stale = (reason: 'host' | 'generation' | 'unattached'): StreamVerdict => ({ deliver: false, report: { kind: 'stale', sessionId, generation, sequence, reason } });
    if (!Number.isSafeInteger(sequence) || !Number.isSafeInteger(generation)) return { deliver: false, report: { kind: 'invalid', sessionId, generation, sequence } };
    if (event.hostInstanceId !== this.host) return stale('host');
    const stream = this.streams.get(sessionId);
    if (stream === undefined) return stale('unattached');
    if (generation < stream.generation) return stale('generation');
    if (generation > stream.generation) {
      // The session was reopened at a higher generation while attached: its numbering starts again.
      stream.generation = generation;
      stream.last = 0;
      stream.missing.clear();
    }
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
}
