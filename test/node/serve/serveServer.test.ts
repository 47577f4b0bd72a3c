// `aicc serve`'s server on 127.0.0.1, from a client's side: real HTTP (fetch) and a real WebSocket
// speaking OpenEnv's protocol, against the swarm. Episodes, both faces, and every kind of request it
// must refuse with a typed error while the episodes go on.

import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { startServe, type ServeHandle } from '../../../src/node/serve/serveServer.js';
import { swarmWorld } from '../../../src/worlds/swarm/swarmWorld.js';

let server: ServeHandle | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(options: Partial<Parameters<typeof startServe>[0]> = {}): Promise<ServeHandle> {
  server = await startServe({ world: swarmWorld, port: 0, ...options });
  return server;
}

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server!.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

async function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server!.url}${path}`, { headers });
  return { status: response.status, body: await response.json() };
}

describe('aicc serve over HTTP', () => {
  it('describes the world, then runs an episode on the vectors face: reset, steps, state, close', async () => {
    await serve();
    expect((await get('/health')).body).toEqual({ status: 'healthy' });
    expect((await get('/metadata')).body).toMatchObject({ name: 'swarm', faces: ['tools', 'vectors'], params: { foragers: 16 } });
    const schema = (await get('/schema')).body;
    expect(schema.vectors).toEqual({ observation: { shape: [5, 5], low: -1, high: 1, dtype: 'float32' }, actions: ['eat', 'north', 'south', 'west', 'east'] });
    expect(schema.agents).toHaveLength(16);

    const reset = await post('/reset', { seed: 5, face: 'vectors', agents: ['forager-000'], params: { foragers: 4 } });
    expect(reset.status).toBe(200);
    const id = reset.body.episode_id;
    expect(reset.body.observations['forager-000']).toHaveLength(25);
    const step = await post('/step', { episode_id: id, actions: { 'forager-000': 2 } });
    expect(step.body).toMatchObject({ tick: 1, terminated: false, truncated: false, infos: { 'forager-000': { call: { tool: 'move', ok: true } } } });
    expect((await get(`/state?episode_id=${id}`)).body).toMatchObject({
      world: 'swarm',
      seed: 5,
      tick: 1,
      step_count: 1,
      state_hash: expect.stringMatching(/^[0-9a-f]+$/),
    });
    expect((await post('/close', { episode_id: id })).body).toEqual({ closed: true });
    expect((await post('/step', { episode_id: id, actions: {} })).status).toBe(404);
  });

  it('refuses what is not a request with a typed error, and the episode goes on', async () => {
    await serve({ maxBodyBytes: 1024 });
    const id = (await post('/reset', { seed: 1, agents: ['forager-000'] })).body.episode_id;
    const cases: Array<[Promise<{ status: number; body: any }>, number, string]> = [
      [post('/step', '{"episode_id": '), 400, 'invalid_request'],
      [post('/step', '[1, 2]'), 400, 'invalid_request'],
      [post('/step', { episode_id: 'nope', actions: {} }), 404, 'no_episode'],
      [post('/step', { episode_id: id, actions: { 'forager-001': { tool: 'eat' } } }), 400, 'unknown_agent'],
      [post('/step', { episode_id: id, actions: JSON.parse('{"__proto__": {"tool": "eat"}}') }), 400, 'unknown_agent'],
      [post('/step', { episode_id: id, actions: { 'forager-000': { tool: 'eat', input: 'x'.repeat(2000) } } }), 413, 'too_large'],
      [post('/step', { episode_id: id, actions: { 'forager-000': 3 } }), 400, 'invalid_request'],
      [post('/reset', { seed: 1, face: 'vectors', params: { wings: 1 } }), 400, 'invalid_request'],
      [post('/teleport', {}), 404, 'not_found'],
      [get('/step'), 404, 'not_found'],
    ];
    for (const [response, status, code] of cases) {
      const { status: got, body } = await response;
      expect([got, body.error.code], JSON.stringify(body)).toEqual([status, code]);
      expect(body.error.message.length).toBeGreaterThan(10);
    }
    // A tool the world has not, or input its schema refuses: the agent's news, not the request's failure.
    const step = await post('/step', { episode_id: id, actions: { 'forager-000': { tool: 'sense', input: { radius: 0 } } } });
    expect(step.body.observations['forager-000'].results).toEqual([{ tool: 'sense', ok: false, error: expect.objectContaining({ code: 'invalid_input' }) }]);
    expect((await get(`/state?episode_id=${id}`)).body).toMatchObject({ tick: 1 });
  });

  it('keeps at most max-episodes: 200 resets at once start that many, the rest are told capacity_reached; closing makes room', async () => {
    await serve({ maxEpisodes: 8 });
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, seed) => post('/reset', { seed, agents: ['forager-000'], params: { foragers: 2, size: 8 } })),
    );
    const started = answers.filter((answer) => answer.status === 200);
    expect(started).toHaveLength(8);
    expect(new Set(answers.filter((answer) => answer.status !== 200).map((answer) => `${answer.status} ${answer.body.error.code}`))).toEqual(
      new Set(['503 capacity_reached']),
    );
    expect(server!.episodes.size).toBe(8);
    for (const { body } of started) await post('/close', { episode_id: body.episode_id });
    expect((await post('/reset', { seed: 1 })).status).toBe(200);
  });

  it('closes an episode left idle for longer than idleMs, on the injected clock', async () => {
    let now = 0;
    await serve({ idleMs: 1000, now: () => now });
    const id = (await post('/reset', { seed: 1, agents: ['forager-000'] })).body.episode_id;
    now = 999;
    expect((await post('/step', { episode_id: id, actions: {} })).status).toBe(200);
    now = 2000;
    await post('/reset', { seed: 2 }); // a new episode sweeps the idle ones
    expect((await post('/step', { episode_id: id, actions: {} })).body.error.code).toBe('no_episode');
  });

  it('is not for pages of other sites: no form posts, no foreign Host, no browser sockets', async () => {
    await serve();
    expect((await post('/reset', '{}', { 'content-type': 'text/plain' })).status).toBe(415);
    const foreign = await new Promise<number>((resolve) => {
      const request = httpRequest(`${server!.url}/health`, { headers: { host: 'evil.example:8000' } }, (response) => resolve(response.statusCode!));
      request.end();
    });
    expect(foreign).toBe(421);
    const opened = new WebSocket(`${server!.url.replace('http', 'ws')}/ws`, { headers: { origin: 'https://evil.example' } });
    expect(await new Promise((resolve) => opened.on('unexpected-response', (_request, response) => resolve(response.statusCode)))).toBe(403);
  });

  it('asks for the key on every request when it has one, and never says it back', async () => {
    const key = 'k3y-for-serve-tests-0123456789';
    await serve({ key });
    const without = await get('/health');
    expect(without.status).toBe(401);
    expect(JSON.stringify(without.body)).not.toContain(key);
    expect((await get('/health', { authorization: 'Bearer wrong-key-wrong-key' })).status).toBe(401);
    expect((await get('/health', { authorization: `Bearer ${key}` })).status).toBe(200);
    await expect(startServe({ world: swarmWorld, host: '0.0.0.0', port: 0 })).rejects.toThrow(/not loopback; give a key/);
  });
});

describe("aicc serve's /ws, OpenEnv's WebSocket protocol", () => {
  function open(): Promise<{ send(message: unknown): Promise<any>; socket: WebSocket }> {
    const socket = new WebSocket(`${server!.url.replace('http', 'ws')}/ws`);
    const answers: any[] = [];
    const waiting: Array<(answer: any) => void> = [];
    socket.on('message', (data) => {
      const answer = JSON.parse(data.toString());
      const next = waiting.shift();
      if (next === undefined) answers.push(answer);
      else next(answer);
    });
    return new Promise((resolve, reject) => {
      socket.on('open', () =>
        resolve({
          socket,
          send: (message) => {
            socket.send(typeof message === 'string' ? message : JSON.stringify(message));
            return new Promise((answer) => (answers.length > 0 ? answer(answers.shift()) : waiting.push(answer)));
          },
        }),
      );
      socket.on('error', reject);
    });
  }

  it('plays one forager: reset, step, state, errors with OpenEnv codes, and close ends the episode', async () => {
    await serve();
    const { send, socket } = await open();
    const reset = await send({ type: 'reset', data: { seed: 4, face: 'vectors', agent: 'forager-003' } });
    expect(reset).toMatchObject({ type: 'observation', data: { reward: 0, done: false, metadata: { agent: 'forager-003', tick: 0 } } });
    expect(reset.data.observation.vector).toHaveLength(25);
    const step = await send({ type: 'step', data: { move: 4 } });
    expect(step.data).toMatchObject({ done: false, metadata: { tick: 1, info: { call: { tool: 'move', ok: true } } } });
    expect(await send({ type: 'state' })).toMatchObject({ type: 'state', data: { seed: 4, tick: 1, agents: ['forager-003'] } });
    expect(await send('{not json')).toMatchObject({ type: 'error', data: { code: 'INVALID_JSON' } });
    expect(await send({ type: 'dance' })).toMatchObject({ type: 'error', data: { code: 'UNKNOWN_TYPE' } });
    expect(await send({ type: 'step', data: { move: 9 } })).toMatchObject({ type: 'error', data: { code: 'VALIDATION_ERROR' } });
    expect(server!.episodes.size).toBe(1);
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.send(JSON.stringify({ type: 'close' }));
    await closed;
    await vi.waitFor(() => expect(server!.episodes.size).toBe(0));
  });
});
