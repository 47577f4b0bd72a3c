// A live character on `aicc serve`'s /aicc: POST /live sets the episode up, the TypeScript
// AgentClient plays the character over a real WebSocket while the world runs in wall time, and a
// resume after the socket drops loses nothing and repeats nothing.

import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { AgentClient } from '../../../src/agent/agentClient.js';
import { connectWebSocket, type WebSocketConstructor } from '../../../src/links/websocket.js';
import { tapLink } from '../../../src/links/wrapLink.js';
import { startServe, type ServeHandle } from '../../../src/node/serve/serveServer.js';
import { swarmWorld } from '../../../src/worlds/swarm/swarmWorld.js';

let server: ServeHandle | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function live(body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server!.url}/live`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

/** The sequence numbers (the last 12 hex digits of message_id) of every bridge message a link brought. */
const seen: number[] = [];
const socketTo = async (path: string) =>
  tapLink(await connectWebSocket(`${server!.url.replace('http', 'ws')}${path}`, { WebSocket: WebSocket as unknown as WebSocketConstructor }), (frame) => {
    const id = (JSON.parse(String(frame)) as { message_id?: string }).message_id;
    if (id !== undefined) seen.push(Number.parseInt(id.slice(24), 16));
  });

describe("aicc serve's /aicc, a live character over aicc/0.1", () => {
  it('plays a forager while the world runs, and resumes across a dropped socket with nothing lost or twice', async () => {
    server = await startServe({ world: swarmWorld, port: 0 });
    const { body } = await live({ seed: 2, agent: 'forager-001', params: { foragers: 3 } });
    expect(body).toMatchObject({ agent: 'forager-001', tick_rate_hz: expect.any(Number) });
    const client = await AgentClient.connect(await socketTo(`/aicc?episode_id=${body.episode_id}&agent=forager-001`));
    expect(client.manifest.tools.map((tool) => tool.id)).toEqual(['sense', 'move', 'eat']);
    const ticks: number[] = [];
    client.on('event', (event) => {
      if (event.topic === 'tick') ticks.push((event.payload as { tick: number }).tick);
    });
    expect(await client.call('sense', { radius: 3 })).toMatchObject({ ok: true, output: { at: expect.any(Object) } });
    await expect.poll(() => ticks.length, { timeout: 5000 }).toBeGreaterThan(3);

    // The socket drops under a call; the world goes on; the resume brings what was missed.
    const pending = client.call('move', { dx: 1, dy: 0 });
    (client as unknown as { wire: { close(reason: string): void } }).wire.close('test drops the socket');
    const before = ticks.at(-1)!;
    await new Promise((resolve) => setTimeout(resolve, 300));
    await client.resume(await socketTo(`/aicc?episode_id=${body.episode_id}`));
    expect((await pending).ok).toBe(true);
    await expect.poll(() => ticks.at(-1)!, { timeout: 5000 }).toBeGreaterThan(before + 3);
    // Nothing lost: the bridge's messages, both links together, number 1, 2, 3 … with no hole (the
    // replay may bring some twice); nothing twice: the client handed on each tick once, in order
    // (ticks coalesce while an agent is away, so their numbers may jump).
    const sequence = [...new Set(seen)].sort((a, b) => a - b);
    expect(sequence).toEqual(Array.from({ length: sequence.length }, (_, i) => i + 1));
    expect(new Set(ticks).size).toBe(ticks.length);
    expect(ticks).toEqual([...ticks].sort((a, b) => a - b));
    await client.close('done');
    await expect.poll(() => server!.episodes.room(), { timeout: 5000 }).toBe(64);
  });

  it('refuses what it cannot serve: an unknown character, a second session, an unknown episode', async () => {
    server = await startServe({ world: swarmWorld, port: 0, maxEpisodes: 1 });
    expect((await live({ agent: 'nobody' })).body.error.code).toBe('unknown_agent');
    const { body } = await live({ seed: 1 });
    expect(body.agent).toBe('forager-000');
    expect((await live({ seed: 2 })).body.error.code).toBe('capacity_reached');
    const client = await AgentClient.connect(await socketTo(`/aicc?episode_id=${body.episode_id}&agent=forager-000`));
    const refused = async (path: string) => {
      const socket = new WebSocket(`${server!.url.replace('http', 'ws')}${path}`);
      return new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    };
    expect(await refused(`/aicc?episode_id=${body.episode_id}&agent=forager-000`)).toBe(4404);
    expect(await refused('/aicc?episode_id=nope&agent=forager-000')).toBe(4404);
    await client.close('done');
  });
});
