// A wake, steer or followUp that went out names its idempotencyKey in every failure, so that the
// caller can retry the same request: an answer whose data cannot be read included (a finding of
// the fuzz target test/fuzz/targets/daemonClient.ts).
import { describe, expect, it } from 'vitest';
import { settle } from '../helpers.js';
import { CHAR, daemonFailure, daemonSetup, openAttached } from './daemonHelpers.js';

describe('DaemonClient idempotency keys in failures', () => {
  it.each([
    ['wake', { result: { text: 7 } }],
    ['steer', { queued: 'yes' }],
    ['followUp', {}],
  ] as const)('an unreadable answer to %s names the key it was sent with, the default one too', async (operation, data) => {
    const { client, sim } = await daemonSetup();
    await openAttached(client);
    for (const given of ['my-key', undefined]) {
      sim.holdNext(operation);
      const call =
        operation === 'wake'
          ? client.wake(CHAR, { prompt: 'hi', ...(given !== undefined && { idempotencyKey: given }) })
          : operation === 'steer'
            ? client.steer(CHAR, 'left', given)
            : client.followUp(CHAR, 'then', given);
      const pending = daemonFailure(call);
      await settle();
      const sent = sim.received.at(-1)!;
      sim.sendRecord({ protocolVersion: '2.0', kind: 'response', requestId: sent['requestId'], hostInstanceId: 'sim-host-1', ok: true, data });
      const error = await pending;
      expect(error.code).toBe('invalid_response');
      expect(error.details.idempotencyKey).toBe(given ?? sent['idempotencyKey']);
      expect(typeof error.details.idempotencyKey).toBe('string');
    }
  });
});
