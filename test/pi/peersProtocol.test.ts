import { describe, expect, it } from 'vitest';
import { PEERS_ERROR_CODES, PEERS_ERRORS, PEERS_PROTOCOL, PeersError } from '../../src/pi/index.js';
import { DELIVERY_KINDS, negotiateVersion } from '../../src/pi/peersProtocol.js';
import { backoffDelay } from '../../src/pi/reconnect.js';
import { schemaErrorCodes } from './helpers.js';

describe('pi-peers protocol constants', () => {
  it('PEERS_ERROR_CODES is the schema ErrorCode enum, in order', () => {
    expect([...PEERS_ERROR_CODES]).toEqual(schemaErrorCodes());
  });

  it('every code, wire or local, has a retryable default and a fix', () => {
    for (const code of [...PEERS_ERROR_CODES, 'timeout', 'closed', 'invalid_response', 'too_many_pending', 'aborted', 'unknown_error'] as const) {
      expect(PEERS_ERRORS[code]).toEqual({ retryable: expect.any(Boolean), fix: expect.stringMatching(/\S/) });
    }
    expect(PEERS_ERRORS.timeout.retryable).toBe(true);
  });

  it('the delivery kinds are the schema Delivery type enum', () => {
    expect(DELIVERY_KINDS).toEqual(['prompt', 'follow_up', 'steer']);
    expect(PEERS_PROTOCOL).toEqual({ version: '1.0', minVersion: '1.0' });
  });

  it('PeersError carries code, retryable and details', () => {
    const error = new PeersError('timeout', 'm', true, { requestId: 'r' });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'PeersError', code: 'timeout', retryable: true, details: { requestId: 'r' }, message: 'm' });
    expect(new PeersError('closed', 'm', false).details).toBeUndefined();
  });
});

describe('negotiateVersion', () => {
  it.each([
    [{ version: '1.0', minVersion: '1.0' }, '1.0'],
    [{ version: '1.9', minVersion: '1.0' }, '1.0'],
    [{ version: '1.10', minVersion: '0.5' }, '1.0'],
    [{ version: '2.0', minVersion: '2.0' }, undefined],
    [{ version: '0.9', minVersion: '0.1' }, undefined],
    [{ version: '1.0', minVersion: '1.1' }, undefined], // upside down
    [{ version: '1', minVersion: '1.0' }, undefined], // not MAJOR.MINOR
  ])('1.0–1.0 against %o → %s', (theirs, expected) => {
    expect(negotiateVersion(PEERS_PROTOCOL, theirs)).toBe(expected);
  });

  it('picks the highest common version', () => {
    expect(negotiateVersion({ version: '1.4', minVersion: '1.0' }, { version: '1.9', minVersion: '1.2' })).toBe('1.4');
    expect(negotiateVersion({ version: '1.10', minVersion: '1.0' }, { version: '1.9', minVersion: '1.2' })).toBe('1.9');
  });
});

describe('backoffDelay', () => {
  it('doubles from the base and stops at the cap', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, 500, 5000))).toEqual([500, 1000, 2000, 4000, 5000, 5000]);
  });
});
