import { describe, expect, it } from 'vitest';
import { createMemoryLinkPair } from '../../src/links/memory.js';
import { ManualClock } from '../../src/base/clock.js';
import { PEERS_ERRORS, PeersClient, type PeersErrorCode } from '../../src/pi/index.js';
import { settle } from '../helpers.js';
import { failure, schemaErrorCodes, setup } from './helpers.js';
import { PeersSimulator, RawPeersClient } from './peersSimulator.js';

describe('PeersClient hello', () => {
  it('sends hello first, with its range and provenance, and no token when it has none', async () => {
    const { sim, client } = await setup({}, { from: { id: 'npc-wren', label: 'Wren', host: 'game' } });
    await client.getState();
    expect(sim.received[0]).toEqual({
      id: expect.any(String),
      type: 'hello',
      protocol: { version: '1.0', minVersion: '1.0' },
      from: { id: 'npc-wren', label: 'Wren', host: 'game' },
    });
    expect(sim.received[1]).toMatchObject({ type: 'get_state' });
    for (const record of sim.received) expect(record).not.toHaveProperty('token');
    expect(sim.receivedFrames.join('\n')).not.toMatch(/token/);
    expect(client.state).toBe('open');
    expect(client.protocolVersion).toBe('1.0');
  });

  it('sends the token in hello only, when it has one', async () => {
    const { sim, client } = await setup({ token: 'sekret-123' }, { token: 'sekret-123' });
    await client.deliver('prompt', 'hi');
    expect(sim.received[0]).toMatchObject({ type: 'hello', token: 'sekret-123' });
    expect(sim.received.slice(1).every((record) => !('token' in record))).toBe(true);
  });

  it('rejects with auth_failed when the token is missing or wrong, and closes the link', async () => {
    const clock = new ManualClock();
    const sim = new PeersSimulator({ clock, token: 'sekret-123' });
    for (const options of [{}, { token: 'wrong' }]) {
      const link = sim.link();
      const error = await failure(PeersClient.connect(link, { clock, ...options }));
      expect(error).toMatchObject({ code: 'auth_failed', retryable: false, name: 'PeersError' });
      expect(error.message).toMatch(/^PeersClient\.connect: the agent refused hello with auth_failed: .*options\.token/);
      await settle();
      expect(link.open).toBe(false);
    }
  });

  it('rejects with incompatible_version when the agent refuses the range', async () => {
    const clock = new ManualClock();
    const sim = new PeersSimulator({ clock, protocol: { version: '2.1', minVersion: '2.0' } });
    const error = await failure(PeersClient.connect(sim.link(), { clock }));
    expect(error).toMatchObject({
      code: 'incompatible_version',
      retryable: false,
      details: { data: { protocol: { version: '2.1', minVersion: '2.0' } } },
    });
  });

  it('rejects with incompatible_version itself when a lenient agent accepts a range that does not overlap', async () => {
    const clock = new ManualClock();
    const sim = new PeersSimulator({ clock, protocol: { version: '2.1', minVersion: '2.0' }, refuseIncompatible: false });
    const link = sim.link();
    const error = await failure(PeersClient.connect(link, { clock }));
    expect(error.code).toBe('incompatible_version');
    expect(error.message).toBe(
      'PeersClient.connect: the agent speaks pi-peers 2.0–2.1, this client 1.0–1.0 (this client speaks pi-peers 1.0: update the client or the agent)',
    );
    await settle();
    expect(link.open).toBe(false);
  });

  it('negotiates down with a later 1.x agent', async () => {
    const { client } = await setup({ protocol: { version: '1.4', minVersion: '1.0' } });
    expect(client.protocolVersion).toBe('1.0');
    expect(client.peerProtocol).toEqual({ version: '1.4', minVersion: '1.0' });
  });

  it('is answered hello_required when a raw client skips hello, and served after its hello', async () => {
    const clock = new ManualClock();
    const sim = new PeersSimulator({ clock });
    const raw = new RawPeersClient(sim.link());
    raw.send({ id: 'r1', type: 'get_state' });
    await settle();
    expect(raw.responses[0]).toMatchObject({ type: 'response', id: 'r1', success: false, errorCode: 'hello_required' });
    raw.send({ id: 'r2', type: 'hello', protocol: { version: '1.0', minVersion: '1.0' } });
    raw.send({ id: 'r3', type: 'get_state' });
    await settle();
    expect(raw.responses.slice(1)).toMatchObject([
      { id: 'r2', success: true },
      { id: 'r3', success: true, data: { idle: true, settled: 0 } },
    ]);
  });

  it('maps a hello_required answer to a typed error', async () => {
    const clock = new ManualClock();
    const [clientEnd, serverEnd] = createMemoryLinkPair();
    serverEnd.listen({
      message: (frame) => {
        const hello = JSON.parse(String(frame)) as { id: string };
        serverEnd.send(JSON.stringify({ type: 'response', id: hello.id, command: 'hello', success: false, errorCode: 'hello_required' }));
      },
      close: () => {},
    });
    expect(await failure(PeersClient.connect(clientEnd, { clock }))).toMatchObject({ code: 'hello_required', retryable: false });
  });
});

