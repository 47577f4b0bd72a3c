// What the client does with events and records that are out of order, doubled, stale, malformed
// or oversized: everything reported, nothing thrown, the link kept.
import { describe, expect, it } from 'vitest';
import { settle } from '../helpers.js';
import { DaemonClient } from '../../src/pi/index.js';
import { CHAR, daemonFailure, daemonSetup, OPEN, openAttached } from './daemonHelpers.js';

const forged = (sequence: number, over: Record<string, unknown> = {}) => ({
  protocolVersion: '2.0',
  kind: 'event',
  event: 'messageUpdate',
  hostInstanceId: 'sim-host-1',
  sessionId: 'npc-cleo',
  generation: 1,
  sequence,
  ...over,
});

describe('DaemonClient events', () => {
  it('reports a gap, drops a duplicate, lets a late event through and drops stale ones', async () => {
    const { client, sim, events, reports } = await daemonSetup();
    await openAttached(client); // the opened event was 1
    sim.sendRecord(forged(2));
    sim.sendRecord(forged(4)); // 3 is missing
    sim.sendRecord(forged(4)); // twice
    sim.sendRecord(forged(3)); // late
    sim.sendRecord(forged(5, { hostInstanceId: 'sim-host-0' })); // an old host
    sim.sendRecord(forged(5, { generation: 0 })); // an old generation
    sim.sendRecord(forged(1, { sessionId: 'npc-ada' })); // not attached
    sim.sendRecord(forged(5));
    await settle();
    expect(events.map((e) => e.sequence)).toEqual([2, 4, 3, 5]);
    expect(reports).toEqual([
      { kind: 'gap', sessionId: 'npc-cleo', generation: 1, from: 3, to: 3 },
      { kind: 'duplicate', sessionId: 'npc-cleo', generation: 1, sequence: 4 },
      { kind: 'late', sessionId: 'npc-cleo', generation: 1, sequence: 3 },
      { kind: 'stale', sessionId: 'npc-cleo', generation: 1, sequence: 5, reason: 'host' },
      { kind: 'stale', sessionId: 'npc-cleo', generation: 0, sequence: 5, reason: 'generation' },
      { kind: 'stale', sessionId: 'npc-ada', generation: 1, sequence: 1, reason: 'unattached' },
    ]);
    // The client carries on.
    expect(await client.status()).toMatchObject({ sessions: [{ sessionId: 'npc-cleo' }] });
  });

  it('delivers the stream of an evicted durable session reopened by another client at its generation, from 1 again', async () => {
    const { client, sim, events, reports } = await daemonSetup();
    await openAttached(client, CHAR, 'new');
    sim.evict('npc-cleo');
    await settle();
    const other = await DaemonClient.connect(sim.link());
    await other.open(CHAR, { ...OPEN, session: { mode: 'new' } });
    sim.scriptTurns('back');
    await other.wake(CHAR, { prompt: 'hi' });
    await settle();
    expect(events.slice(0, 3).map((e) => [e.event, e.sequence])).toEqual([
      ['sessionDormant', 2],
      ['sessionEvicted', 3],
      ['opened', 1],
    ]);
    expect(events.map((e) => e.event).slice(-2)).toEqual(['agentEnd', 'sessionIdle']);
    expect(events.at(-1)!.sequence).toBe(sim.session('npc-cleo')!.sequence);
    expect(reports).toEqual([]);
  });

  it('reads error answers marked "1.0" as pi-daemon sends them: connection_busy stays a retryable connection_busy', async () => {
    const { client, sim } = await daemonSetup({ maxInFlight: 1 });
    sim.holdNext('status');
    const held = client.status();
    await settle();
    const busy = await daemonFailure(client.status());
    expect(busy).toMatchObject({ code: 'connection_busy', retryable: true });
    expect(sim.receivedLines.length).toBe(3);
    // A success marked 1.x would be a v1 answer: still refused.
    sim.sendRecord({ protocolVersion: '1.0', kind: 'response', requestId: 'r2', hostInstanceId: 'sim-host-1', ok: true, data: {} });
    expect(await daemonFailure(held)).toMatchObject({ code: 'invalid_response' });
  });

  it('drops the old generation after a re-open and attach', async () => {
    const { client, sim, events, reports } = await daemonSetup();
    await openAttached(client);
    await client.open({ ...CHAR, generation: 2 }, { cwd: '/game', session: { mode: 'memory' } });
    await client.attach({ ...CHAR, generation: 2 });
    sim.sendRecord(forged(2, { generation: 1 }));
    sim.sendRecord(forged(2, { generation: 2 }));
    await settle();
    expect(events.map((e) => [e.generation, e.sequence])).toEqual([[2, 2]]);
    expect(reports).toEqual([{ kind: 'stale', sessionId: 'npc-cleo', generation: 1, sequence: 2, reason: 'generation' }]);
  });
});

