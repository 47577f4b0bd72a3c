// @vitest-environment jsdom
// What the panel shows of a real capsule with agents connected over memory links.

import { afterEach, describe, expect, it } from 'vitest';
import { mountInspector, type Inspector } from '../../src/inspector/index.js';
import { ToolError } from '../../src/base/errors.js';
import type { JsonObject } from '../../src/protocol/messages.js';
import { connectAgent, connectRaw, echoTool, makeCapsule, moveTool, pass, settle } from '../helpers.js';
import { cell, ManualFrames, rows } from './helpers.js';
import type { DecisionCost } from '../../src/agent/pilot/costs.js';

let inspector: Inspector | undefined;
afterEach(() => {
  inspector?.dispose();
  inspector = undefined;
});

function mount(capsule: Parameters<typeof mountInspector>[0], options: Parameters<typeof mountInspector>[1] = {}) {
  const frames = new ManualFrames();
  inspector = mountInspector(capsule, { schedule: frames.schedule, ...options });
  return { frames, root: inspector.element };
}

describe('the inspector panel', () => {
  it('lists each session with its id, character, model class, state and subscriptions', async () => {
    const { capsule, clock } = makeCapsule();
    await connectAgent(capsule, clock, { character: 'wren', agentModel: { class: 'edge_small' }, subscriptions: ['collision', 'agent_message'] });
    const { frames, root } = mount(capsule);
    const [row] = rows(root, '[data-aicc-session]');
    const session = capsule.sessions()[0]!;
    expect(row!.getAttribute('data-aicc-session')).toBe(session.id);
    expect(cell(row!, 'id')).toBe(session.id.slice(0, 8));
    expect(cell(row!, 'character')).toBe('wren');
    expect(cell(row!, 'model')).toBe('edge_small');
    expect(cell(row!, 'state')).toBe('open');
    expect(cell(row!, 'subscriptions')).toBe('collision, agent_message');

    // A second agent joins after mount, and the first leaves.
    const { agent } = await connectAgent(capsule, clock, { character: 'moss' });
    frames.flush();
    expect(rows(root, '[data-aicc-session]').map((r) => cell(r, 'character'))).toEqual(['wren', 'moss']);
    await agent.close();
    frames.flush();
    expect(rows(root, '[data-aicc-session]').map((r) => cell(r, 'state'))).toEqual(['open', 'closed']);
  });

  it('lists the manifest: each tool with its class, capability and limits, and follows catalog changes', async () => {
    const { capsule } = makeCapsule();
    capsule.registerTool(echoTool);
    const move = capsule.registerTool(moveTool({ limits: { calls_per_minute: 30 } }));
    const { frames, root } = mount(capsule);
    const tools = rows(root, '[data-aicc-tool]');
    expect(tools.map((r) => [cell(r, 'tool'), cell(r, 'class'), cell(r, 'capability'), cell(r, 'limits')])).toEqual([
      ['echo', 'sensor', 'no capability', 'no limits'],
      ['move_to', 'actuator', 'locomotion', '30/min'],
    ]);
    move.disable();
    await settle();
    capsule.emit('collision', { a: 'x', b: 'y' });
    frames.flush();
    expect(rows(root, '[data-aicc-tool]').map((r) => cell(r, 'tool'))).toEqual(['echo']);
  });

  it('shows each call with abridged arguments, ok or the error code, and latency from tool_call in to tool_result out', async () => {
    const { capsule, clock } = makeCapsule();
    let release: (() => void) | undefined;
    capsule.registerTool(moveTool({ handler: () => new Promise((resolve) => (release = () => resolve({ arrived: true }))) }));
    capsule.registerTool({
      ...echoTool,
      id: 'fail',
      handler: () => {
        throw new ToolError('blocked by a wall');
      },
    });
    const { agent } = await connectAgent(capsule, clock, { character: 'wren' });
    const { frames, root } = mount(capsule);

    const moving = agent.call('move_to', { x: 3, y: 4 });
    await settle();
    frames.flush();
    const [running] = rows(root, '[data-aicc-call]');
    expect(running!.getAttribute('data-state')).toBe('running');
    expect(running!.hasAttribute('data-ok')).toBe(false);
    expect(cell(running!, 'input')).toBe('x: 3, y: 4');

    clock.advance(40);
    release!();
    await moving;
    await agent.call('fail', { text: 'go' });
    await agent.call('teleport', {});
    frames.flush();

    const calls = rows(root, '[data-aicc-call]');
    // Newest first.
    expect(calls.map((r) => [cell(r, 'tool'), r.getAttribute('data-ok'), cell(r, 'result'), cell(r, 'latency')])).toEqual([
      ['teleport', 'false', 'tool_unknown', '0 ms'],
      ['fail', 'false', 'execution_failed', '0 ms'],
      ['move_to', 'true', 'ok', '40 ms'],
    ]);
    expect(calls[1]!.querySelector('[data-cell="result"]')!.getAttribute('title')).toBe('blocked by a wall');
    expect(cell(calls[2]!, 'character')).toBe('wren');
    expect(calls[2]!.getAttribute('data-aicc-call')).toMatch(/.+/);
  });

  it('measures latency on an injected clock', async () => {
    const { capsule, clock } = makeCapsule();
    let time = 1000;
    let release: (() => void) | undefined;
    capsule.registerTool({ ...echoTool, handler: (input) => new Promise<JsonObject>((resolve) => (release = () => resolve({ echo: input }))) });
    const { agent } = await connectAgent(capsule, clock);
    const { frames, root } = mount(capsule, { now: () => time });
    const call = agent.call('echo', { text: 'hi' });
    await settle();
    time += 12.5;
    release!();
    await call;
    frames.flush();
    expect(cell(rows(root, '[data-aicc-call]')[0]!, 'latency')).toBe('12.5 ms');
  });

  it('in fixed tick mode counts the wait for the tick in the latency, as meta.latency_ms does', async () => {
    const { capsule, clock } = makeCapsule({ tickMode: 'fixed', tickRateHz: 10 });
    capsule.registerTool(echoTool);
    const { agent } = await connectAgent(capsule, clock);
    const { frames, root } = mount(capsule);
    const call = agent.call('echo', { text: 'x' });
    await settle();
    capsule.step(100);
    const outcome = await call;
    frames.flush();
    expect(outcome.meta.latency_ms).toBe(100);
    expect(cell(rows(root, '[data-aicc-call]')[0]!, 'latency')).toBe('100 ms');
  });

  it('abridges long arguments', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool(echoTool);
    const { agent } = await connectAgent(capsule, clock);
    const { frames, root } = mount(capsule);
    await agent.call('echo', { text: 'a'.repeat(5000) });
    frames.flush();
    const input = cell(rows(root, '[data-aicc-call]')[0]!, 'input');
    expect(input.length).toBeLessThanOrEqual(160);
    expect(input.endsWith('…')).toBe(true);
  });

  it('shows a result to a tool_call frame the bridge refused, with the refusal', async () => {
    const { capsule } = makeCapsule();
    capsule.registerTool(echoTool);
    const peer = await connectRaw(capsule);
    const { frames, root } = mount(capsule);
    peer.send({ type: 'tool_call', call_id: 'c-1', tool: 'echo' }); // no input: a schema violation
    await settle();
    frames.flush();
    const [row] = rows(root, '[data-aicc-call]');
    expect(row!.getAttribute('data-aicc-call')).toBe('c-1');
    expect([cell(row!, 'tool'), row!.getAttribute('data-ok'), cell(row!, 'result'), cell(row!, 'latency')]).toEqual(['?', 'false', 'invalid_input', '']);
  });

  it('marks a call whose session closed before its result as unanswered', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool({ ...echoTool, handler: () => new Promise<JsonObject>(() => {}) });
    const { agent } = await connectAgent(capsule, clock);
    const { frames, root } = mount(capsule);
    void agent.call('echo', { text: 'x' });
    await settle();
    capsule.sessions()[0]!.close('game over');
    frames.flush();
    const [row] = rows(root, '[data-aicc-call]');
    expect(row!.getAttribute('data-state')).toBe('unanswered');
    expect(cell(row!, 'result')).toBe('no result: session closed');
  });

  it('lists world events with their topic and abridged payload, and host errors, but not ticks', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool({
      ...echoTool,
      handler: () => {
        throw new Error('boom');
      },
    });
    const { agent } = await connectAgent(capsule, clock, { character: 'wren' });
    const { frames, root } = mount(capsule);
    capsule.emit('collision', { a: 'wren', b: 'wall', phase: 'begin' });
    capsule.emit('state_change', { entity: 'door', field: 'open', value: true });
    capsule.trigger();
    await agent.call('echo', { text: 'x' });
    frames.flush();
    const events = rows(root, '[data-aicc-event]');
    expect(events.map((r) => [r.getAttribute('data-kind'), cell(r, 'event'), cell(r, 'detail')])).toEqual([
      ['host_error', 'handler_threw', 'echo · wren: tool "echo" threw: boom'],
      ['state_change', 'state_change', 'entity: door, field: open, value: true'],
      ['collision', 'collision', 'a: wren, b: wall, phase: begin'],
    ]);
    expect(root.querySelector('[data-aicc-header]')!.textContent).toContain('tick 1');
  });

  it('never lets a payload it cannot read throw into the game: it counts it in the header', () => {
    const { capsule } = makeCapsule();
    const { frames, root } = mount(capsule);
    const payload = {
      a: 'x',
      b: 'y',
      get trap(): string {
        throw new Error('unreadable');
      },
    };
    expect(() => capsule.emit('collision', payload)).not.toThrow();
    frames.flush();
    expect(root.querySelector('[data-aicc-header]')!.textContent).toContain('1 capsule events the inspector could not read');
    expect(rows(root, '[data-aicc-event]')).toHaveLength(0);
  });

  it('shows quota use per tool per session: calls in the current minute and this session against the limits', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool(moveTool({ limits: { calls_per_minute: 5, calls_per_session: 10 } }));
    capsule.registerTool(echoTool);
    const { agent: wren } = await connectAgent(capsule, clock, { character: 'wren' });
    const { agent: moss } = await connectAgent(capsule, clock, { character: 'moss' });
    const { frames, root } = mount(capsule);
    await wren.call('move_to', { x: 1, y: 1 });
    await wren.call('move_to', { x: 2, y: 1 });
    await wren.call('echo', { text: 'x' });
    await moss.call('move_to', { x: 1, y: 1 });
    frames.flush();
    const quota = () => rows(root, '[data-aicc-quota]').map((r) => [cell(r, 'character'), cell(r, 'tool'), cell(r, 'minute'), cell(r, 'session')]);
    expect(quota()).toEqual([
      ['wren', 'move_to', '2/5 this minute', '2/10 this session'],
      ['wren', 'echo', 'no per-minute limit', '1 this session'],
      ['moss', 'move_to', '1/5 this minute', '1/10 this session'],
    ]);
    // A minute later the window is empty again; the session count stays.
    await pass(clock, 60_000);
    inspector!.close();
    inspector!.open();
    expect(quota()[0]).toEqual(['wren', 'move_to', '0/5 this minute', '2/10 this session']);
  });

  it('shows hostile strings from peers and the game as text, never as markup', async () => {
    const hostile = '<img src=x onerror="globalThis.__pwned=1"><script>globalThis.__pwned=2</script>';
    const { capsule, clock } = makeCapsule();
    capsule.registerTool(echoTool);
    const { agent } = await connectAgent(capsule, clock, { character: hostile });
    const { frames, root } = mount(capsule);
    await agent.call('echo', { text: hostile, [hostile]: 1 }, { callId: hostile });
    // A handler's error message is the game's text, shown as a title attribute.
    capsule.registerTool({
      ...echoTool,
      id: 'fail',
      handler: () => {
        throw new ToolError(hostile);
      },
    });
    await settle();
    await agent.call('fail', { text: 'x' });
    capsule.emit('agent_message', { from: hostile, text: hostile });
    frames.flush();
    // Opened calls and the filters' choices show them as text too.
    for (const row of rows(root, '[data-aicc-call]')) row.click();
    expect(rows(root, '[data-aicc-detail]')).toHaveLength(2);
    expect(Array.from(root.querySelectorAll('[data-aicc-filter="character"] option')).map((option) => option.textContent)).toContain(
      `${hostile.slice(0, 63)}…`,
    );
    expect(document.querySelectorAll('img, script').length).toBe(0);
    expect((globalThis as { __pwned?: number }).__pwned).toBeUndefined();
    const calls = rows(root, '[data-aicc-call]');
    expect(calls[0]!.querySelector('[data-cell="result"]')!.getAttribute('title')).toBe(hostile);
    expect(cell(calls[1]!, 'input')).toContain('<img src=x onerror=');
    expect(cell(rows(root, '[data-aicc-session]')[0]!, 'character')).toBe(`${hostile.slice(0, 63)}…`);
    expect(cell(rows(root, '[data-aicc-event]')[0]!, 'detail')).toContain('<img src=x onerror=');
    expect(calls[1]!.getAttribute('data-aicc-call')).toBe(`${hostile.slice(0, 63)}…`);
  });
});

