// Decision budgets (src/runtime/decisionBudget.ts): a session connected with a budget has each
// decision — news delivered to its agent → the agent's next tool_call — timed on the capsule's
// clock. A stub model slower than the budget shows whenLate applied the moment the budget passes,
// the tick loop ticking on meanwhile, the agent told in its next news, and the counts.

import { afterEach, describe, expect, it } from 'vitest';
import type { AgentClient } from '../../src/agent/agentClient.js';
import { connectInProcess } from '../../src/agent/inProcess.js';
import type { JsonObject } from '../../src/protocol/messages.js';
import type { CallEvent, Capsule } from '../../src/runtime/capsule.js';
import type { ManualClock } from '../../src/base/clock.js';
import { DecisionBudgetWatch, decisionBudgets, type BudgetedSession, type BudgetHost, type DecisionLate } from '../../src/runtime/decisionBudget.js';
import type { SessionView } from '../../src/runtime/sessionTypes.js';
import type { ConnectOptions } from '../../src/runtime/options.js';
import type { ToolDefinition } from '../../src/runtime/tool.js';
import { makeCapsule, moveTool, settle } from '../helpers.js';
import { createMemoryLinkPair } from '../../src/links/memory.js';

let capsule: Capsule | undefined;
afterEach(() => capsule?.dispose());

/** The game's default action: the character waits where it is. Records when (capsule clock) and at which tick it ran. */
function waitTool(clock: ManualClock, ran: Array<{ at: number; tick: number; input: JsonObject }>, overrides: Partial<ToolDefinition> = {}): ToolDefinition {
  return {
    id: 'wait',
    class: 'actuator',
    description: 'Stands still for a moment.',
    input_schema: { type: 'object', properties: { ms: { type: 'number' } } },
    output_schema: { type: 'object', properties: { waited: { type: 'boolean' } }, required: ['waited'] },
    requires_capability: 'locomotion',
    handler: (input: JsonObject, context) => {
      ran.push({ at: clock.now(), tick: context.tick, input });
      return { waited: true };
    },
    ...overrides,
  };
}

/**
 * A stub model: news reaches it, it "thinks" for `thinkMs()` of the capsule's clock (a timer, never
 * a sleep), then makes one call. News that comes while it thinks waits for its next turn, as a
 * model mid-reply would leave it.
 */
function stubModel(agent: AgentClient, clock: ManualClock, thinkMs: () => number): { answeredAt: number[] } {
  const answeredAt: number[] = [];
  let thinking = false;
  agent.on('event', () => {
    if (thinking) return;
    thinking = true;
    clock.setTimeout(() => {
      thinking = false;
      answeredAt.push(clock.now());
      agent.call('move_to', { x: 1, y: 1 }).catch(() => {});
    }, thinkMs());
  });
  return { answeredAt };
}

/** Steps the capsule `ms` in 10 ms steps, letting links and deliveries run between steps. */
async function run(target: Capsule, ms: number): Promise<void> {
  for (let left = ms; left > 0; left -= 10) {
    target.step(10);
    await settle();
  }
}

/** A fixed-mode 10 Hz world with move_to and wait, an agent for `hero` with `budget`, and every host event recorded. */
async function world(
  options: { budget?: ConnectOptions['decisionBudget']; tickMode?: 'fixed' | 'event'; capabilities?: string[]; wait?: Partial<ToolDefinition> } = {},
) {
  const made = makeCapsule({ decisionBudgets: decisionBudgets(), tickMode: options.tickMode ?? 'fixed', tickRateHz: 10 });
  capsule = made.capsule;
  const { clock } = made;
  const ran: Array<{ at: number; tick: number; input: JsonObject }> = [];
  made.capsule.registerTool(moveTool());
  made.capsule.registerTool(waitTool(clock, ran, options.wait));
  const late: Array<DecisionLate & { at: number }> = [];
  const calls: CallEvent[] = [];
  const ticks: number[] = [];
  const resultsSent: string[] = [];
  made.capsule.on('decision_late', (event) => late.push({ ...event, at: clock.now() }));
  made.capsule.on('call', (record) => calls.push(record));
  made.capsule.on('tick', () => ticks.push(clock.now()));
  made.capsule.on('message', ({ direction, message }) => {
    if (direction === 'out' && message.type === 'tool_result') resultsSent.push(message.call_id);
  });
  const agent = await connectInProcess(made.capsule, {
    character: 'hero',
    capabilities: { actuators: options.capabilities ?? ['locomotion'] },
    // Declared fast: news goes out as soon as it comes (until the measured latency slows the cadence).
    agentModel: { class: 'edge_small', expected_full_response_ms: 0 },
    subscriptions: ['tick', 'state_change'],
    ...(options.budget === undefined ? {} : { decisionBudget: options.budget }),
  });
  const session = made.capsule.session(agent.sessionId)!;
  const told: JsonObject[] = [];
  agent.on('state_change', (change) => {
    if (change.entity === 'hero' && change.field === 'decision') told.push(change.value as JsonObject);
  });
  return { capsule: made.capsule, clock, agent, session, ran, late, calls, ticks, resultsSent, told };
}