describe('PeersClient deliveries', () => {
  it('delivers with hops 1 by default and a fresh id per logical send', async () => {
    const { sim, client } = await setup();
    const a = await client.deliver('prompt', 'hello', { awaitsReply: true });
    const b = await client.deliver('follow_up', 'and then?');
    expect(a).toMatchObject({ type: 'response', command: 'prompt', success: true, data: { disposition: 'started' } });
    expect(b.id).not.toBe(a.id);
    expect(sim.deliveries).toEqual([
      { id: a.id, type: 'prompt', message: 'hello', hops: 1, awaitsReply: true },
      { id: b.id, type: 'follow_up', message: 'and then?', hops: 1 },
    ]);
  });

  it('retries with the same id are deduped: the original answer, one delivery', async () => {
    const { sim, client, clock } = await setup();
    const first = await client.deliver('prompt', 'once');
    const again = await client.deliver('prompt', 'once', { id: first.id });
    expect(again).toEqual(first);
    expect(sim.deliveredCount).toBe(1);
    // The agent remembers ids for 10 minutes of its clock; after that the id is new to it.
    clock.advance(10 * 60_000 + 1);
    await client.deliver('prompt', 'once', { id: first.id });
    expect(sim.deliveredCount).toBe(2);
  });

  it('a retry racing its original shares the original answer and is not sent twice', async () => {
    const { sim, client } = await setup();
    const id = client.newDeliveryId();
    const [a, b] = await Promise.all([client.deliver('steer', 'left', { id }), client.deliver('steer', 'left', { id })]);
    expect(a).toBe(b);
    expect(sim.received.filter((record) => record['id'] === id)).toHaveLength(1);
  });

  it('refuses hops above 3 with hop_limit, delivering nothing', async () => {
    const { sim, client } = await setup();
    const error = await failure(client.deliver('prompt', 'forwarded', { hops: 4 }));
    expect(error).toMatchObject({ code: 'hop_limit', retryable: false, details: { command: 'prompt' } });
    expect(error.message).toMatch(/answer instead of forwarding/);
    expect(sim.deliveredCount).toBe(0);
    await client.deliver('prompt', 'forwarded', { hops: 3 });
    expect(sim.deliveredCount).toBe(1);
  });

  it('checks its own records: an empty message or hops 0 is refused locally, nothing sent', async () => {
    const { sim, client } = await setup();
    const before = sim.received.length;
    expect(await failure(client.deliver('prompt', ''))).toMatchObject({ code: 'invalid_request', retryable: false, details: { local: true } });
    const hops = await failure(client.deliver('prompt', 'x', { hops: 0 }));
    expect(hops.message).toMatch(/^PeersClient\.deliver: request\.hops must be >= 1/);
    expect(sim.received.length).toBe(before);
  });
});

describe('PeersClient errors', () => {
  it('PEERS_ERRORS covers every errorCode of the schema', () => {
    for (const code of schemaErrorCodes()) expect(PEERS_ERRORS).toHaveProperty(code);
  });

  it.each(schemaErrorCodes())('maps errorCode %s to a typed PeersError', async (code) => {
    const { sim, client } = await setup();
    sim.failNext('get_state', { errorCode: code, error: `failed with ${code}` });
    const error = await failure(client.getState());
    expect(error.code).toBe(code);
    expect(error.retryable).toBe(PEERS_ERRORS[code as PeersErrorCode].retryable);
    expect(error.message).toContain(`PeersClient.getState: the agent refused get_state with ${code}: failed with ${code}`);
    expect(error.details).toMatchObject({ command: 'get_state', requestId: expect.any(String) });
    // The agent's own `retryable` wins over the default.
    sim.failNext('get_state', { errorCode: code, retryable: !error.retryable });
    expect((await failure(client.getState())).retryable).toBe(!error.retryable);
  });

  it('an errorCode from a later minor version becomes unknown_error, keeping the code', async () => {
    const { sim, client, problems } = await setup();
    sim.failNext('prompt', { errorCode: 'quota_exceeded', retryable: true });
    const error = await failure(client.deliver('prompt', 'x'));
    expect(error).toMatchObject({ code: 'unknown_error', retryable: true, details: { wireCode: 'quota_exceeded' } });
    expect(problems).toEqual([]);
  });

  it('a failure without errorCode (pi RPC style) becomes unknown_error', async () => {
    const { sim, client } = await setup();
    sim.holdNext('get_state');
    const pending = failure(client.getState());
    await settle();
    const held = sim.held[0]!;
    sim.sendRecord({ type: 'response', id: held.id, command: 'get_state', success: false, error: 'Unknown command: get_state' });
    expect(await pending).toMatchObject({ code: 'unknown_error', retryable: false });
  });

  it('rejects more requests than maxPendingRequests with too_many_pending', async () => {
    const { sim, client } = await setup({}, { maxPendingRequests: 2 });
    sim.holdNext('*');
    sim.holdNext('*');
    const waiting = [client.getState(), client.getState()];
    expect(await failure(client.getState())).toMatchObject({ code: 'too_many_pending', retryable: true });
    await settle();
    for (const held of sim.held) held.answer();
    await Promise.all(waiting);
  });
});
