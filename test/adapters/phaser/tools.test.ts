// phaserTools: which tools, in what order, with the game's overrides; mistakes are CapsuleErrors.

import { describe, expect, it } from 'vitest';
import { PHASER_TOOL_NAMES, phaserTools, type SceneWorld } from '../../../src/adapters/phaser/index.js';

/** Enough of a scene for building definitions (the handlers are not run here). */
const world = { perceptionRadius: 250, entities: { templates: () => [] } } as unknown as SceneWorld;

describe('phaserTools', () => {
  it('makes every tool by default, sensors then actuators then the generator, each strict with limits and a capability', () => {
    const tools = phaserTools(world);
    expect(tools.map((tool) => tool.id)).toEqual([...PHASER_TOOL_NAMES]);
    expect(tools.map((tool) => tool.class)).toEqual(['sensor', 'sensor', 'sensor', 'actuator', 'actuator', 'actuator', 'actuator', 'actuator', 'generator']);
    for (const tool of tools) {
      expect(tool.strict_input, tool.id).toBe(true);
      expect(tool.limits?.calls_per_minute, tool.id).toBeGreaterThan(0);
      expect(typeof tool.requires_capability, tool.id).toBe('string');
    }
    expect(tools.find((tool) => tool.id === 'nearby')!.input_schema).toMatchObject({ properties: { radius: { maximum: 250 } } });
  });

  it('takes only some, and overrides of id, limits and capability', () => {
    const tools = phaserTools(world, {
      only: ['say', 'move_to'],
      overrides: { say: { id: 'speak', limits: { calls_per_minute: 5 }, requires_capability: 'mouth' } },
    });
    expect(tools.map((tool) => [tool.id, tool.limits, tool.requires_capability])).toEqual([
      ['move_to', { calls_per_minute: 60 }, 'legs'],
      ['speak', { calls_per_minute: 5 }, 'mouth'],
    ]);
  });

  it('refuses names that are not Phaser tools', () => {
    expect(() => phaserTools(world, { only: ['look' as never] })).toThrow(
      expect.objectContaining({ code: 'AICC_INVALID_OPTION', message: expect.stringContaining('options.only names "look"') }),
    );
    expect(() => phaserTools(world, { overrides: { jump: {} } as never })).toThrow(/options.overrides names "jump"/);
  });
});