describe('a decision budget with a default action, against a stub model slower than the budget', () => {
  it('runs the default the moment the budget passes, while the tick loop ticks on, and tells the agent in its next news', async () => {
    const w = await world({ budget: { ms: 300, whenLate: { tool: 'wait', input: { ms: 100 } } } });
    const model = stubModel(w.agent, w.clock, () => 800);
    await run(w.capsule, 1000);

    // The first news (tick 1) reached the agent at 100 ms: the budget passed at 400 ms, on a tick.
    expect(w.late).toHaveLength(1);
    expect(w.late[0]).toMatchObject({ at: 400, character: 'hero', budgetMs: 300, lateMs: 300, applied: { tool: 'wait', input: { ms: 100 } } });
    expect(w.late[0]!.session).toBe(w.session);
    expect(w.ran).toEqual([{ at: 400, tick: 4, input: { ms: 100 } }]);
    // Nothing waited for the model: a tick every 100 ms, before, while and after it was late.
    expect(w.ticks).toEqual([100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
    expect(model.answeredAt).toEqual([900]);

    // Recorded like a call, marked as the budget's; the agent got no tool_result for it.
    const fromBudget = w.calls.filter((record) => record.source === 'budget');
    expect(fromBudget).toHaveLength(1);
    expect(fromBudget[0]).toMatchObject({ character: 'hero', tool: 'wait', input: { ms: 100 }, result: { ok: true, output: { waited: true } } });
    expect(w.calls.filter((record) => record.source === undefined).map((record) => record.tool)).toEqual(['move_to']);
    expect(w.resultsSent.some((id) => id.startsWith('budget-'))).toBe(false);

    // Told in its next news, to it alone: a state_change of its own character.
    expect(w.told).toEqual([{ budget_ms: 300, late_ms: 300, applied: { tool: 'wait', input: { ms: 100 }, ok: true, output: { waited: true } } }]);
    expect(w.session.stats.decisions).toEqual({ inBudget: 0, overBudget: 1 });
  });

  it('applies whenLate once per decision, however long the agent stays late and however much news keeps coming', async () => {
    const w = await world({ budget: { ms: 300, whenLate: { tool: 'wait' } } });
    stubModel(w.agent, w.clock, () => 2000);
    await run(w.capsule, 2000);
    expect(w.ticks).toHaveLength(20);
    expect(w.late.map((event) => event.at)).toEqual([400]);
    expect(w.ran.map((entry) => entry.at)).toEqual([400]);
    expect(w.session.stats.decisions).toEqual({ inBudget: 0, overBudget: 1 });
  });

  it('counts each decision in or over budget as the model’s pace changes', async () => {
    const w = await world({ budget: { ms: 300, whenLate: { tool: 'wait' } } });
    // Fast, slow, fast, slow, fast.
    const paces = [100, 500, 100, 500, 100];
    const model = stubModel(w.agent, w.clock, () => paces.shift() ?? 10_000);
    await run(w.capsule, 3000);
    expect(model.answeredAt).toHaveLength(5);
    // The sixth decision, still unanswered, counts over budget from the moment its budget passed.
    expect(w.session.stats.decisions).toEqual({ inBudget: 3, overBudget: 2 + 1 });
    expect(w.late).toHaveLength(3);
    expect(w.ran).toHaveLength(3);
    // Each late default ran exactly a budget after the news that started its decision.
    for (const event of w.late) expect(event.lateMs).toBe(300);
  });

  it('in fixed mode, issues the default when the budget passes and runs it at the next tick, like any call', async () => {
    const w = await world({ budget: { ms: 250, whenLate: { tool: 'wait' } } });
    stubModel(w.agent, w.clock, () => 800);
    await run(w.capsule, 600);
    expect(w.late.map((event) => event.at)).toEqual([350]);
    expect(w.ran.map((entry) => entry.at)).toEqual([400]);
  });

  it('in event mode, runs the default at the very moment the budget passes', async () => {
    const w = await world({ tickMode: 'event', budget: { ms: 250, whenLate: { tool: 'wait' } } });
    stubModel(w.agent, w.clock, () => 800);
    w.clock.advance(30);
    w.capsule.emit('state_change', { entity: 'door', field: 'open', value: true });
    await settle();
    for (let i = 0; i < 30; i++) {
      w.clock.advance(10);
      await settle();
    }
    expect(w.late.map((event) => event.at)).toEqual([280]);
    expect(w.ran.map((entry) => entry.at)).toEqual([280]);
    expect(w.session.stats.decisions).toEqual({ inBudget: 0, overBudget: 1 });
  });

  it('sends the default through every check: a capability the session lacks refuses it, and the agent hears the refusal', async () => {
    const w = await world({ budget: { ms: 300, whenLate: { tool: 'wait' } }, capabilities: [], wait: { requires_capability: 'patience' } });
    stubModel(w.agent, w.clock, () => 800);
    await run(w.capsule, 600);
    expect(w.ran).toEqual([]);
    expect(w.calls).toEqual([expect.objectContaining({ tool: 'wait', source: 'budget', result: expect.objectContaining({ ok: false }) })]);
    expect(w.told).toHaveLength(1);
    expect(w.told[0]).toMatchObject({
      applied: { tool: 'wait', ok: false, error: { code: 'tool_unavailable', retryable: false, message: expect.stringMatching(/capability "patience"/) } },
    });
  });

  it('spends the tool’s limits like the agent’s own calls', async () => {
    const w = await world({ budget: { ms: 300, whenLate: { tool: 'wait' } }, wait: { limits: { calls_per_session: 1 } } });
    const paces = [500, 500];
    stubModel(w.agent, w.clock, () => paces.shift() ?? 10_000);
    await run(w.capsule, 2000);
    expect(w.late).toHaveLength(3);
    expect(w.ran).toHaveLength(1);
    expect(w.told.map((value) => (value['applied'] as JsonObject)['ok'])).toEqual([true, false, false]);
    expect(w.told[1]).toMatchObject({ applied: { error: { code: 'tool_unavailable' } } });
  });
});

describe('hold and stop', () => {
  it('hold: the host hears the late decision, nothing runs, and the agent is told', async () => {
    const w = await world({ budget: { ms: 300, whenLate: 'hold' } });
    stubModel(w.agent, w.clock, () => 800);
    await run(w.capsule, 1000);
    expect(w.late).toEqual([expect.objectContaining({ at: 400, applied: 'hold', lateMs: 300, budgetMs: 300 })]);
    expect(w.ran).toEqual([]);
    expect(w.calls.map((record) => record.tool)).toEqual(['move_to']);
    expect(w.told).toEqual([{ budget_ms: 300, late_ms: 300, applied: 'hold' }]);
    expect(w.session.stats.decisions).toEqual({ inBudget: 0, overBudget: 1 });
  });

  it('stop: the game stops the character when it hears decision_late, and the agent is told', async () => {
    const w = await world({ budget: { ms: 300, whenLate: 'stop' } });
    const stopped: Array<{ character: string; at: number }> = [];
    w.capsule.on('decision_late', (event) => {
      if (event.applied === 'stop') stopped.push({ character: event.character, at: w.clock.now() });
    });
    stubModel(w.agent, w.clock, () => 800);
    await run(w.capsule, 1000);
    expect(stopped).toEqual([{ character: 'hero', at: 400 }]);
    expect(w.ran).toEqual([]);
    expect(w.told).toEqual([{ budget_ms: 300, late_ms: 300, applied: 'stop' }]);
    expect(w.ticks).toHaveLength(10);
  });

  it('a listener that throws is reported, and whenLate still applies', async () => {
    const w = await world({ budget: { ms: 300, whenLate: { tool: 'wait' } } });
    const errors: string[] = [];
    w.capsule.on('error', (error) => errors.push(error.code));
    w.capsule.on('decision_late', () => {
      throw new Error('game bug');
    });
    stubModel(w.agent, w.clock, () => 800);
    await run(w.capsule, 600);
    expect(errors).toEqual(['listener_threw']);
    expect(w.ran).toHaveLength(1);
  });
});

describe('a fast agent, no budget, a closed session', () => {
  it('a model faster than the budget is never over it', async () => {
    const w = await world({ budget: { ms: 300, whenLate: { tool: 'wait' } } });
    const model = stubModel(w.agent, w.clock, () => 50);
    await run(w.capsule, 2000);
    expect(model.answeredAt.length).toBeGreaterThan(5);
    expect(w.session.stats.decisions).toEqual({ inBudget: model.answeredAt.length, overBudget: 0 });
    expect(w.late).toEqual([]);
    expect(w.ran).toEqual([]);
    expect(w.told).toEqual([]);
  });

  it('without a budget, decisions are not judged', async () => {
    const w = await world();
    stubModel(w.agent, w.clock, () => 800);
    await run(w.capsule, 1000);
    expect(w.session.stats.decisions).toBeUndefined();
    expect(w.late).toEqual([]);
    expect(w.session.stats.decisionLatencyMs).toBe(800);
  });

  it('a session closed while its agent thinks leaves no budget timer to fire', async () => {
    const w = await world({ budget: { ms: 300, whenLate: { tool: 'wait' } } });
    stubModel(w.agent, w.clock, () => 800);
    await run(w.capsule, 200);
    w.session.close('done');
    await run(w.capsule, 600);
    expect(w.late).toEqual([]);
    expect(w.ran).toEqual([]);
  });
});

describe('DecisionBudgetWatch on a clock whose timers can fire late (wall time)', () => {
  it('counts an action that comes after the budget but before its timer fired as over budget, and applies nothing', () => {
    let now = 0;
    const lateHeard: DecisionLate[] = [];
    const accepted: unknown[] = [];
    // A timer that has not fired yet: wall-time timers run when the event loop gets to them.
    const host = {
      clock: { now: () => now, setTimeout: () => 1, clearTimeout: () => {} },
      decisionLate: (event: DecisionLate) => lateHeard.push(event),
    } as unknown as BudgetHost;
    const session: BudgetedSession = {
      view: { id: 's', character: 'hero' } as SessionView,
      enqueue: () => accepted.push('told'),
      callForIt: (...args) => accepted.push(args),
    };
    const watch = new DecisionBudgetWatch({ ms: 300, whenLate: { tool: 'wait' } }, host, session);
    watch.started(0);
    now = 299;
    watch.ended(299);
    watch.started(400);
    now = 700;
    watch.ended(700);
    expect(watch.counts).toEqual({ inBudget: 1, overBudget: 1 });
    expect(lateHeard).toEqual([]);
    expect(accepted).toEqual([]);
  });
});

describe('ConnectOptions.decisionBudget is checked at connect', () => {
  const bad: Array<[string, unknown, RegExp]> = [
    ['not an object', 300, /decisionBudget must be an object/],
    ['ms of 0', { ms: 0, whenLate: 'hold' }, /decisionBudget\.ms must be a number of ms > 0, got 0/],
    ['ms not a number', { ms: '300', whenLate: 'hold' }, /decisionBudget\.ms must be a number/],
    ['ms infinite', { ms: Infinity, whenLate: 'hold' }, /decisionBudget\.ms/],
    ['tokens not whole', { ms: 300, tokens: 1.5, whenLate: 'hold' }, /decisionBudget\.tokens must be a whole number > 0/],
    ['whenLate missing', { ms: 300 }, /decisionBudget\.whenLate must be 'hold', 'stop' or a default action/],
    ['whenLate an unknown word', { ms: 300, whenLate: 'wait' }, /decisionBudget\.whenLate must be/],
    ['a tool id that is no id', { ms: 300, whenLate: { tool: 'Wait Here' } }, /decisionBudget\.whenLate\.tool must be a tool id/],
    ['a tool not registered', { ms: 300, whenLate: { tool: 'dance' } }, /decisionBudget\.whenLate\.tool "dance" is not a registered tool/],
    ['input not an object', { ms: 300, whenLate: { tool: 'wait', input: [1] } }, /decisionBudget\.whenLate\.input must be a JSON object/],
    ['an unknown field', { ms: 300, whenLate: 'hold', budgetMs: 300 }, /decisionBudget has no field "budgetMs"/],
    ['an unknown field of the action', { ms: 300, whenLate: { tool: 'wait', args: {} } }, /decisionBudget\.whenLate has no field "args"/],
  ];

  it.each(bad)('refuses %s, naming the place, and leaves no session behind', (_name, decisionBudget, message) => {
    const made = makeCapsule({ decisionBudgets: decisionBudgets(), tickMode: 'fixed' });
    capsule = made.capsule;
    made.capsule.registerTool(waitTool(made.clock, []));
    let thrown: unknown;
    try {
      void connectInProcess(made.capsule, { character: 'hero', decisionBudget: decisionBudget as never });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ name: 'CapsuleError', code: 'AICC_INVALID_OPTION', message: expect.stringMatching(/^connect: options\.decisionBudget/) });
    expect((thrown as Error).message).toMatch(message);
    expect(made.capsule.sessions()).toEqual([]);
  });

  it('accepts a token budget (reserved: kept, not judged) and keeps its own copy of the budget', async () => {
    const w = await (async () => {
      const made = makeCapsule({ decisionBudgets: decisionBudgets(), tickMode: 'fixed', tickRateHz: 10 });
      capsule = made.capsule;
      const ran: Array<{ at: number; tick: number; input: JsonObject }> = [];
      made.capsule.registerTool(moveTool());
      made.capsule.registerTool(waitTool(made.clock, ran));
      const budget = { ms: 300, tokens: 2000, whenLate: { tool: 'wait', input: { ms: 1 } as JsonObject } };
      const agent = await connectInProcess(made.capsule, {
        character: 'hero',
        capabilities: { actuators: ['locomotion'] },
        agentModel: { class: 'edge_small', expected_full_response_ms: 0 },
        subscriptions: ['tick'],
        decisionBudget: budget,
      });
      // The game's later edits change nothing.
      budget.ms = 5000;
      budget.whenLate.input['ms'] = 999;
      return { capsule: made.capsule, clock: made.clock, agent, ran };
    })();
    stubModel(w.agent, w.clock, () => 800);
    await run(w.capsule, 600);
    expect(w.ran).toEqual([{ at: 400, tick: 4, input: { ms: 1 } }]);
  });
});

describe('decision budgets are opt-in on aicc-capsule/core', () => {
  it('refuses a budget on a capsule made without them, saying how to get them', () => {
    const { capsule } = makeCapsule();
    const [bridgeEnd] = createMemoryLinkPair();
    expect(() => capsule.connect(bridgeEnd, { character: 'hero', decisionBudget: { ms: 100, whenLate: 'hold' } })).toThrow(
      /connect: options.decisionBudget needs a capsule made with decision budgets: createCapsule\(\{ …, decisionBudgets: decisionBudgets\(\) \}\)/,
    );
    capsule.dispose();
  });

  it('comes with the root entry’s createCapsule', async () => {
    const { createCapsule: createFull, ManualClock: Clock } = await import('../../src/index.js');
    const capsule = createFull({ world: { name: 'Full', kind: 'abstract' }, clock: new Clock(), tickMode: 'event' });
    const [bridgeEnd] = createMemoryLinkPair();
    expect(() => capsule.connect(bridgeEnd, { character: 'hero', decisionBudget: { ms: 100, whenLate: 'hold' } })).not.toThrow();
    capsule.dispose();
  });
});
