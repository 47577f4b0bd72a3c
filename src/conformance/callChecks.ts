// Level 2, calls: each refusal of PROTOCOL.md's table at its edge — limits at exactly N and N+1,
// capabilities, strict input, disabled tools, repeated call_ids, timeouts, failures — with the
// code and retryable the table gives, and the meta every result carries.

import { CheckFailure, type Check, type CheckContext } from './check.js';
import type { RawAgent } from './agent.js';

const anyObject = { type: 'object' } as const;

/** A call in a fixed or hybrid world waits for a tick: `!` asks hybrid for now; fixed needs time. */
async function served(context: CheckContext, agent: RawAgent, tool: string, input: unknown, callId?: string) {
  const id = callId ?? `c${Math.random().toString(36).slice(2, 10)}`;
  const immediate = id.startsWith('!') ? id : `!${id}`;
  const from = agent.received.length;
  agent.send({ type: 'tool_call', call_id: immediate, tool, input });
  let result = await agent.next(from, (m) => m.type === 'tool_result' && m.call_id === immediate, context.bridge.advance ? 30 : agent.waitMs);
  if (result === undefined && context.bridge.advance) {
    await context.advance(200, 50); // a fixed-mode world runs it at its next tick
    result = await agent.next(from, (m) => m.type === 'tool_result' && m.call_id === immediate);
  }
  if (result === undefined || result.type !== 'tool_result') throw new CheckFailure(`no tool_result for ${tool} (call_id ${immediate})`);
  return result;
}

const counter = () => {
  let runs = 0;
  return { handler: () => ({ runs: ++runs }), runs: () => runs };
};

