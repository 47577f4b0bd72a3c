// The probe the DaemonClient target makes after each batch, its host honest again: a status is
// answered, and a wake on the probe session opened at a new generation and attached answers with
// its text, its events all delivered in order and none reported.

import type { DaemonEvent, StreamReport } from '../../../src/pi/index.js';
import { watch } from './callTracking.js';
import { codeOf } from './clientChecks.js';
import type { ClientRun } from './clientRun.js';
import type { DaemonSession } from './daemonClientSession.js';
import { OPEN, PROBE, PROBE_REPLY } from './daemonStage.js';
import { runClock, TIMEOUT_MS } from './manualTime.js';

/** The probe of one run: each opens the probe session at the next generation. */
export function daemonProbe(run: ClientRun): (session: DaemonSession) => Promise<void> {
  const { context, clock } = run;
  let generation = 0;
  return async (session) => {
    const { client } = session;
    const ask = async <T>(promise: Promise<T>, what: string, maxMs: number): Promise<T | undefined> => {
      const watched = watch(promise);
      await runClock(clock, () => watched.settled, TIMEOUT_MS / 2, maxMs);
      if (!watched.settled || watched.error !== undefined)
        context.problem(`${what} after hostile records was not answered (${watched.settled ? codeOf(watched.error) : 'no answer'})`);
      return watched.value;
    };
    if ((await ask(client.status(), 'a status', 2 * TIMEOUT_MS)) === undefined) return;
    const ref = { sessionId: PROBE, generation: ++generation };
    const events: DaemonEvent[] = [];
    const reports: StreamReport[] = [];
    const offEvent = client.on('event', (event) => event.sessionId === PROBE && event.generation === ref.generation && events.push(event));
    const offStream = client.on('stream', (report) => report.sessionId === PROBE && report.generation === ref.generation && reports.push(report));
    try {
      if ((await ask(client.open(ref, OPEN), 'an open', 2 * TIMEOUT_MS)) === undefined) return;
      const attached = await ask(client.attach(ref), 'an attach', 2 * TIMEOUT_MS);
      if (attached === undefined) return;
      const woke = await ask(client.wake(ref, { prompt: 'still there?' }), 'a wake', 4 * TIMEOUT_MS);
      if (woke === undefined) return;
      if (!woke.terminal || woke.result.text !== PROBE_REPLY) context.problem('a wake after hostile records answered with another text');
      const sequences = events.map((event) => event.sequence);
      const expected = sequences.map((_, i) => attached.sequence + 1 + i);
      if (events.length === 0 || events.at(-1)!.event !== 'sessionIdle' || sequences.some((n, i) => n !== expected[i]))
        context.problem('the events of a wake after hostile records did not all arrive, in order');
      if (reports.length > 0) context.problem(`the events of a wake after hostile records were reported (${reports[0]!.kind})`);
    } finally {
      offEvent();
      offStream();
    }
  };
}
