// PeersClient (pi-peers 1.0) under a hostile agent. The client talks to a PeersSimulator (the
// project's model of an honest agent) through a proxy (hostileAgent.ts) that decides each
// request's fate: answered truly, not at all, late, twice, altered, made up (with the wrong id,
// broken, quoting the client's token), or the link dropped; between requests it sends records of
// every kind nobody asked for (hostilePeersRecords.ts). Each batch ends with the clock run past
// every timeout: by then every call must have settled, a failure being a PeersError with a
// documented code (peersDocs.ts). Then the proxy turns honest and a get_state and a delivery must
// be answered (peersProbe.ts). A client the batch legitimately closed (its link dropped, reconnect
// given up) is replaced; one that closed for a reason the docs do not give is a problem. The run
// itself is clientRun.ts, shared with daemonClient.ts.

import fc from 'fast-check';
import type { FuzzTarget } from '../harness/context.js';
import type { PeersError } from '../../../src/pi/index.js';
import { fuzzClient, type CommonStep } from './clientRun.js';
import { connectFate, fate, unsolicited } from './hostilePeersRecords.js';
import { rawFrame } from './hostileRawFrames.js';
import { plainText } from './hostileValues.js';
import { TIMEOUT_MS } from './manualTime.js';
import { callPeers, peersCall, type PeersCall } from './peersCalls.js';
import { freshPeers, type PeersSession } from './peersClientSession.js';
import { PEERS_DOCS } from './peersDocs.js';
import { probePeers } from './peersProbe.js';
import { PASS } from './proxyFates.js';

/** The agent's run ends (a waiting reply can come). */
type Finish = { kind: 'finish'; text: string | null };

// Weighted so that a batch of 60 steps closes its client itself about one time in four.
const step: fc.Arbitrary<CommonStep<PeersCall> | Finish> = fc.oneof(
  {
    weight: 80,
    arbitrary: fc
      .oneof({ weight: 4, arbitrary: fc.record({ record: unsolicited, bytes: fc.boolean() }) }, rawFrame)
      .map((frame) => ({ kind: 'frame' as const, frame })),
  },
  { weight: 80, arbitrary: fc.record({ call: peersCall.filter((call) => call.kind !== 'close'), fate }).map((call) => ({ kind: 'call' as const, ...call })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'call' as const, call: { kind: 'close' as const }, fate: PASS }) },
  { weight: 8, arbitrary: connectFate.map((next) => ({ kind: 'connect' as const, fate: next })) },
  { weight: 32, arbitrary: fc.constant({ kind: 'settle' as const }) },
  { weight: 16, arbitrary: fc.integer({ min: 1, max: 2 * TIMEOUT_MS }).map((ms) => ({ kind: 'tick' as const, ms })) },
  { weight: 8, arbitrary: fc.oneof(plainText, fc.constant(null)).map((text) => ({ kind: 'finish' as const, text })) },
  { weight: 8, arbitrary: fc.constant({ kind: 'flush' as const }) },
);

export const target: FuzzTarget = (context) =>
  fuzzClient<PeersSession, PeersCall, Finish, PeersError>(context, PEERS_DOCS, (run) => ({
    steps: step,
    fresh: freshPeers(run),
    call: (session, spec) => callPeers(run, session, spec),
    own: (session, finish) => session.proxy.sim.finishRun(finish.text),
    settleMs: 20 * TIMEOUT_MS,
    // A poll that waitForReply left in flight when it gave up holds a place until its own timeout.
    lingerMs: TIMEOUT_MS + 1,
    shut: (session) => session.client.close(),
    check: (session, batch) => probePeers(context, run.clock, session, batch),
    forget: ({ proxy: { sim } }) => {
      sim.received.length = 0;
      sim.receivedFrames.length = 0;
      sim.deliveries.length = 0;
    },
  }));