export const CALL_CHECKS: readonly Check[] = [
  {
    level: 2,
    id: 'L2.unknown_tool',
    title: 'an unknown tool is refused tool_unknown, not retryable',
    async run(context) {
      const { agent } = await context.open();
      context.refused(await served(context, agent, 'no_such_tool_anywhere', {}), 'tool_unknown', false, 'unknown tool');
    },
  },
  {
    level: 2,
    id: 'L2.meta',
    title: 'every tool_result carries meta { tick, latency_ms, source }: handler, bridge or cache',
    needs: ['registerTool'],
    async run(context) {
      const { id } = context.tool({ class: 'sensor', description: 'Answers.', input_schema: anyObject, output_schema: anyObject, handler: () => ({}) });
      const { agent } = await context.open();
      const ok = await served(context, agent, id, {}, 'm1');
      const again = await served(context, agent, id, {}, 'm1');
      const refused = await served(context, agent, 'no_such_tool_anywhere', {});
      for (const [result, source] of [
        [ok, 'handler'],
        [again, 'cache'],
        [refused, 'bridge'],
      ] as const) {
        const meta = result.meta as Record<string, unknown> | undefined;
        context.expect(Number.isInteger(meta?.['tick']) && Number.isInteger(meta?.['latency_ms']), `meta lacks tick or latency_ms: ${JSON.stringify(meta)}`);
        context.expect(meta?.['source'] === source, `meta.source ${String(meta?.['source'])}, expected ${source}`);
      }
    },
  },
  {
    level: 2,
    id: 'L2.disabled',
    title: 'a disabled tool is refused tool_unavailable, retryable, and served again once enabled',
    needs: ['registerTool'],
    async run(context) {
      const { id, handle } = context.tool({
        class: 'sensor',
        description: 'Sometimes off.',
        input_schema: anyObject,
        output_schema: anyObject,
        handler: () => ({}),
      });
      const { agent } = await context.open();
      handle.disable();
      context.refused(await served(context, agent, id, {}, 'd1'), 'tool_unavailable', true, 'disabled tool');
      handle.enable();
      const retry = await served(context, agent, id, {}, 'd1');
      context.expect(retry.ok, `a retry with the same call_id after the tool was enabled: ${retry.error?.code} (a retryable refusal must not be cached)`);
    },
  },
  {
    level: 2,
    id: 'L2.capability',
    title: 'a tool whose capability the session lacks is refused tool_unavailable, not retryable; one that holds it is served',
    needs: ['registerTool'],
    async run(context) {
      const { id } = context.tool({
        class: 'actuator',
        description: 'Needs wings.',
        input_schema: anyObject,
        output_schema: anyObject,
        requires_capability: 'wings',
        handler: () => ({}),
      });
      const { agent } = await context.open({ capabilities: { actuators: ['legs'] } });
      context.refused(await served(context, agent, id, {}), 'tool_unavailable', false, 'capability missing');
      const { agent: winged } = await context.open({ character: `winged_${context.prefix}`, capabilities: { actuators: ['wings'] } });
      context.expect((await served(context, winged, id, {})).ok, 'a session holding the capability was refused');
    },
  },
  {
    level: 2,
    id: 'L2.calls_per_minute',
    title: 'calls_per_minute N: N calls served, call N+1 refused tool_unavailable (retryable), served again once the minute has passed',
    needs: ['registerTool', 'advance'],
    async run(context) {
      const n = 3;
      const { id } = context.tool({
        class: 'sensor',
        description: 'Limited.',
        input_schema: anyObject,
        output_schema: anyObject,
        limits: { calls_per_minute: n },
        handler: () => ({}),
      });
      const { agent } = await context.open();
      for (let i = 1; i <= n; i++) context.expect((await served(context, agent, id, {})).ok, `call ${i} of ${n} was refused`);
      context.refused(await served(context, agent, id, {}), 'tool_unavailable', true, `call ${n + 1}`);
      await context.advance(60_000, 1000);
      context.expect((await served(context, agent, id, {})).ok, 'refused again after the minute passed');
    },
  },
  {
    level: 2,
    id: 'L2.calls_per_session',
    title: 'calls_per_session N: N calls served, call N+1 refused tool_unavailable, not retryable',
    needs: ['registerTool'],
    async run(context) {
      const n = 2;
      const { id } = context.tool({
        class: 'sensor',
        description: 'A quota.',
        input_schema: anyObject,
        output_schema: anyObject,
        limits: { calls_per_session: n },
        handler: () => ({}),
      });
      const { agent } = await context.open();
      for (let i = 1; i <= n; i++) context.expect((await served(context, agent, id, {})).ok, `call ${i} of ${n} was refused`);
      context.refused(await served(context, agent, id, {}), 'tool_unavailable', false, `call ${n + 1}`);
    },
  },
  {
    level: 2,
    id: 'L2.refusals_cost_nothing',
    title: 'a refused call (invalid input) uses no quota',
    needs: ['registerTool'],
    async run(context) {
      const { id } = context.tool({
        class: 'sensor',
        description: 'A quota of one.',
        input_schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
        output_schema: anyObject,
        limits: { calls_per_session: 1 },
        handler: () => ({}),
      });
      const { agent } = await context.open();
      for (let i = 0; i < 3; i++) context.refused(await served(context, agent, id, { n: 'x' }), 'invalid_input', false, 'invalid input');
      context.expect((await served(context, agent, id, { n: 1 })).ok, 'the one allowed call was refused after refused ones');
    },
  },
  {
    level: 2,
    id: 'L2.invalid_input',
    title: 'input that breaks input_schema is refused invalid_input, naming the field',
    needs: ['registerTool'],
    async run(context) {
      const { id } = context.tool({
        class: 'sensor',
        description: 'Wants x.',
        input_schema: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
        output_schema: anyObject,
        handler: () => ({}),
      });
      const { agent } = await context.open();
      const result = await served(context, agent, id, {});
      context.refused(result, 'invalid_input', false, 'missing field');
      context.expect(result.error?.message.includes('x') === true, `the refusal does not name the field: ${result.error?.message}`);
    },
  },
  {
    level: 2,
    id: 'L2.strict_input',
    title: 'strict_input refuses an undeclared field, naming it; without it the field is ignored',
    needs: ['registerTool'],
    async run(context) {
      const schema = { type: 'object', properties: { x: { type: 'number' } } } as const;
      const strict = context.tool({
        class: 'sensor',
        description: 'Strict.',
        input_schema: schema,
        output_schema: anyObject,
        strict_input: true,
        handler: () => ({}),
      });
      const loose = context.tool({ class: 'sensor', description: 'Loose.', input_schema: schema, output_schema: anyObject, handler: () => ({}) });
      const { agent } = await context.open();
      const refused = await served(context, agent, strict.id, { x: 1, sneaky: true });
      context.refused(refused, 'invalid_input', false, 'undeclared field under strict_input');
      context.expect(refused.error?.message.includes('sneaky') === true, `the refusal does not name the field: ${refused.error?.message}`);
      context.expect((await served(context, agent, loose.id, { x: 1, sneaky: true })).ok, 'an undeclared field was refused without strict_input');
    },
  },
  {
    level: 2,
    id: 'L2.repeated_call_id',
    title: 'a repeated call_id is answered with the first result from the cache; the handler runs once',
    needs: ['registerTool'],
    async run(context) {
      const count = counter();
      const { id } = context.tool({ class: 'actuator', description: 'Counts.', input_schema: anyObject, output_schema: anyObject, handler: count.handler });
      const { agent } = await context.open();
      const first = await served(context, agent, id, {}, 'same');
      const second = await served(context, agent, id, {}, 'same');
      context.expect(count.runs() === 1, `the handler ran ${count.runs()} times`);
      context.expect(JSON.stringify(first.output) === JSON.stringify(second.output), 'the repeat got another output');
      context.expect(first.message_id !== second.message_id, 'the repeat reused the first message_id');
    },
  },
  {
    level: 2,
    id: 'L2.timeout',
    title: 'a handler past its timeout is refused timeout (retryable); a retry gets the late result, never a second run',
    needs: ['registerTool', 'advance'],
    async run(context) {
      const count = counter();
      let finish: (() => void) | undefined;
      const { id } = context.tool({
        class: 'actuator',
        description: 'Slow.',
        input_schema: anyObject,
        output_schema: anyObject,
        timeout_ms: 100,
        handler: () => new Promise((resolve) => (finish = () => resolve(count.handler()))),
      });
      const { agent } = await context.open();
      const from = agent.received.length;
      agent.send({ type: 'tool_call', call_id: '!slow', tool: id, input: {} });
      await context.advance(300, 50);
      const timedOut = await agent.next(from, (m) => m.type === 'tool_result' && m.call_id === '!slow');
      if (timedOut === undefined || timedOut.type !== 'tool_result') throw new CheckFailure('no result for a call past its timeout');
      context.refused(timedOut, 'timeout', true, 'a call past its timeout');
      finish?.();
      await new Promise((resolve) => setTimeout(resolve, 0));
      const retry = await served(context, agent, id, {}, '!slow');
      context.expect(count.runs() === 1, `the handler ran ${count.runs()} times for one call_id`);
      context.expect(retry.ok, `the retry after the late result: ${retry.error?.code}`);
    },
  },
  {
    level: 2,
    id: 'L2.execution_failed',
    title: 'a handler that throws is refused execution_failed with its first line, never a stack',
    needs: ['registerTool'],
    async run(context) {
      const { id } = context.tool({
        class: 'sensor',
        description: 'Breaks.',
        input_schema: anyObject,
        output_schema: anyObject,
        handler: () => {
          throw new Error('the well is dry\n    at secretFunction (/srv/game.js:1:1)');
        },
      });
      const { agent } = await context.open();
      const result = await served(context, agent, id, {});
      context.refused(result, 'execution_failed', false, 'a throwing handler');
      context.expect(!result.error!.message.includes('secretFunction'), `the refusal carries a stack: ${result.error!.message}`);
    },
  },
  {
    level: 2,
    id: 'L2.output_invalid',
    title: "output that breaks output_schema is the game's bug: refused internal_error",
    needs: ['registerTool'],
    async run(context) {
      const { id } = context.tool({
        class: 'sensor',
        description: 'Lies.',
        input_schema: anyObject,
        output_schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
        handler: () => ({ n: 'many' }),
      });
      const { agent } = await context.open();
      context.refused(await served(context, agent, id, {}), 'internal_error', false, 'an invalid output');
    },
  },
];
