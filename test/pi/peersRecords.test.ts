import { describe, expect, it } from 'vitest';
import { settle } from '../helpers.js';
import { failure, setup } from './helpers.js';

describe('PeersClient inbound records', () => {
  it('reports and drops malformed, oversized, deep, hostile and shapeless records, and stays usable', async () => {
    const { sim, client, problems } = await setup({}, { limits: { maxFrameBytes: 2048, maxDepth: 8 } });
    sim.sendFrame('{"type":"response", nope');
    sim.sendFrame(JSON.stringify({ type: 'response', id: 'x', command: 'c', success: true, data: 'y'.repeat(4096) }));
    sim.sendFrame(new Uint8Array([0x7b, 0xff, 0x7d]));
    sim.sendFrame(`${'['.repeat(20)}${']'.repeat(20)}`);
    sim.sendFrame('{"type":"response","__proto__":{"polluted":true}}');
    sim.sendFrame('[1,2]');
    sim.sendFrame('{"no":"type"}');
    sim.sendFrame(JSON.stringify({ type: 'response', id: 'nobody', command: 'get_state', success: 'yes' }));
    await settle();
    expect(problems.map((p) => p.kind)).toEqual([
      'malformed_frame',
      'oversized_frame',
      'malformed_frame',
      'too_deep',
      'forbidden_key',
      'schema_violation',
      'schema_violation',
      'schema_violation',
    ]);
    expect(problems[1]!.message).toBe('record exceeds 2048 bytes (options.limits.maxFrameBytes)');
    expect(problems[7]).toEqual({ kind: 'schema_violation', message: 'response refused: response.success must be boolean', requestId: 'nobody' });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(await client.getState()).toMatchObject({ id: 'sim-agent', idle: true });
  });

  it('fails a request at once when its answer is refused, and serves the next', async () => {
    const { sim, client, problems } = await setup();
    sim.holdNext('get_state');
    const pending = failure(client.getState());
    await settle();
    sim.sendRecord({ type: 'response', id: sim.held[0]!.id, command: 'get_state' });
    const error = await pending;
    expect(error).toMatchObject({ code: 'invalid_response', retryable: false });
    expect(error.message).toMatch(/response\.success is required/);
    expect(problems).toHaveLength(1);
    expect(await client.getState()).toMatchObject({ settled: 0 });
  });

  it('refuses get_state data that breaks AgentState, or that carries a token', async () => {
    const { sim, client } = await setup();
    for (const [data, message] of [
      [{ id: 'a', label: 'b', host: 'h' }, 'get_state data.cwd is required'],
      [{ id: 'a', label: 'b', host: 'h', cwd: '/', settled: 1.5 }, 'get_state data.settled must be integer'],
      [{ id: 'a', label: 'b', host: 'h', cwd: '/', token: 'leaked' }, 'get_state data carries a "token", which AgentState forbids'],
    ] as const) {
      sim.holdNext('get_state');
      const pending = failure(client.getState());
      await settle();
      sim.sendRecord({ type: 'response', id: sim.held.at(-1)!.id, command: 'get_state', success: true, data });
      const error = await pending;
      expect(error.code).toBe('invalid_response');
      expect(error.message).toContain(`PeersClient.getState: ${message}`);
      expect(error.message).not.toContain('leaked');
    }
  });

  it('ignores unknown fields in responses and states (forward compatibility)', async () => {
    const { client, problems } = await setup({ extraResponseFields: { traceId: 't-1', timing: { ms: 3 } }, extraStateFields: { mood: 'calm', queue: [1, 2] } });
    const state = await client.getState();
    expect(state).toMatchObject({ id: 'sim-agent', idle: true, settled: 0 });
    expect((state as unknown as Record<string, unknown>)['mood']).toBe('calm');
    expect(await client.deliver('prompt', 'hi')).toMatchObject({ success: true, traceId: 't-1' });
    expect(problems).toEqual([]);
  });

  it('ignores unknown record types without reporting them', async () => {
    const { sim, client, problems } = await setup();
    sim.sendRecord({ type: 'agent_event', event: 'turn_start', extra: { a: 1 } });
    sim.sendRecord({ type: 'progress', id: 'not-a-request' });
    await settle();
    expect(problems).toEqual([]);
    expect(await client.getLastAssistantText()).toBeNull();
  });

  it('refuses get_last_assistant_text data that is not { text: string | null }', async () => {
    const { sim, client } = await setup();
    sim.holdNext('get_last_assistant_text');
    const pending = failure(client.getLastAssistantText());
    await settle();
    sim.sendRecord({ type: 'response', id: sim.held[0]!.id, command: 'get_last_assistant_text', success: true, data: { text: 42 } });
    expect(await pending).toMatchObject({ code: 'invalid_response' });
  });
});

describe('PeersClient and the token', () => {
  const TOKEN = 'sekret-123-do-not-print';

  it('never lets the token out in events, error messages, details or close reasons', async () => {
    const { sim, client, problems, clock } = await setup({ token: TOKEN }, { token: TOKEN, reconnect: { connect: async () => sim.link(), baseDelayMs: 10 } });
    const emitted: unknown[] = [problems];
    client.on('close', (event) => emitted.push(event));
    client.on('disconnect', (event) => emitted.push(event));
    client.on('reconnect', (event) => emitted.push(event));
    const errors: unknown[] = [];
    // An agent that echoes the token in its error text and data…
    sim.failNext('prompt', { errorCode: 'denied', error: `token ${TOKEN} may not send`, data: { echo: TOKEN } });
    sim.failNext('get_state', { errorCode: `future_code_${TOKEN}` });
    errors.push(await failure(client.deliver('prompt', 'x')), await failure(client.getState()));
    // …in malformed records, a record id and a close reason.
    sim.sendFrame(`{"token":"${TOKEN}"`);
    sim.sendRecord({ type: 'response', id: TOKEN, command: 'x', success: 'no' });
    sim.drop(`bye ${TOKEN}`);
    await settle();
    clock.advance(10);
    await settle();
    client.close(`closing, not ${TOKEN}`);
    const text = JSON.stringify(emitted) + JSON.stringify(errors.map((e) => ({ ...(e as object), message: (e as Error).message })));
    expect(problems.length).toBeGreaterThan(1);
    expect(emitted.length).toBeGreaterThan(3);
    expect(text).toContain('[redacted]');
    expect(text).not.toContain(TOKEN);
  });

  it('a client created without a token never sends one, on any connection', async () => {
    const { sim, client, clock } = await setup({}, { reconnect: { connect: async () => sim.link(), baseDelayMs: 10 } });
    await client.deliver('prompt', 'hi');
    sim.drop();
    await settle();
    clock.advance(10);
    await settle();
    await client.getState();
    expect(sim.received.filter((r) => r['type'] === 'hello')).toHaveLength(2);
    expect(sim.received.some((r) => 'token' in r)).toBe(false);
    expect(sim.receivedFrames.some((f) => f.includes('token'))).toBe(false);
  });
});
