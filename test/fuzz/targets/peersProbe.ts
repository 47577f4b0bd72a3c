// The probe the PeersClient target makes after each batch, its agent honest again: the client still
// works, a get_state and a delivery answered within the request timeout.

import type { FuzzContext } from '../harness/context.js';
import type { ManualClock } from '../../../src/base/clock.js';
import { watch, type Watched } from './callTracking.js';
import { codeOf } from './clientChecks.js';
import { runClock, TIMEOUT_MS } from './manualTime.js';
import type { PeersSession } from './peersClientSession.js';

export async function probePeers(context: FuzzContext, clock: ManualClock, session: PeersSession, batch: number): Promise<void> {
  const { client } = session;
  const id = `probe-${batch}`;
  const state = watch(client.getState());
  const delivered = watch(client.deliver('follow_up', 'still there?', { id }));
  await runClock(clock, () => state.settled && delivered.settled, TIMEOUT_MS / 2, 2 * TIMEOUT_MS);
  const why = (w: Watched<unknown>): string => (w.settled ? codeOf(w.error) : 'no answer');
  if (state.value?.id !== 'sim-agent') context.problem(`a get_state after hostile records was not answered (${why(state)})`);
  if (delivered.value?.id !== id || delivered.value.success !== true) context.problem(`a delivery after hostile records was not answered (${why(delivered)})`);
}
