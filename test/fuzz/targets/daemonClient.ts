// DaemonClient (pi-daemon protocol v2) under a hostile host. The client talks to a DaemonSimulator
// (the project's model of pi-daemon 0.3.3) through a proxy (hostileHost.ts) that decides the fate
// of each answer — passed, lost, late, doubled, altered (protocolVersion "1.0", another
// hostInstanceId, an id reused, data of another operation), made up or unreadable, or the link
// dropped — and of each event — doubled, held back, renumbered anywhere in the integer range (past
// 2^53, negative, fractional), moved to another generation, host or session. Between answers it
// sends events and answers nobody asked for (hostileDaemonRecords.ts). Each batch ends with the
// clock run past every timeout (every call settled, failures DaemonErrors with documented codes:
// daemonDocs.ts); then the proxy turns honest and the client must still answer (daemonProbe.ts): a
// status, and a wake on a freshly opened and attached session whose events all arrive, in order,
// with no report. A sequence the stream code cannot count past freezes the thread: the harness's
// watchdog reports that as a hang. The run itself is clientRun.ts, shared with peersClient.ts.

import fc from 'fast-check';
import type { FuzzTarget } from '../harness/context.js';
import type { DaemonError } from '../../../src/pi/index.js';
import { fuzzClient, type CommonStep } from './clientRun.js';
import { callDaemon, daemonCall, type DaemonCall } from './daemonCalls.js';
import { freshDaemon, type DaemonSession } from './daemonClientSession.js';
import { DAEMON_DOCS } from './daemonDocs.js';
import { daemonProbe } from './daemonProbe.js';
import { stage } from './daemonStage.js';
import { connectFate, eventFate, fate, unsolicited, type EventFate } from './hostileDaemonRecords.js';
import { rawFrame } from './hostileRawFrames.js';
import { TIMEOUT_MS } from './manualTime.js';
import { PASS } from './proxyFates.js';

type Own =
  /** The fates of the next events the host sends. */
  | { kind: 'events'; fates: EventFate[] }
  /** The host process restarts (a new hostInstanceId, every connection closed). */
  | { kind: 'restart' }
  /** The caller disconnects the client. */
  | { kind: 'disconnect' };

// Weighted so that a batch of 60 steps drains, restarts or disconnects about one time in eight.
const step: fc.Arbitrary<CommonStep<DaemonCall> | Own> = fc.oneof(
  {
    weight: 160,
    arbitrary: fc.oneof({ weight: 4, arbitrary: unsolicited.map((record) => ({ record })) }, rawFrame).map((frame) => ({ kind: 'frame' as const, frame })),
  },
  { weight: 160, arbitrary: fc.record({ call: daemonCall, fate }).map((call) => ({ kind: 'call' as const, ...call })) },
  { weight: 40, arbitrary: fc.array(eventFate, { minLength: 1, maxLength: 6 }).map((fates) => ({ kind: 'events' as const, fates })) },
  { weight: 16, arbitrary: connectFate.map((next) => ({ kind: 'connect' as const, fate: next })) },
  { weight: 64, arbitrary: fc.constant({ kind: 'settle' as const }) },
  { weight: 32, arbitrary: fc.integer({ min: 1, max: 2 * TIMEOUT_MS }).map((ms) => ({ kind: 'tick' as const, ms })) },
  { weight: 16, arbitrary: fc.constant({ kind: 'flush' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'call' as const, call: { kind: 'drain' as const }, fate: PASS }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'disconnect' as const }) },
);

export const target: FuzzTarget = (context) =>
  fuzzClient<DaemonSession, DaemonCall, Own, DaemonError>(context, DAEMON_DOCS, (run) => {
    const probe = daemonProbe(run);
    return {
      steps: step,
      fresh: freshDaemon(run),
      call: (session, spec) => callDaemon(run, session, spec),
      own: (session, next) => {
        switch (next.kind) {
          case 'events':
            session.proxy.eventFates.push(...next.fates);
            break;
          case 'restart':
            run.act();
            session.proxy.sim.restart();
            break;
          case 'disconnect':
            session.closedByUs = true;
            session.client.disconnect();
        }
      },
      settleMs: 30 * TIMEOUT_MS,
      // Past the wake timeout, the longest a call the client gave up on can stay on the wire.
      lingerMs: 3 * TIMEOUT_MS + 1,
      // A drained host refuses everything for good: it restarts, as the process would be replaced.
      revive: ({ proxy: { sim } }) => {
        if (!sim.draining) return false;
        sim.restart();
        return true;
      },
      shut: (session) => session.client.disconnect(),
      check: async (session) => {
        await probe(session);
        await stage(run, session);
      },
      forget: ({ proxy: { sim } }) => {
        sim.received.length = 0;
        sim.receivedLines.length = 0;
        sim.turns.length = 0;
      },
    };
  });