describe('columns and outputs', () => {
  it('puts a header row over each section naming its columns, in the order of the rows’ cells', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool(moveTool({ limits: { calls_per_minute: 5 } }));
    const { agent } = await connectAgent(capsule, clock, { character: 'wren' });
    const { frames, root } = mount(capsule);
    await agent.call('move_to', { x: 1, y: 2 });
    capsule.emit('audio', { source: 'bell', sound: 'ding' });
    frames.flush();
    const columns = (section: string) =>
      Array.from(root.querySelectorAll(`[data-aicc-section="${section}"] > [data-aicc-columns] > span`)).map((span) => span.textContent);
    const cells = (selector: string) => Array.from(root.querySelector(selector)!.children).map((span) => span.getAttribute('data-cell'));
    expect(columns('sessions')).toEqual(['id', 'character', 'model', 'state', 'calls', 'subscriptions']);
    expect(columns('manifest')).toEqual(['tool', 'class', 'capability', 'limits', 'description']);
    expect(columns('calls')).toEqual(['character', 'tool', 'result', 'latency', 'input', 'output']);
    expect(columns('quota')).toEqual(['character', 'tool', 'minute', 'session']);
    expect(columns('events')).toEqual(['tick', 'event', 'detail']);
    for (const [section, row] of [
      ['sessions', '[data-aicc-session]'],
      ['manifest', '[data-aicc-tool]'],
      ['calls', '[data-aicc-call]'],
      ['quota', '[data-aicc-quota]'],
      ['events', '[data-aicc-event]'],
    ]) {
      expect(cells(row!)).toEqual(columns(section!));
    }
  });

  it('shows what a call returned, or the error message of one that failed, in its row, abridged', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool(echoTool);
    capsule.registerTool({
      ...echoTool,
      id: 'fail',
      handler: () => {
        throw new ToolError('blocked by a wall');
      },
    });
    capsule.registerTool({ ...echoTool, id: 'long', output_schema: { type: 'object' }, handler: () => ({ text: 'b'.repeat(5000) }) });
    const { agent } = await connectAgent(capsule, clock);
    const { frames, root } = mount(capsule);
    await agent.call('echo', { text: 'hi' });
    await agent.call('fail', { text: 'x' });
    await agent.call('long', { text: 'x' });
    frames.flush();
    const [long, fail, echo] = rows(root, '[data-aicc-call]');
    expect(cell(echo!, 'output')).toBe('echo: {text: hi}');
    expect(cell(fail!, 'output')).toBe('blocked by a wall');
    expect(cell(long!, 'output')).toHaveLength(160);
    expect(cell(long!, 'output').endsWith('…')).toBe(true);
  });

  it('opens a call on click or Enter: its call_id, input, output and error whole up to 800 characters; a second click closes it', async () => {
    const { capsule, clock } = makeCapsule();
    let release: (() => void) | undefined;
    capsule.registerTool({
      ...echoTool,
      output_schema: { type: 'object' },
      handler: () => new Promise<JsonObject>((resolve) => (release = () => resolve({ text: 'b'.repeat(5000) }))),
    });
    capsule.registerTool({
      ...echoTool,
      id: 'fail',
      handler: () => {
        throw new ToolError('blocked by a wall', { retryable: true });
      },
    });
    const { agent } = await connectAgent(capsule, clock);
    const { frames, root } = mount(capsule);
    const running = agent.call('echo', { text: 'a'.repeat(300) }, { callId: 'c-long' });
    await settle();
    frames.flush();
    const row = rows(root, '[data-aicc-call]')[0]!;
    const detail = () =>
      Object.fromEntries(Array.from(row.querySelectorAll('[data-aicc-detail] dd')).map((dd) => [dd.getAttribute('data-field'), dd.textContent]));
    expect(row.getAttribute('aria-expanded')).toBe('false');
    row.click();
    expect(row.getAttribute('aria-expanded')).toBe('true');
    expect(detail()).toEqual({ call_id: 'c-long', input: `text: ${'a'.repeat(300)}`, result: 'running' });
    // The result arrives while it is open: the opened part follows.
    release!();
    await running;
    frames.flush();
    expect(detail().output).toHaveLength(800);
    expect(detail().output!.endsWith('…')).toBe(true);
    // A click on the opened part (to select its text) keeps it open; on the row it closes.
    row.querySelector<HTMLElement>('[data-aicc-detail] dd')!.click();
    expect(row.getAttribute('aria-expanded')).toBe('true');
    row.querySelector<HTMLElement>('[data-cell="tool"]')!.click();
    expect([row.getAttribute('aria-expanded'), row.querySelector('[data-aicc-detail]')]).toEqual(['false', null]);

    await agent.call('fail', { text: 'x' });
    frames.flush();
    const failed = rows(root, '[data-aicc-call]')[0]!;
    failed.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    expect(failed.querySelector('[data-field="error"]')!.textContent).toBe('execution_failed (retryable): blocked by a wall');
  });

  it("lists what a chat model's decisions cost, handed over by the host from its pilot, among the events", async () => {
    const { capsule, clock } = makeCapsule();
    await connectAgent(capsule, clock, { character: 'wren' });
    await connectAgent(capsule, clock, { character: 'moss' });
    const { frames, root } = mount(capsule);
    // A pilot's record as it comes (the type checks that it fits what the inspector takes).
    const cost: DecisionCost = {
      decision: 3,
      startedAt: 900,
      firstTokenMs: 320.4,
      replyMs: 880,
      firstToolCallMs: 900,
      totalMs: 1000,
      inputTokens: 1800,
      outputTokens: 40,
      costUsd: 0.0012,
      calls: 2,
      ended: 'replied',
    };
    inspector!.decision('wren', cost);
    inspector!.decision('moss', { decision: 1, totalMs: 250, calls: 0, ended: 'aborted' });
    frames.flush();
    const decisions = rows(root, '[data-aicc-event][data-kind="decision"]');
    expect(decisions.map((r) => cell(r, 'detail'))).toEqual([
      'moss #1: total 250 ms, 0 calls, aborted',
      'wren #3: first token 320 ms, first call 900 ms, total 1000 ms, 2 calls, tokens 1800/40, $0.00120',
    ]);
    inspector!.setFilter({ character: 'wren' });
    expect(rows(root, '[data-aicc-event][data-kind="decision"]').map((r) => cell(r, 'detail').split(':')[0])).toEqual(['wren #3']);
    expect(() => inspector!.decision('', { decision: 1, totalMs: 0, calls: 0, ended: 'replied' })).toThrow(/^inspector\.decision: expected a character's name/);
  });
});
