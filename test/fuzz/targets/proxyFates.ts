// The fates a hostile proxy (hostileProxy.ts) gives what passes through it, shared by both
// pi-client targets: what becomes of one request's answer, and of one reconnection. Each target
// draws them from its own protocol's records (hostilePeersRecords.ts, hostileDaemonRecords.ts)
// through fateOf, so that both weigh the fates alike.

import fc from 'fast-check';
import type { Quote } from './hostileValues.js';
import { rawFrame, type RawFrame } from './hostileRawFrames.js';

/** One field of a record set (or removed: REMOVE) on its way to the client. */
export interface Change {
  path: string[];
  value: unknown;
}

/** What becomes of one request. */
export type Fate =
  | { kind: 'pass' }
  /** Never answered. */
  | { kind: 'swallow' }
  /** Answered after the batch, once the request has timed out. */
  | { kind: 'late' }
  /** The link drops: before the request reaches the peer, or with its answer lost or sent. */
  | { kind: 'drop'; when: 'before' | 'lost' | 'sent'; reason: string | Quote }
  /** Answered twice, the second copy maybe altered. */
  | { kind: 'twice'; change: Change | undefined }
  /** Records of `type` naming the request (progress: its timeout may start again), then the answer. */
  | { kind: 'progress'; count: number; type: string }
  /** The true answer, altered. */
  | { kind: 'change'; changes: Change[] }
  /** A made-up answer in place of the peer's. */
  | { kind: 'forge'; record: Record<string, unknown> }
  /** Something unreadable in place of the answer. */
  | { kind: 'garble'; frame: RawFrame };

/** What reconnect.connect() does; `flaky`: the link drops in the turn the greeting is answered (a peer that dies as it accepts). */
export type ConnectFate = { kind: 'ok' | 'throw' | 'never' | 'late' | 'closed' | 'flaky' } | { kind: 'reject'; message: string | Quote };

export const PASS: Fate = { kind: 'pass' };
/** The answer goes out, and the link drops in the same turn. */
export const DIES_AS_IT_ANSWERS: Fate = { kind: 'drop', when: 'sent', reason: 'died as it answered' };

type Weighted<T> = { weight: number; arbitrary: fc.Arbitrary<T> };

/** A protocol's fates: its drop reasons, its changes, its progress records and its forged answers. */
export function fateOf(protocol: {
  reason: fc.Arbitrary<string | Quote>;
  change: fc.Arbitrary<Change>;
  progress: Weighted<{ count: number; type: string }>;
  forge: Weighted<Record<string, unknown>>;
}): fc.Arbitrary<Fate> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(PASS) },
    { weight: 2, arbitrary: fc.constant({ kind: 'swallow' as const }) },
    { weight: 2, arbitrary: fc.constant({ kind: 'late' as const }) },
    {
      weight: 1,
      arbitrary: fc
        .record({ when: fc.constantFrom('before' as const, 'lost' as const, 'sent' as const), reason: protocol.reason })
        .map((drop) => ({ kind: 'drop' as const, ...drop })),
    },
    { weight: 2, arbitrary: fc.option(protocol.change, { nil: undefined }).map((second) => ({ kind: 'twice' as const, change: second })) },
    { weight: protocol.progress.weight, arbitrary: protocol.progress.arbitrary.map((progress) => ({ kind: 'progress' as const, ...progress })) },
    { weight: 8, arbitrary: fc.array(protocol.change, { minLength: 1, maxLength: 3 }).map((changes) => ({ kind: 'change' as const, changes })) },
    { weight: protocol.forge.weight, arbitrary: protocol.forge.arbitrary.map((record) => ({ kind: 'forge' as const, record })) },
    { weight: 2, arbitrary: rawFrame.map((frame) => ({ kind: 'garble' as const, frame })) },
  );
}

/** The fate of a client's first greeting (hello, handshake): mostly answered truly. */
export const firstFate = (fate: fc.Arbitrary<Fate>): fc.Arbitrary<Fate> =>
  fc.oneof({ weight: 6, arbitrary: fc.constant(PASS) }, { weight: 3, arbitrary: fate }, fc.constant(DIES_AS_IT_ANSWERS));
