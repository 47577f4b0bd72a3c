// Level 3, time and continuity: tick modes, delivery cadence by model class, coalescing, bounded
// queues, heartbeats, a resume that replays exactly what was missed after drops at any point, and
// one seed giving one stream.

import type { AiccMessage } from '../protocol/messages.js';
import type { RawAgent } from './agent.js';
import { CheckContext, CheckFailure, type Check } from './check.js';

const anyObject = { type: 'object' } as const;
const events = (agent: RawAgent, from = 0) => agent.received.slice(from).filter((m): m is Extract<AiccMessage, { type: 'event' }> => m.type === 'event');

export const TIME_CHECKS: readonly Check[] = [
  {
    level: 3,
    id: 'L3.tick_mode',
    title: "calls run when the tick mode says: event at once, fixed at the next tick, hybrid at the next tick unless the call_id starts with '!'",
    needs: ['registerTool', 'advance'],
    async run(context) {
      const { id } = context.tool({ class: 'sensor', description: 'Answers.', input_schema: anyObject, output_schema: anyObject, handler: () => ({}) });
      const { agent, manifest } = await context.open();
      const ask = async (callId: string) => {
        const from = agent.received.length;
        agent.send({ type: 'tool_call', call_id: callId, tool: id, input: {} });
        return (await agent.next(from, (m) => m.type === 'tool_result' && m.call_id === callId, 200)) !== undefined;
      };
      const plainAtOnce = await ask('plain');
      const markedAtOnce = await ask('!marked');
      const expected = { event: [true, true], fixed: [false, false], hybrid: [false, true] }[manifest.tick_mode];
      context.expect(
        plainAtOnce === expected[0] && markedAtOnce === expected[1],
        `${manifest.tick_mode} mode: a plain call answered before a tick: ${plainAtOnce}, a '!' call: ${markedAtOnce}`,
      );
      await context.advance(1000 / manifest.tick_rate_hz + 1);
      const waited = agent.received.filter((m) => m.type === 'tool_result').length;
      context.expect(waited === 2, `after a tick, ${waited} of 2 calls were answered`);
    },
  },
  {
    level: 3,
    id: 'L3.cadence',
    title: 'events reach an edge_small agent every tick and a cloud_large one about once a second, collapsed',
    needs: ['emit', 'advance'],
    async run(context) {
      const names = [`fast_${context.prefix}`, `slow_${context.prefix}`] as const;
      const fast = await context.open({ character: names[0], agentModel: { class: 'edge_small' }, subscriptions: ['agent_message'] });
      const slow = await context.open({ character: names[1], agentModel: { class: 'cloud_large' }, subscriptions: ['agent_message'] });
      let n = 0;
      const step = Math.max(10, 1000 / fast.manifest.tick_rate_hz);
      let fastDeliveries = 0;
      let slowDeliveries = 0;
      for (let t = 0; t < 5000; t += step) {
        context.bridge.emit!('agent_message', { from: 'conformance', text: String(++n) }, { to: [...names] });
        const [f, s] = [events(fast.agent).length, events(slow.agent).length];
        await context.advance(step, step);
        if (events(fast.agent).length > f) fastDeliveries++;
        if (events(slow.agent).length > s) slowDeliveries++;
      }
      const steps = Math.ceil(5000 / step);
      await context.advance(2500, step); // the slow agent's last delivery is up to a second away
      context.expect(fastDeliveries >= steps * 0.9, `edge_small: ${fastDeliveries} deliveries in ${steps} steps of ${step} ms`);
      context.expect(
        slowDeliveries >= 3 && slowDeliveries <= 7,
        `cloud_large: ${slowDeliveries} deliveries in 5 s (about 5 expected: a quarter of its 4,000 ms budget)`,
      );
      context.expect(
        events(slow.agent).length === n && events(fast.agent).length === n,
        `messages are not dropped by cadence: fast ${events(fast.agent).length}, slow ${events(slow.agent).length} of ${n}`,
      );
    },
  },
  {
    level: 3,
    id: 'L3.coalescing',
    title: 'while events wait, ticks collapse into one (ticks > 1) and a state_change replaces the waiting one for the same entity and field',
    needs: ['emit', 'advance'],
    async run(context) {
      const { agent, manifest } = await context.open({ agentModel: { class: 'cloud_large' }, subscriptions: ['tick', 'state_change'] });
      const from = agent.received.length;
      for (let i = 0; i < 5; i++) context.bridge.emit!('state_change', { entity: `x_${context.prefix}`, field: 'hp', value: i });
      await context.advance(2000, 1000 / manifest.tick_rate_hz);
      const got = events(agent, from);
      const changes = got.filter((e) => e.topic === 'state_change' && (e.payload as { entity: string }).entity === `x_${context.prefix}`);
      context.expect(changes.length >= 1 && changes.length < 5, `${changes.length} state_changes of 5 for one entity and field arrived (they should coalesce)`);
      context.expect((changes.at(-1)!.payload as { value: number }).value === 4, 'the last value did not win');
      // An event-mode world ticks only on actions: it has no ticks to collapse here.
      if (manifest.tick_mode !== 'event') {
        const ticks = got.filter((e) => e.topic === 'tick');
        context.expect(
          ticks.some((e) => Number((e.payload as { ticks?: number }).ticks ?? 1) > 1),
          `no collapsed tick event (ticks > 1) among ${ticks.length}`,
        );
      }
    },
  },
  {
    level: 3,
    id: 'L3.bounded_queue',
    title: 'a burst beyond the event queue is bounded: what is dropped is counted in meta.dropped_events',
    needs: ['emit', 'advance'],
    async run(context) {
      const { agent } = await context.open({ agentModel: { class: 'cloud_large' }, subscriptions: ['audio'] });
      const burst = 5000;
      for (let i = 0; i < burst; i++) context.bridge.emit!('audio', { source: `s_${context.prefix}`, sound: String(i) });
      await context.advance(3000, 100);
      const got = events(agent).filter((e) => e.topic === 'audio');
      const dropped = got.reduce((sum, e) => sum + Number((e.meta as { dropped_events?: number } | undefined)?.dropped_events ?? 0), 0);
      context.expect(got.length < burst, `all ${burst} events were queued and delivered: the queue has no bound`);
      context.expect(got.length + dropped === burst, `${got.length} delivered + ${dropped} reported dropped ≠ ${burst} emitted`);
    },
  },
  {
    level: 3,
    id: 'L3.heartbeat',
    title: 'the bridge sends heartbeats while the agent is quiet, and drops the link of an agent silent past its dead-peer timeout',
    needs: ['advance'],
    async run(context) {
      const { agent } = await context.open();
      const from = agent.received.length;
      for (let t = 0; t < 60_000 && agent.closedWith === undefined; t += 1000) {
        context.bridge.advance!(1000);
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      context.expect(
        agent.received.slice(from).some((m) => m.type === 'heartbeat'),
        'no heartbeat in a quiet minute',
      );
      context.expect(agent.closedWith !== undefined, 'a silent agent was never dropped in 60 s');
    },
  },
  {
    level: 3,
    id: 'L3.resume',
    title: 'after drops at any point, a resume replays exactly what was missed: nothing lost, nothing twice, no call run twice',
    needs: ['registerTool', 'emit', 'advance', 'reopen'],
    async run(context) {
      let runs = 0;
      const { id } = context.tool({
        class: 'actuator',
        description: 'Counts.',
        input_schema: anyObject,
        output_schema: anyObject,
        handler: () => ({ run: ++runs }),
      });
      const first = await context.open({ agentModel: { class: 'edge_small' }, subscriptions: ['agent_message'] });
      const sessionId = first.agent.sessionId;
      let agent = first.agent;
      const held: AiccMessage[] = [...agent.received];
      const hold = (from: RawAgent, start: number) => {
        for (const m of from.received.slice(start)) if (!held.some((h) => h.message_id === m.message_id)) held.push(m);
      };
      let emitted = 0;
      for (let drop = 0; drop < 5; drop++) {
        agent.send({ type: 'tool_call', call_id: `!r${drop}`, tool: id, input: {} });
        context.bridge.emit!('agent_message', { from: 'conformance', text: String(++emitted) });
        await context.advance(100, 50);
        hold(agent, 0);
        agent.close(); // dropped after the bridge answered, before the agent said it holds it
        context.bridge.emit!('agent_message', { from: 'conformance', text: String(++emitted) }); // sent while down
        await context.advance(100, 50);
        const next = await context.reopen();
        next.sessionId = sessionId;
        next.send({ type: 'session_resume', message_id: held.at(-1)!.message_id });
        const confirmed = await next.next(0, (m) => m.type === 'heartbeat' && m.manifest_update === undefined);
        if (confirmed === undefined)
          throw new CheckFailure(`resume ${drop + 1}: no confirming heartbeat (${next.received.map((m) => m.type).join(', ') || 'nothing'})`);
        await context.advance(100, 50);
        hold(next, 0);
        agent = next;
      }
      const texts = held.filter((m) => m.type === 'event').map((m) => String((m as { payload: Record<string, unknown> }).payload['text']));
      context.expect(new Set(texts).size === texts.length, `an event arrived twice: ${texts.join(', ')}`);
      context.expect(texts.length === emitted, `${texts.length} of ${emitted} events arrived`);
      const results = held.filter((m) => m.type === 'tool_result');
      context.expect(results.length === 5 && runs === 5, `${results.length} results, ${runs} runs for 5 calls`);
    },
  },
  {
    level: 3,
    id: 'L3.same_seed',
    title: 'one seed, one stream: two bridges made alike and driven alike send the same messages',
    needs: ['factory', 'registerTool', 'emit', 'advance'],
    async run(context) {
      const streams: string[] = [];
      for (let run = 0; run < 2; run++) {
        const bridge = await context.factory!();
        const twin = new CheckContext(bridge, undefined, 'twin', context.waitMs);
        try {
          const { id } = twin.tool({
            class: 'sensor',
            description: 'Echoes.',
            input_schema: anyObject,
            output_schema: anyObject,
            handler: (input: Record<string, unknown>) => ({ echo: input }),
          });
          const { agent } = await twin.open({ character: 'twin', subscriptions: ['state_change', 'agent_message'] });
          for (let i = 0; i < 10; i++) {
            agent.send({ type: 'tool_call', call_id: `!s${i}`, tool: id, input: { i } });
            bridge.emit!('state_change', { entity: 'twin', field: 'i', value: i });
            await twin.advance(100, 50);
          }
          streams.push(agent.received.map((m) => JSON.stringify(m)).join('\n'));
        } finally {
          twin.dispose();
          await bridge.close?.();
        }
      }
      context.expect(streams[0] === streams[1], 'two runs from one seed sent different streams (a random id or clock leaks in)');
    },
  },
];
