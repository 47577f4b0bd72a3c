// The simulator's pi-daemon 0.3.3 behaviour, driven by a raw client (what a DaemonClient never sends),
// for runs without the real daemon; test/e2e/daemon/simulator.test.ts holds it to the real one.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/base/clock.js';
import { validateDaemonEvent, validateDaemonResponse } from '../../src/pi/generated/daemon-validators.js';
import { settle } from '../helpers.js';
import { RawPeersClient } from './peersSimulator.js';
import { DaemonSimulator } from './daemonSimulator.js';

const cmd = (requestId: string, operation: string, extra: Record<string, unknown> = {}) => ({
  protocolVersion: '2.0',
  requestId,
  operation,
  payload: {},
  ...extra,
});
const session = { sessionId: 's1', generation: 1 };
const open = (requestId: string, mode = 'memory') =>
  cmd(requestId, 'open', {
    ...session,
    payload: {
      cwd: '/w',
      session: { mode },
      resources: { extensions: 'none', skills: 'none', promptTemplates: 'none', themes: 'none', contextFiles: 'none', tools: 'none' },
    },
  });

function raw(sim = new DaemonSimulator({ clock: new ManualClock() })) {
  return { sim, client: new RawPeersClient(sim.link()) };
}

describe('DaemonSimulator', () => {
  it('answers a bad JSON line with invalid_json, then closes the connection', async () => {
    const { client } = raw();
    client.link.send('{oops');
    await settle();
    expect(client.responses).toMatchObject([{ kind: 'response', ok: false, error: { code: 'invalid_json', retryable: false } }]);
    expect(client.closedWith).toBe('invalid_json');
  });

  it('answers a line over 1 MiB with line_too_large, then closes', async () => {
    const { client } = raw();
    client.send(cmd('r1', 'status', { pad: 'x'.repeat(1024 * 1024) }));
    await settle();
    expect(client.responses).toMatchObject([{ ok: false, error: { code: 'line_too_large' } }]);
    expect(client.closedWith).toBe('line_too_large');
  });

  it('answers another major version with incompatible_protocol, under that version, then closes', async () => {
    const { client } = raw();
    client.send({ ...cmd('r1', 'handshake'), protocolVersion: '3.0' });
    await settle();
    expect(client.responses).toMatchObject([
      { protocolVersion: '3.0', requestId: 'r1', ok: false, error: { code: 'incompatible_protocol', details: { supported: '1.0', received: '3.0' } } },
    ]);
    expect(client.closedWith).toBe('incompatible_protocol');
  });

  it('answers a 1.0 handshake as pi-daemon does (no supportedProtocolVersions), and simulates no more of 1.x', async () => {
    const { client } = raw();
    client.send({ ...cmd('r1', 'handshake'), protocolVersion: '1.0' });
    client.send({ ...cmd('r2', 'status'), protocolVersion: '1.0' });
    await settle();
    expect(client.responses[0]).toMatchObject({ protocolVersion: '1.0', requestId: 'r1', ok: true, data: { protocolVersion: '1.0' } });
    expect(client.responses[0]!['data']).not.toHaveProperty('supportedProtocolVersions');
    expect(client.responses[1]).toMatchObject({ requestId: 'r2', ok: false, error: { code: 'not_simulated' } });
    expect(client.closedWith).toBeUndefined();
  });

  it('answers unknown_operation and invalid_field, and keeps the connection', async () => {
    const { client } = raw();
    client.send(cmd('r1', 'teleport'));
    client.send(cmd('r2', 'wake', { ...session, payload: { prompt: 'x' } })); // no idempotencyKey
    client.send(cmd('r3', 'handshake'));
    await settle();
    expect(client.responses.map((r) => (r['ok'] === true ? 'ok' : (r['error'] as { code: string }).code))).toEqual([
      'unknown_operation',
      'invalid_field',
      'ok',
    ]);
    expect(client.closedWith).toBeUndefined();
  });

  it('says "1.0" in the handshake data, and numbers events from 1 again on every open', async () => {
    const { sim, client } = raw();
    client.send(cmd('r1', 'handshake'));
    client.send(open('r2'));
    client.send(cmd('r3', 'attach', session));
    client.send(cmd('r4', 'wake', { ...session, idempotencyKey: 'k', payload: { prompt: 'hi' } }));
    await settle();
    await settle();
    expect(client.responses[0]).toMatchObject({ ok: true, data: { protocolVersion: '1.0', supportedProtocolVersions: ['1.0', '2.0'] } });
    client.send(cmd('r5', 'open', { ...open('r5'), generation: 2 }));
    client.send(cmd('r6', 'attach', { ...session, generation: 2 }));
    client.send(cmd('r7', 'wake', { ...session, generation: 2, idempotencyKey: 'k2', payload: { prompt: 'hi' } }));
    await settle();
    await settle();
    const events = client.responses.filter((r) => r['kind'] === 'event');
    expect(events.filter((e) => e['generation'] === 1).map((e) => e['sequence'])).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(events.filter((e) => e['generation'] === 2)[0]).toMatchObject({ sequence: 2, event: 'promptAccepted' });
    expect(sim.session('s1')).toMatchObject({ generation: 2, sequence: 12 });
    for (const record of client.responses) expect(record['kind'] === 'event' ? validateDaemonEvent(record) : validateDaemonResponse(record)).toBe(true);
  });

  it('answers a duplicate in-flight requestId with duplicate_request_id', async () => {
    const { sim, client } = raw();
    sim.scriptTurns({ text: 'x', hold: true });
    client.send(open('r1'));
    client.send(cmd('r2', 'wake', { ...session, idempotencyKey: 'k', payload: { prompt: 'hi' } }));
    client.send(cmd('r2', 'status'));
    await settle();
    expect(client.responses.at(-1)).toMatchObject({ requestId: 'r2', ok: false, error: { code: 'duplicate_request_id' } });
    sim.finishTurn();
    client.send(cmd('r2', 'status')); // done now: the id is free again
    await settle();
    expect(client.responses.filter((r) => r['requestId'] === 'r2').map((r) => r['ok'])).toEqual([false, true, true]);
  });

  it('refuses steer while idle (retryable), and too many requests in flight on one connection, marked "1.0"', async () => {
    const { sim, client } = raw(new DaemonSimulator({ clock: new ManualClock(), maxInFlight: 1 }));
    client.send(open('r1'));
    client.send(cmd('r2', 'steer', { ...session, idempotencyKey: 's', payload: { message: 'now' } }));
    sim.holdNext('status');
    client.send(cmd('r3', 'status'));
    client.send(cmd('r4', 'status'));
    await settle();
    expect(client.responses.slice(1)).toMatchObject([
      { protocolVersion: '2.0', sessionId: 's1', error: { code: 'session_not_running', retryable: true, details: { state: 'idle' } } },
      { protocolVersion: '1.0', error: { code: 'connection_busy', retryable: true } },
    ]);
    expect(client.responses[2]).not.toHaveProperty('sessionId');
  });

  it('keeps subscriptions across an eviction: the session reopened at its generation streams to them from 1', async () => {
    const { sim, client } = raw();
    const other = new RawPeersClient(sim.link());
    client.send(open('r1', 'new'));
    client.send(cmd('r2', 'attach', session));
    await settle();
    sim.evict('s1');
    expect(sim.session('s1')).toBeUndefined();
    expect(sim.retained('s1')).toEqual({ generation: 1, durable: true, dormant: true });
    other.send(open('o1', 'new'));
    await settle();
    const events = client.responses.filter((r) => r['kind'] === 'event').map((e) => [e['event'], e['sequence']]);
    expect(events).toEqual([
      ['sessionDormant', 2],
      ['sessionEvicted', 3],
      ['opened', 1],
    ]);
    expect(other.responses[0]).toMatchObject({ requestId: 'o1', ok: true, sequence: 1, data: { created: true } });
  });

  it('cannot reopen a memory session at its generation once it left memory (closed, evicted, or a restart)', async () => {
    const { sim, client } = raw();
    client.send(open('r1'));
    client.send(cmd('r2', 'close', session));
    client.send(open('r3'));
    client.send({ ...open('r4'), generation: 2 });
    await settle();
    expect(client.responses.map((r) => (r['ok'] === true ? 'ok' : (r['error'] as { code: string }).code))).toEqual([
      'ok',
      'ok',
      'ephemeral_session_unavailable',
      'ok',
    ]);
    sim.restart();
    const after = new RawPeersClient(sim.link());
    after.send({ ...open('a1'), generation: 2 });
    after.send({ ...open('a2'), generation: 3 });
    await settle();
    expect(after.responses.map((r) => (r['ok'] === true ? 'ok' : (r['error'] as { code: string }).code))).toEqual(['ephemeral_session_unavailable', 'ok']);
  });

  it('brings durable sessions back after a restart, idle at sequence 1, their journal kept', async () => {
    const { sim, client } = raw();
    client.send(open('r1', 'new'));
    client.send(cmd('r2', 'wake', { ...session, idempotencyKey: 'k', payload: { prompt: 'hi' } }));
    await settle();
    await settle();
    sim.restart();
    const after = new RawPeersClient(sim.link());
    after.send(cmd('a1', 'status', { sessionId: 's1' }));
    after.send(cmd('a2', 'wake', { ...session, idempotencyKey: 'k', payload: { prompt: 'hi' } }));
    await settle();
    expect(after.responses[0]).toMatchObject({ ok: true, data: { sessionId: 's1', generation: 1, state: 'idle', sequence: 1 } });
    expect(after.responses[1]).toMatchObject({ ok: true, sequence: 1, data: { result: { text: '' } } });
    expect(sim.turns).toHaveLength(1);
  });

  it('drain waits for the turns on its clock, then aborts them: the running one answers its partial text, a queued one fails aborted', async () => {
    const clock = new ManualClock();
    const { sim, client } = raw(new DaemonSimulator({ clock }));
    sim.scriptTurns({ text: 'x', hold: true, partial: 'pa' });
    client.send(open('r1'));
    client.send(cmd('r2', 'wake', { ...session, idempotencyKey: 'a', payload: { prompt: 'one' } }));
    client.send(cmd('r3', 'wake', { ...session, idempotencyKey: 'b', payload: { prompt: 'two' } }));
    client.send(cmd('r4', 'drain', { payload: { timeoutMs: 100 } }));
    client.send(open('r5'));
    await settle();
    expect(client.responses.filter((r) => r['kind'] === 'response').map((r) => r['requestId'])).toEqual(['r1', 'r5']);
    expect(client.responses.at(-1)).toMatchObject({ ok: false, error: { code: 'host_draining', retryable: true } });
    clock.advance(100);
    await settle();
    const answers = client.responses.filter((r) => r['kind'] === 'response').slice(2);
    expect(answers).toMatchObject([
      { requestId: 'r3', ok: false, error: { code: 'aborted', retryable: true } },
      { requestId: 'r2', ok: true, data: { result: { text: 'pa' } } },
      { requestId: 'r4', ok: true, data: { draining: true, timeoutMs: 100, timedOut: true, abortedTurns: 2 } },
    ]);
  });

  it('finishes a delayed turn on its clock', async () => {
    const clock = new ManualClock();
    const { sim, client } = raw(new DaemonSimulator({ clock }));
    sim.scriptTurns({ text: 'late', delayMs: 1000 });
    client.send(open('r1'));
    client.send(cmd('r2', 'wake', { ...session, idempotencyKey: 'k', payload: { prompt: 'hi' } }));
    await settle();
    clock.advance(999);
    await settle();
    expect(sim.running('s1')).toBe(true);
    clock.advance(1);
    await settle();
    expect(client.responses.at(-1)).toMatchObject({ requestId: 'r2', ok: true, data: { result: { text: 'late' } } });
  });
});
