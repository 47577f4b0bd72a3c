import { describe, expect, it } from 'vitest';
import { DAEMON_ERRORS, DAEMON_WIRE_ERROR_CODES, DaemonError, isDaemonWireErrorCode } from '../../src/pi/index.js';
import { CHAR, daemonFailure, daemonSetup, openAttached } from './daemonHelpers.js';

describe('pi-daemon errors', () => {
  it.each(DAEMON_WIRE_ERROR_CODES.map((code) => [code]))('maps a %s response to a typed DaemonError, retryable as the host says', async (code) => {
    const { client, sim } = await daemonSetup();
    await openAttached(client);
    for (const retryable of [true, false]) {
      sim.failNext('wake', { code, message: `sim says ${code}`, retryable, details: { hint: 42 } });
      const error = await daemonFailure(client.wake(CHAR, { prompt: 'go' }));
      expect(error).toMatchObject({ name: 'DaemonError', code, retryable, details: { operation: 'wake', sessionId: 'npc-cleo', host: { hint: 42 } } });
      expect(error.message).toBe(`DaemonClient.wake: the host refused wake with ${code}: sim says ${code} (${DAEMON_ERRORS[code].fix})`);
      expect(error.details.wireCode).toBeUndefined();
    }
  });

  it('keeps an unknown code as unknown_error with the code sent', async () => {
    const { client, sim } = await daemonSetup();
    sim.failNext('status', { code: 'from_the_future', message: 'new', retryable: true });
    const error = await daemonFailure(client.status());
    expect(error).toMatchObject({ code: 'unknown_error', retryable: true, details: { wireCode: 'from_the_future' } });
    expect(isDaemonWireErrorCode('from_the_future')).toBe(false);
    expect(isDaemonWireErrorCode('session_busy')).toBe(true);
  });

  it('is an Error with a stable code', () => {
    const error = new DaemonError('timeout', 'm', true);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'DaemonError', code: 'timeout', retryable: true, details: {} });
  });
});
