import { describe, expect, it, vi } from 'vitest';
import { ToolError } from '../../src/base/errors.js';
import type { HostError } from '../../src/runtime/calls.js';
import { connectAgent, connectRaw, echoTool, makeCapsule, moveTool, pass, settle } from '../helpers.js';

describe('tool_call pipeline', () => {
  it('refuses an unknown tool with tool_unknown', async () => {
    const { capsule, clock } = makeCapsule();
    const { agent } = await connectAgent(capsule, clock);
    const result = await agent.call('fly', {});
    expect(result).toMatchObject({ ok: false, error: { code: 'tool_unknown', retryable: false }, meta: { source: 'bridge' } });
    expect(result.ok || result.error.message).toContain('"fly"');
  });

  it('refuses a disabled tool as retryable tool_unavailable, and serves it again once enabled', async () => {
    const { capsule, clock } = makeCapsule();
    const handle = capsule.registerTool(echoTool);
    const { agent } = await connectAgent(capsule, clock);
    handle.disable();
    expect(await agent.call('echo', { text: 'a' })).toMatchObject({ ok: false, error: { code: 'tool_unavailable', retryable: true } });
    handle.enable();
    expect(await agent.call('echo', { text: 'a' })).toMatchObject({ ok: true });
  });

  it('refuses a tool whose capability the session lacks, naming the capability', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool(moveTool());
    const { agent } = await connectAgent(capsule, clock, { capabilities: { sensors: ['locomotion'] } });
    const result = await agent.call('move_to', { x: 1, y: 1 });
    expect(result).toMatchObject({ ok: false, error: { code: 'tool_unavailable', retryable: false } });
    expect(result.ok || result.error.message).toMatch(/actuator capability "locomotion"/);
  });

  it('rejects invalid input with invalid_input naming the field', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool(moveTool());
    const { agent } = await connectAgent(capsule, clock);
    const missing = await agent.call('move_to', { x: 1 });
    expect(missing).toMatchObject({ ok: false, error: { code: 'invalid_input', retryable: false } });
    expect(missing.ok || missing.error.message).toBe('move_to: input.y is required');
    const wrongType = await agent.call('move_to', { x: 'left', y: 1 });
    expect(wrongType.ok || wrongType.error.message).toBe('move_to: input.x must be number');
  });

  describe('strict_input', () => {
    it('true rejects an undeclared field and names it', async () => {
      const { capsule, clock } = makeCapsule();
      const handler = vi.fn(() => ({ arrived: true }));
      capsule.registerTool(moveTool({ strict_input: true, handler }));
      const { agent } = await connectAgent(capsule, clock);
      const result = await agent.call('move_to', { x: 1, y: 2, run: true });
      expect(result).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
      expect(result.ok || result.error.message).toBe('move_to: input.run is not a declared field');
      expect(handler).not.toHaveBeenCalled();
    });

    it('false ignores an undeclared field', async () => {
      const { capsule, clock } = makeCapsule();
      const handler = vi.fn(() => ({ arrived: true }));
      capsule.registerTool(moveTool({ strict_input: false, handler }));
      const { agent } = await connectAgent(capsule, clock);
      expect(await agent.call('move_to', { x: 1, y: 2, run: true })).toMatchObject({ ok: true });
      expect(handler).toHaveBeenCalledOnce();
    });

    it('false removes an undeclared field where the schema forbids additional properties', async () => {
      const { capsule, clock } = makeCapsule();
      const handler = vi.fn((_input: unknown) => ({ arrived: true }));
      const base = moveTool();
      capsule.registerTool(moveTool({ strict_input: false, handler, input_schema: { ...base.input_schema, additionalProperties: false } }));
      const { agent } = await connectAgent(capsule, clock);
      expect(await agent.call('move_to', { x: 1, y: 2, run: true })).toMatchObject({ ok: true });
      expect(handler.mock.calls[0]![0]).toEqual({ x: 1, y: 2 });
    });
  });

  describe('limits on a manual clock', () => {
    it('calls_per_minute is a sliding window: refused until the oldest call is 60,000 ms old', async () => {
      const { capsule, clock } = makeCapsule();
      capsule.registerTool({ ...echoTool, limits: { calls_per_minute: 2 } });
      const { agent } = await connectAgent(capsule, clock);
      expect((await agent.call('echo', { text: '1' })).ok).toBe(true); // t = 0
      await pass(clock, 10_000);
      expect((await agent.call('echo', { text: '2' })).ok).toBe(true); // t = 10,000
      await pass(clock, 49_999);
      const third = await agent.call('echo', { text: '3' }); // t = 59,999
      expect(third).toMatchObject({ ok: false, error: { code: 'tool_unavailable', retryable: true } });
      expect(third.ok || third.error.message).toBe('echo: at most 2 calls per minute; retry in 1 ms');
      clock.advance(1);
      expect((await agent.call('echo', { text: '4' })).ok).toBe(true); // t = 60,000: the first left the window
      const fifth = await agent.call('echo', { text: '5' });
      expect(fifth.ok || fifth.error.message).toBe('echo: at most 2 calls per minute; retry in 10000 ms');
    });

    it('calls_per_session allows exactly N calls, then refuses for good', async () => {
      const { capsule, clock } = makeCapsule();
      capsule.registerTool({ ...echoTool, limits: { calls_per_session: 3 } });
      const { agent } = await connectAgent(capsule, clock);
      for (let i = 0; i < 3; i++) expect((await agent.call('echo', { text: `${i}` })).ok).toBe(true);
      await pass(clock, 3_600_000, 4000);
      expect(await agent.call('echo', { text: 'again' })).toMatchObject({ ok: false, error: { code: 'tool_unavailable', retryable: false } });
    });

    it('refused calls do not use quota', async () => {
      const { capsule, clock } = makeCapsule();
      capsule.registerTool({ ...echoTool, limits: { calls_per_session: 1 } });
      const { agent } = await connectAgent(capsule, clock);
      expect((await agent.call('echo', {})).ok).toBe(false); // invalid input
      expect((await agent.call('echo', { text: 'ok' })).ok).toBe(true);
      expect((await agent.call('echo', { text: 'no' })).ok).toBe(false);
    });

    it('limits count per session', async () => {
      const { capsule, clock } = makeCapsule();
      capsule.registerTool({ ...echoTool, limits: { calls_per_session: 1 } });
      const first = await connectAgent(capsule, clock);
      const second = await connectAgent(capsule, clock, { character: 'villain' });
      expect((await first.agent.call('echo', { text: 'a' })).ok).toBe(true);
      expect((await second.agent.call('echo', { text: 'b' })).ok).toBe(true);
    });
  });

  it('times a handler out on the capsule clock with retryable timeout, and aborts its signal', async () => {
    const { capsule, clock } = makeCapsule();
    let signal: AbortSignal | undefined;
    capsule.registerTool({ ...echoTool, timeout_ms: 1000, handler: (_input, context) => ((signal = context.signal), new Promise<never>(() => {})) });
    const { agent } = await connectAgent(capsule, clock);
    const pending = agent.call('echo', { text: 'slow' });
    await settle();
    clock.advance(999);
    await settle();
    expect(signal?.aborted).toBe(false);
    clock.advance(1);
    expect(await pending).toMatchObject({ ok: false, error: { code: 'timeout', retryable: true }, meta: { latency_ms: 1000 } });
    expect(signal?.aborted).toBe(true);
  });

  it('turns a thrown error into execution_failed with its first line and no stack', async () => {
    const { capsule, clock } = makeCapsule();
    const errors: HostError[] = [];
    capsule.on('error', (e) => errors.push(e));
    capsule.registerTool({
      ...echoTool,
      handler: () => {
        throw new Error('the door is locked\n    at secret (/srv/game.js:1:1)');
      },
    });
    const { agent } = await connectAgent(capsule, clock);
    const result = await agent.call('echo', { text: 'x' });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'execution_failed', retryable: false, message: 'echo failed: the door is locked' },
      meta: { source: 'handler' },
    });
    expect(JSON.stringify(result)).not.toContain('secret');
    expect(errors).toMatchObject([{ code: 'handler_threw', tool: 'echo' }]);
  });

  it("gives the agent one result when a host's call listener throws, and tells the host", async () => {
    const { capsule } = makeCapsule();
    const errors: HostError[] = [];
    capsule.on('error', (e) => errors.push(e));
    capsule.on('call', () => {
      throw new Error('inspector broke');
    });
    capsule.registerTool(echoTool);
    const peer = await connectRaw(capsule);
    peer.send({ type: 'tool_call', call_id: 'c1', tool: 'echo', input: { text: 'x' } });
    await settle();
    expect(peer.ofType('tool_result').map((r) => [r.call_id, r.ok])).toEqual([['c1', true]]);
    expect(errors).toMatchObject([{ code: 'listener_threw', tool: 'echo', message: expect.stringContaining('inspector broke') }]);
  });

  it('passes a ToolError through with its own message and retryable flag', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool({
      ...echoTool,
      handler: async () => {
        throw new ToolError('the well is dry; try later', { retryable: true });
      },
    });
    const { agent } = await connectAgent(capsule, clock);
    expect(await agent.call('echo', { text: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'execution_failed', retryable: true, message: 'the well is dry; try later' },
    });
  });

  it('answers an output that breaks output_schema with internal_error, and tells the host which tool', async () => {
    const { capsule, clock } = makeCapsule();
    const errors: HostError[] = [];
    capsule.on('error', (e) => errors.push(e));
    capsule.registerTool({ ...echoTool, handler: () => ({ wrong: 1 }) });
    const { agent } = await connectAgent(capsule, clock);
    const result = await agent.call('echo', { text: 'x' });
    expect(result).toMatchObject({ ok: false, error: { code: 'internal_error', retryable: false } });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'output_invalid', tool: 'echo' });
    expect(errors[0]!.message).toContain('output.echo is required');
  });

  it('returns the first result for a repeated call_id without running the handler twice', async () => {
    const { capsule } = makeCapsule();
    let runs = 0;
    capsule.registerTool({ ...echoTool, handler: (input) => ({ echo: { ...input, run: ++runs } }) });
    const peer = await connectRaw(capsule);
    peer.send({ type: 'tool_call', call_id: 'same', tool: 'echo', input: { text: 'a' } });
    await settle();
    peer.send({ type: 'tool_call', call_id: 'same', tool: 'echo', input: { text: 'b' } });
    await settle();
    const results = peer.ofType('tool_result');
    expect(runs).toBe(1);
    expect(results).toHaveLength(2);
    expect(results[1]!.output).toEqual(results[0]!.output);
    expect(results[1]!.message_id).not.toBe(results[0]!.message_id);
    expect(results[1]!.meta?.source).toBe('cache');
  });

  it('answers a repeated call_id once while the first call still runs', async () => {
    const { capsule } = makeCapsule();
    let release!: () => void;
    capsule.registerTool({ ...echoTool, handler: (input) => new Promise<{ echo: unknown }>((resolve) => (release = () => resolve({ echo: input }))) });
    const peer = await connectRaw(capsule);
    peer.send({ type: 'tool_call', call_id: 'slow', tool: 'echo', input: { text: 'a' } });
    await settle();
    peer.send({ type: 'tool_call', call_id: 'slow', tool: 'echo', input: { text: 'a' } });
    await settle();
    release();
    await settle();
    expect(peer.ofType('tool_result')).toHaveLength(1);
  });

  it('evaluates a retry with the same call_id afresh after a retryable refusal: rate_limited is not cached', async () => {
    const { capsule, clock } = makeCapsule({ deadPeerTimeoutMs: 120_000 });
    let runs = 0;
    capsule.registerTool({ ...echoTool, limits: { calls_per_minute: 1 }, handler: (input) => ({ echo: { ...input, run: ++runs } }) });
    const peer = await connectRaw(capsule);
    peer.send({ type: 'tool_call', call_id: 'first', tool: 'echo', input: { text: 'a' } });
    peer.send({ type: 'tool_call', call_id: 'retry', tool: 'echo', input: { text: 'b' } });
    await settle();
    clock.advance(60_000);
    peer.send({ type: 'tool_call', call_id: 'retry', tool: 'echo', input: { text: 'b' } });
    await settle();
    // And a result, once had, is cached as before.
    peer.send({ type: 'tool_call', call_id: 'retry', tool: 'echo', input: { text: 'b' } });
    await settle();
    const results = peer.ofType('tool_result').map((r) => [r.call_id, r.ok, r.error?.code ?? r.output?.['echo'], r.meta?.source]);
    expect(results).toEqual([
      ['first', true, { text: 'a', run: 1 }, 'handler'],
      ['retry', false, 'tool_unavailable', 'bridge'],
      ['retry', true, { text: 'b', run: 2 }, 'handler'],
      ['retry', true, { text: 'b', run: 2 }, 'cache'],
    ]);
  });

  it('evaluates a retry afresh after tool_disabled and a retryable ToolError; a final refusal stays cached', async () => {
    const { capsule } = makeCapsule();
    let failNext = true;
    const handle = capsule.registerTool({
      ...echoTool,
      handler: (input) => {
        if (failNext) throw new ToolError('the well is busy', { retryable: true });
        return { echo: input };
      },
    });
    capsule.registerTool({
      ...echoTool,
      id: 'grumpy',
      handler: () => {
        throw new ToolError('never', { retryable: false });
      },
    });
    const peer = await connectRaw(capsule);
    handle.disable();
    peer.send({ type: 'tool_call', call_id: 'a', tool: 'echo', input: { text: 'x' } });
    await settle();
    handle.enable();
    peer.send({ type: 'tool_call', call_id: 'a', tool: 'echo', input: { text: 'x' } });
    await settle();
    failNext = false;
    peer.send({ type: 'tool_call', call_id: 'a', tool: 'echo', input: { text: 'x' } });
    peer.send({ type: 'tool_call', call_id: 'g', tool: 'grumpy', input: { text: 'x' } });
    await settle();
    peer.send({ type: 'tool_call', call_id: 'g', tool: 'grumpy', input: { text: 'x' } });
    await settle();
    expect(peer.ofType('tool_result').map((r) => [r.call_id, r.ok ? 'ok' : r.error?.message, r.meta?.source])).toEqual([
      ['a', 'echo is disabled for now', 'bridge'],
      ['a', 'the well is busy', 'handler'],
      ['a', 'ok', 'handler'],
      ['g', 'never', 'handler'],
      ['g', 'never', 'cache'],
    ]);
  });

  it('evaluates a retry afresh after queue_full', async () => {
    const { capsule } = makeCapsule({ tickMode: 'fixed', callQueueSize: 1 });
    capsule.registerTool(echoTool);
    const peer = await connectRaw(capsule);
    peer.send({ type: 'tool_call', call_id: 'one', tool: 'echo', input: { text: '1' } });
    peer.send({ type: 'tool_call', call_id: 'two', tool: 'echo', input: { text: '2' } });
    await settle();
    capsule.step(100);
    peer.send({ type: 'tool_call', call_id: 'two', tool: 'echo', input: { text: '2' } });
    await settle();
    capsule.step(100);
    await settle();
    expect(peer.ofType('tool_result').map((r) => [r.call_id, r.ok ? 'ok' : r.error?.code])).toEqual([
      ['two', 'tool_unavailable'],
      ['one', 'ok'],
      ['two', 'ok'],
    ]);
  });

  it("after a timeout, answers a retry with timeout while the handler may still run, then with the handler's own late result: it never runs twice", async () => {
    const { capsule, clock } = makeCapsule();
    let runs = 0;
    let release!: () => void;
    capsule.registerTool({
      ...echoTool,
      timeout_ms: 1000,
      handler: (input) => (runs++, new Promise<{ echo: unknown }>((resolve) => (release = () => resolve({ echo: input })))),
    });
    const peer = await connectRaw(capsule);
    peer.send({ type: 'tool_call', call_id: 'slow', tool: 'echo', input: { text: 'a' } });
    await settle();
    clock.advance(1000);
    peer.send({ type: 'tool_call', call_id: 'slow', tool: 'echo', input: { text: 'a' } });
    await settle();
    release();
    await settle();
    peer.send({ type: 'tool_call', call_id: 'slow', tool: 'echo', input: { text: 'a' } });
    await settle();
    expect(runs).toBe(1);
    expect(peer.ofType('tool_result').map((r) => [r.ok ? r.output : r.error?.code, r.meta?.source])).toEqual([
      ['timeout', 'bridge'],
      ['timeout', 'cache'],
      [{ echo: { text: 'a' } }, 'cache'],
    ]);
  });

  it('puts tick, latency and source in every result meta', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool({
      ...echoTool,
      handler: async (input) => {
        clock.advance(25);
        return { echo: input };
      },
    });
    const { agent } = await connectAgent(capsule, clock);
    capsule.trigger();
    capsule.trigger();
    const result = await agent.call('echo', { text: 'x' });
    expect(result.meta).toEqual({ tick: 2, latency_ms: 25, source: 'handler' });
  });

  it('gives the handler its context: session, character, tick and a direct emit', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool({
      ...echoTool,
      handler: (input, context) => {
        context.emit('agent_message', { from: 'oracle', text: `hello ${context.character}` });
        return { echo: { ...input, session: context.sessionId, call: context.callId } };
      },
    });
    // Subscribed to nothing: a direct response still arrives.
    const { agent } = await connectAgent(capsule, clock, { character: 'ada', subscriptions: [] });
    const heard: string[] = [];
    agent.on('agent_message', (m) => heard.push(m.text));
    const result = await agent.call('echo', { text: 'x' }, { callId: 'c-42' });
    expect(result).toMatchObject({ ok: true, output: { echo: { session: agent.sessionId, call: 'c-42' } } });
    await settle();
    expect(heard).toEqual(['hello ada']);
  });
});
