// Drops and restarts: the client reconnects, handshakes and attaches again; a new hostInstanceId
// is told to the caller, with the sessions it lost.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/base/clock.js';
import { DaemonClient, type ReconnectReport } from '../../src/pi/index.js';
import { settle } from '../helpers.js';
import { CHAR, collect, daemonFailure, openAttached } from './daemonHelpers.js';
import { DaemonSimulator } from './daemonSimulator.js';

async function reconnecting(options: { maxAttempts?: number } = {}) {
  const clock = new ManualClock();
  const sim = new DaemonSimulator({ clock });
  let refuse = 0;
  const connect = async () => {
    if (refuse > 0) {
      refuse--;
      throw new Error('connection refused');
    }
    return sim.link();
  };
  const client = await DaemonClient.connect(sim.link(), { clock, reconnect: { connect, baseDelayMs: 100, ...options } });
  const seen = collect(client);
  const disconnects: string[] = [];
  const closes: string[] = [];
  client.on('disconnect', ({ reason }) => disconnects.push(reason));
  client.on('close', ({ reason }) => closes.push(reason));
  return { clock, sim, client, ...seen, disconnects, closes, refuseNext: (n: number) => (refuse = n) };
}

/** Lets the backoff run out and the new link handshake and attach. */
async function pass(clock: ManualClock, ms: number): Promise<void> {
  await settle();
  clock.advance(ms);
  for (let i = 0; i < 5; i++) await settle();
}

describe('DaemonClient reconnect', () => {
  it('after a drop: fails the waiting wake (retryable), handshakes and attaches again on the same host', async () => {
    const { clock, sim, client, reconnects, disconnects, events } = await reconnecting();
    await openAttached(client);
    sim.scriptTurns({ text: 'x', hold: true });
    const wake = client.wake(CHAR, { prompt: 'go', idempotencyKey: 'k1' });
    await settle();
    sim.drop('cable pulled');
    expect(await daemonFailure(wake)).toMatchObject({ code: 'closed', retryable: true, details: { operation: 'wake', idempotencyKey: 'k1' } });
    expect(client.state).toBe('reconnecting');
    expect(disconnects).toEqual(['cable pulled']);
    await pass(clock, 100);
    expect(client.state).toBe('open');
    expect(reconnects).toEqual([
      { attempt: 1, hostInstanceId: 'sim-host-1', previousHostInstanceId: 'sim-host-1', hostChanged: false, reattached: [CHAR], lost: [] },
    ]);
    expect(sim.received.slice(-2).map((r) => r['operation'])).toEqual(['handshake', 'attach']);
    // The stream goes on from the sequence the new attach reported.
    sim.finishTurn();
    await settle();
    expect(events.at(-1)).toMatchObject({ event: 'sessionIdle', sequence: sim.session('npc-cleo')!.sequence });
  });

  it('after a host restart: surfaces the new hostInstanceId and the sessions lost with it', async () => {
    const { clock, sim, client, reconnects } = await reconnecting();
    await openAttached(client);
    sim.restart();
    await pass(clock, 100);
    expect(reconnects).toHaveLength(1);
    const report = reconnects[0] as ReconnectReport;
    expect(report).toMatchObject({ hostInstanceId: 'sim-host-1-r1', previousHostInstanceId: 'sim-host-1', hostChanged: true, reattached: [] });
    expect(report.lost).toHaveLength(1);
    expect(report.lost[0]).toMatchObject({ sessionId: 'npc-cleo', generation: 1, error: { code: 'session_not_found' } });
    expect(client.host.hostInstanceId).toBe('sim-host-1-r1');
    // Open again (the caller decides the generation) and carry on.
    await openAttached(client, { ...CHAR, generation: 2 });
    sim.scriptTurns('back');
    expect(await client.wake({ ...CHAR, generation: 2 }, { prompt: 'hi' })).toMatchObject({ result: { text: 'back' } });
  });

  it('backs off between failed attempts, then gives up and closes', async () => {
    const { clock, sim, client, closes, refuseNext } = await reconnecting({ maxAttempts: 2 });
    refuseNext(5);
    sim.drop();
    await pass(clock, 99);
    expect(client.state).toBe('reconnecting');
    await pass(clock, 1); // attempt 1 fails
    await pass(clock, 200); // attempt 2 fails
    expect(client.state).toBe('closed');
    expect(closes).toEqual(['DaemonClient: gave up reconnecting after 2 attempts (last: connection refused)']);
  });

  it('stops for good when the new host refuses the protocol', async () => {
    const { clock, sim, client, closes } = await reconnecting();
    sim.supportedProtocolVersions = ['1.0'];
    sim.drop();
    await pass(clock, 100);
    expect(client.state).toBe('closed');
    expect(closes[0]).toMatch(/^DaemonClient: reconnect refused: DaemonClient.handshake: the host speaks 1.0, this client 2.x/);
  });

  it('closes at once without reconnect options', async () => {
    const clock = new ManualClock();
    const sim = new DaemonSimulator({ clock });
    const client = await DaemonClient.connect(sim.link(), { clock });
    sim.drop('gone');
    await settle();
    expect(client.state).toBe('closed');
    expect(await daemonFailure(client.status())).toMatchObject({ code: 'closed', retryable: false });
  });

  it('tells the caller when answers on the same link come from another host instance (a relay reconnected)', async () => {
    const clock = new ManualClock();
    const sim = new DaemonSimulator({ clock });
    const client = await DaemonClient.connect(sim.link(), { clock });
    const hosts: unknown[] = [];
    client.on('host', (change) => hosts.push(change));
    sim.hostInstanceId = 'sim-host-9';
    await client.status();
    expect(hosts).toEqual([{ previousHostInstanceId: 'sim-host-1', hostInstanceId: 'sim-host-9' }]);
    expect(client.host.hostInstanceId).toBe('sim-host-9');
  });
});
