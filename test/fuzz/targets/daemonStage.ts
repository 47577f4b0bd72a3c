// The sessions the DaemonClient target works on: three for the batches, opened and attached again
// before each batch (so that its wakes bring events for the hostile fates to act on), and one for
// the probe, whose wake the simulator answers with PROBE_REPLY.

import { watch } from './callTracking.js';
import { codeOf } from './clientChecks.js';
import type { ClientRun } from './clientRun.js';
import type { DaemonSession } from './daemonClientSession.js';
import { runClock, TIMEOUT_MS } from './manualTime.js';

export const SESSIONS = ['npc-a', 'npc-b', 'npc-c'];
export const PROBE = 'probe';
export const PROBE_REPLY = 'still here';
export const OPEN = { cwd: '/game', session: { mode: 'memory' as const } };

/** The batch sessions open and attached, so that the next batch's wakes bring events for the hostile fates to act on. */
export async function stage(run: ClientRun, session: DaemonSession): Promise<void> {
  for (const sessionId of SESSIONS) {
    const current = session.proxy.sim.session(sessionId);
    if (current !== undefined && current.attached > 0 && !current.running) continue;
    // The host's catalog keeps a session's generation past a close, an eviction or a restart (where a
    // memory session cannot be opened again at it): the next one is above that.
    const known = session.proxy.sim.retained(sessionId)?.generation;
    // A batch may have opened it at 2^53, past which there is no next generation: deleted (not kept
    // dormant, which would make 1 stale), it starts again at 1.
    const past = known !== undefined && !Number.isSafeInteger(known + 1);
    const ref = { sessionId, generation: past ? 1 : (known ?? 0) + 1 };
    session.attachedEver.add(sessionId);
    const closed = past ? session.client.close({ sessionId, generation: known }, { retainSession: false }) : Promise.resolve(true);
    const staged = watch(closed.then(() => session.client.open(ref, OPEN)).then(() => session.client.attach(ref)));
    await runClock(run.clock, () => staged.settled, TIMEOUT_MS / 2, 2 * TIMEOUT_MS);
    if (staged.error !== undefined) run.context.problem(`an open and attach with an honest host failed (${codeOf(staged.error)})`);
  }
}
