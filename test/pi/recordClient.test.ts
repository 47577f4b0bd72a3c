// The skeleton both pi clients stand on (src/pi/recordClient.ts): the same refused record, the same
// drop and the same close are reported by PeersClient and DaemonClient in the same words, under the
// same event name and error field — only the client's name (and its greeting) differ.
import { describe, expect, it } from 'vitest';
import { settle } from '../helpers.js';
import { CHAR, daemonFailure, daemonSetup, openAttached } from './daemonHelpers.js';
import { failure, setup } from './helpers.js';

/** A text frame that is not JSON: refused by either client's inbound gate. */
const BROKEN = '{"kind":"response", nope';

describe('the record clients share one skeleton', () => {
  it('report a refused record as a `problem` event, with one shape', async () => {
    const peers = await setup();
    const daemon = await daemonSetup();
    peers.sim.sendFrame(BROKEN);
    daemon.sim.sendLine(BROKEN);
    await settle();
    expect(peers.problems).toEqual([{ kind: 'malformed_frame', message: 'record is not JSON' }]);
    expect(daemon.problems).toEqual(peers.problems);
  });

  it('fail a waiting request on a drop with the same `code` and words, naming their own command', async () => {
    const peers = await setup();
    const daemon = await daemonSetup();
    await openAttached(daemon.client);
    peers.sim.holdNext('get_state');
    daemon.sim.holdNext('status');
    const peersWaiting = failure(peers.client.getState());
    const daemonWaiting = daemonFailure(daemon.client.status(CHAR.sessionId));
    await settle();
    peers.sim.drop('gone');
    daemon.sim.drop('gone');
    const [peersError, daemonError] = [await peersWaiting, await daemonWaiting];
    expect(peersError).toMatchObject({ code: 'closed', retryable: true, details: { command: 'get_state' } });
    expect(daemonError).toMatchObject({ code: 'closed', retryable: true, details: { operation: 'status' } });
    expect(peersError.message).toMatch(/^PeersClient: the link dropped while get_state \S+ waited for its answer \(gone\)/);
    expect(daemonError.message).toMatch(/^DaemonClient: the link dropped while status \S+ waited for its answer \(gone\)/);
    expect([peers.client.state, daemon.client.state]).toEqual(['closed', 'closed']);
  });

  it('refuse a request once closed the same way: `closed`, local, not retryable', async () => {
    const peers = await setup();
    const daemon = await daemonSetup();
    peers.client.close('done');
    daemon.client.disconnect('done');
    const peersError = await failure(peers.client.getState());
    const daemonError = await daemonFailure(daemon.client.status());
    for (const [error, place] of [
      [peersError, 'PeersClient.getState'],
      [daemonError, 'DaemonClient.status'],
    ] as const) {
      expect(error).toMatchObject({ code: 'closed', retryable: false, details: { local: true } });
      expect(error.message).toMatch(new RegExp(`^${place.replace('.', '\\.')}: the client is closed: connect a new one`));
    }
    expect('errorCode' in peersError).toBe(false);
  });
});
