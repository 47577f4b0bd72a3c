import { describe, expect, it } from 'vitest';
import { DAEMON_ERRORS, DAEMON_WIRE_ERROR_CODES, DaemonError } from '../../src/pi/index.js';
import { isDaemonWireErrorCode } from '../../src/pi/daemonError.js';
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

  it("knows the codes pi-daemon 0.3.3 and the aicc gateway send, with the host's own retryable flags as its fallback", () => {
    // Each provoked against the real daemon in test/e2e/daemon/client.test.ts; before, they came as unknown_error.
    for (const code of [
      'durable_admission_unavailable',
      'ephemeral_session_unavailable',
      'cwd_not_allowed',
      'cwd_not_directory',
      'authority_root_overlap',
      'model_unavailable',
      'model_auth_unavailable',
      'session_name_conflict',
      'session_capacity',
      'open_failed',
      'aborted',
      'denied_by_gateway',
      'daemon_unavailable',
    ]) {
      expect(isDaemonWireErrorCode(code), code).toBe(true);
    }
    // As the host says them: retryable.
    for (const code of [
      'session_not_running',
      'host_draining',
      'connection_busy',
      'session_busy',
      'session_capacity',
      'aborted',
      'daemon_unavailable',
    ] as const)
      expect(DAEMON_ERRORS[code].retryable, code).toBe(true);
    for (const code of ['stale_generation', 'ephemeral_session_unavailable', 'cwd_not_allowed', 'denied_by_gateway'] as const)
      expect(DAEMON_ERRORS[code].retryable, code).toBe(false);
  });

  it("takes the host's retryable over the table's, either way", async () => {
    const { client, sim } = await daemonSetup();
    sim.failNext('status', { code: 'session_not_running', message: 'no', retryable: false });
    expect(await daemonFailure(client.status())).toMatchObject({ code: 'session_not_running', retryable: false });
    sim.failNext('status', { code: 'internal_error', message: 'try again', retryable: true });
    expect(await daemonFailure(client.status())).toMatchObject({ code: 'internal_error', retryable: true });
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
