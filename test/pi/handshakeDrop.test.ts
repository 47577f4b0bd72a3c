// A link that drops in the very turn its hello (or handshake) is answered: the client must not
// go on as "open" with no link (every request then timed out, and no reconnect ever came). Found
// by the fuzz targets test/fuzz/targets/peersClient.ts and daemonClient.ts.
import { describe, expect, it } from 'vitest';
import type { Link } from '../../src/links/link.js';
import { createMemoryLinkPair } from '../../src/links/memory.js';
import { ManualClock } from '../../src/base/clock.js';
import { DaemonClient, PeersClient } from '../../src/pi/index.js';
import { settle } from '../helpers.js';
import { daemonFailure } from './daemonHelpers.js';
import { failure } from './helpers.js';
import { DaemonSimulator } from './daemonSimulator.js';
import { PeersSimulator } from './peersSimulator.js';

/** A link whose far end answers the first record with `answer(record)`, then closes at once. */
function answersThenDrops(answer: (record: Record<string, unknown>) => Record<string, unknown>): Link {
  const [clientEnd, farEnd] = createMemoryLinkPair();
  farEnd.listen({
    message: (frame) => {
      farEnd.send(JSON.stringify(answer(JSON.parse(String(frame)) as Record<string, unknown>)));
      farEnd.close('dropped right after answering');
    },
    close: () => {},
  });
  return clientEnd;
}

const helloAnswer = (hello: Record<string, unknown>) => ({
  type: 'response',
  id: hello['id'],
  command: 'hello',
  success: true,
  data: { protocol: { version: '1.0', minVersion: '1.0' } },
});
const handshakeAnswer = (command: Record<string, unknown>) => ({
  protocolVersion: '2.0',
  kind: 'response',
  requestId: command['requestId'],
  hostInstanceId: 'sim-host-1',
  ok: true,
  data: { protocolVersion: '1.0', supportedProtocolVersions: ['1.0', '2.0'], host: { hostInstanceId: 'sim-host-1', ready: true } },
});

describe('a link that drops as the hello is answered', () => {
  it('PeersClient.connect rejects with closed instead of resolving with no link', async () => {
    const error = await failure(PeersClient.connect(answersThenDrops(helloAnswer), { clock: new ManualClock() }));
    expect(error).toMatchObject({ code: 'closed', details: { command: 'hello' } });
  });

  it('a reconnecting PeersClient tries again, and ends open on a link that works', async () => {
    const clock = new ManualClock();
    const sim = new PeersSimulator({ clock });
    const links = [() => answersThenDrops(helloAnswer), () => sim.link()];
    const client = await PeersClient.connect(sim.link(), { clock, reconnect: { connect: async () => links.shift()!(), baseDelayMs: 10, maxAttempts: 3 } });
    sim.drop();
    for (let i = 0; i < 10; i++) {
      await settle();
      clock.advance(50);
    }
    await settle();
    expect(client.state).toBe('open');
    expect(links).toHaveLength(0);
    await expect(client.getState()).resolves.toMatchObject({ id: 'sim-agent' });
  });

  it('DaemonClient.connect rejects with closed instead of resolving with no link', async () => {
    const error = await daemonFailure(DaemonClient.connect(answersThenDrops(handshakeAnswer), { clock: new ManualClock() }));
    expect(error).toMatchObject({ code: 'closed', details: { operation: 'handshake' } });
  });

  it('a reconnecting DaemonClient tries again, and ends open on a link that works', async () => {
    const clock = new ManualClock();
    const sim = new DaemonSimulator({ clock });
    const links = [() => answersThenDrops(handshakeAnswer), () => sim.link()];
    const client = await DaemonClient.connect(sim.link(), { clock, reconnect: { connect: async () => links.shift()!(), baseDelayMs: 10, maxAttempts: 3 } });
    sim.drop();
    for (let i = 0; i < 10; i++) {
      await settle();
      clock.advance(50);
    }
    await settle();
    expect(client.state).toBe('open');
    expect(links).toHaveLength(0);
    await expect(client.status()).resolves.toHaveProperty('sessions', []);
  });
});
