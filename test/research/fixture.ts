// A tiny world for the research tests: one counter per agent, a `bump` tool that adds to it, and
// agents that bump on every tick with a seeded chance. Small enough that an episode takes a few ms.

import { createCapsule } from '../../src/index.js';
import { ManualClock } from '../../src/base/clock.js';
import { defineWorld } from '../../src/research/world.js';

export const counterWorld = defineWorld({
  name: 'counters',
  params: { agents: 2, chance: 0.5, goal: 1000, label: 'c', eager: false },
  maxTicks: 50,
  setup({ params, random }) {
    const clock = new ManualClock();
    const capsule = createCapsule({
      world: { name: 'Counters', kind: 'abstract' },
      clock,
      tickMode: 'fixed',
      tickRateHz: 10,
      randomBytes: random.fork('ids').bytes,
    });
    const counts = new Map<string, number>();
    capsule.registerTool({
      id: 'bump',
      class: 'actuator',
      description: 'Adds one to your counter.',
      input_schema: { type: 'object', properties: {}, additionalProperties: false },
      output_schema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
      handler: (_input, context) => {
        const count = (counts.get(context.character) ?? 0) + 1;
        counts.set(context.character, count);
        return { count };
      },
    });
    const characters = Array.from({ length: params.agents }, (_, i) => `${params.label}${i}`);
    for (const character of characters) counts.set(character, 0);
    const total = () => [...counts.values()].reduce((a, b) => a + b, 0);
    return {
      capsule,
      agents: Object.fromEntries(characters.map((character) => [character, { subscriptions: ['tick'] }])),
      policy({ client, random: own }) {
        client.on('tick', () => {
          if (params.eager || own.next() < params.chance) void client.call('bump', {});
        });
      },
      metrics: () => ({ total: total(), most: Math.max(...counts.values()) }),
      score: (character) => counts.get(character) ?? 0,
      stop: () => (total() >= params.goal ? 'goal' : undefined),
      state: () => ({ tick: capsule.tick, counts: Object.fromEntries(counts) }),
    };
  },
});