describe('DaemonClient inbound records', () => {
  it('reports malformed, deep, polluting and schema-breaking records, and keeps going', async () => {
    const { client, sim, problems, events } = await daemonSetup();
    await openAttached(client);
    sim.sendLine('{not json');
    sim.sendLine(new Uint8Array([0x7b, 0xff, 0x7d]));
    sim.sendLine('[1,2]');
    sim.sendLine(JSON.stringify({ kind: 'event', deep: JSON.parse('['.repeat(40) + ']'.repeat(40)) as unknown }));
    sim.sendLine('{"kind":"event","__proto__":{"x":1}}');
    sim.sendRecord({ ...forged(2), sequence: -1 });
    sim.sendRecord({ kind: 'notice' });
    await settle();
    expect(problems.map((p) => p.kind)).toEqual([
      'malformed_frame',
      'malformed_frame',
      'schema_violation',
      'too_deep',
      'forbidden_key',
      'schema_violation',
      'schema_violation',
    ]);
    expect(problems[5]!.message).toBe('event refused: event.sequence must be >= 0');
    expect(events).toEqual([]);
    expect(client.state).toBe('open');
  });

  it('refuses a line over 1 MiB (the default), and reads one just under it', async () => {
    const { client, sim, problems, events } = await daemonSetup();
    await openAttached(client);
    const base = JSON.stringify(forged(2, { data: { delta: '' } }));
    const room = 1024 * 1024 - base.length;
    sim.sendRecord(forged(2, { data: { delta: 'a'.repeat(room) } }));
    sim.sendRecord(forged(3, { data: { delta: 'a'.repeat(room + 1) } }));
    await settle();
    expect(events.map((e) => e.sequence)).toEqual([2]);
    expect(problems).toEqual([{ kind: 'oversized_frame', message: 'record exceeds 1048576 bytes (options.limits.maxFrameBytes)' }]);
  });

  it('fails the request a refused answer was for at once, not at its timeout', async () => {
    const { client, sim, problems } = await daemonSetup();
    const release = sim.holdNext('status');
    const status = client.status();
    await settle();
    sim.sendRecord({ protocolVersion: '2.0', kind: 'response', requestId: 'r2', ok: true, data: {} }); // no hostInstanceId
    const error = await daemonFailure(status);
    expect(error).toMatchObject({ code: 'invalid_response', details: { requestId: 'r2' } });
    expect(problems[0]).toMatchObject({ kind: 'schema_violation', requestId: 'r2' });
    release(); // the real answer comes late, and is dropped quietly
    await settle();
    expect(client.state).toBe('open');
  });

  it('refuses ok:false without an error, and an answer whose data is not what the operation gives', async () => {
    const { client, sim } = await daemonSetup();
    sim.holdNext('status');
    const status = client.status();
    await settle();
    sim.sendRecord({ protocolVersion: '2.0', kind: 'response', requestId: 'r2', hostInstanceId: 'sim-host-1', ok: false });
    expect((await daemonFailure(status)).code).toBe('invalid_response');
    await client.open(CHAR, { cwd: '/g', session: { mode: 'memory' } });
    sim.holdNext('attach');
    const attach = client.attach(CHAR);
    await settle();
    sim.sendRecord({ protocolVersion: '2.0', kind: 'response', requestId: 'r4', hostInstanceId: 'sim-host-1', ok: true, data: { attached: true } });
    const error = await daemonFailure(attach);
    expect(error).toMatchObject({ code: 'invalid_response' });
    expect(error.message).toContain('attach data must be');
  });
});
