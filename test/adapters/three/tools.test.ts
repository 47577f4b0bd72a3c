import { Scene } from 'three';
import { describe, expect, it } from 'vitest';
import { CapsuleBinding, threeTools, THREE_TOOL_NAMES } from '../../../src/adapters/three/index.js';
import { inViewTool, lookAheadTool, moveToTool, nearbyTool } from '../../../src/adapters/three/toolsEntry.js';
import { CapsuleError } from '../../../src/base/errors.js';
import { makeCapsule, settle } from '../../helpers.js';
import { at, frames, ok, play, stage } from './fixture.js';

function binding(): CapsuleBinding {
  return new CapsuleBinding(makeCapsule().capsule, new Scene());
}

function refusal(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof CapsuleError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a CapsuleError');
}

describe('threeTools', () => {
  it('makes every tool, sensors then actuators, each with schemas, a limit and a capability', () => {
    const tools = threeTools(binding());
    expect(tools.map((tool) => tool.id)).toEqual([...THREE_TOOL_NAMES]);
    for (const tool of tools) {
      expect(tool.strict_input, tool.id).toBe(true);
      expect(tool.limits?.calls_per_minute, tool.id).toBeGreaterThan(0);
      expect(typeof tool.requires_capability, tool.id).toBe('string');
      expect(tool.input_schema['type'], tool.id).toBe('object');
      expect(tool.output_schema['type'], tool.id).toBe('object');
    }
    expect(tools.filter((tool) => tool.class === 'sensor').map((tool) => tool.id)).toEqual(['position', 'nearby', 'look_ahead', 'line_of_sight', 'in_view']);
  });

  it('refuses bad factory options at once, naming the factory and the option', () => {
    const b = binding();
    expect(refusal(() => moveToTool(b, { speed: -1 }))).toEqual({
      code: 'AICC_INVALID_OPTION',
      message: 'moveToTool: speed must be a finite number > 0, got -1',
    });
    expect(refusal(() => moveToTool(b, { area: { minX: 5, maxX: -5, minZ: 0, maxZ: 1 } })).message).toMatch(/^moveToTool: area needs finite minX <= maxX/);
    expect(refusal(() => inViewTool(b, { fov: 180 })).message).toBe('inViewTool: fov must be below 180 degrees, got 180');
    expect(refusal(() => nearbyTool(b, { maxResults: 0 })).message).toBe('nearbyTool: maxResults must be an integer >= 1, got 0');
    expect(refusal(() => lookAheadTool(b, { range: Number.POSITIVE_INFINITY })).message).toBe('lookAheadTool: range must be a finite number > 0, got Infinity');
  });

  it('a default larger than its maximum is brought down to it, and the schema says so', () => {
    const tool = nearbyTool(binding(), { radius: 50, maxRadius: 10 });
    expect((tool.input_schema['properties'] as Record<string, object>)['radius']).toMatchObject({ maximum: 10 });
    expect(tool.description).toContain('default 10, at most 10 units');
  });
});

describe('move_to with turnSpeed 0', () => {
  it('walks without turning', async () => {
    const s = stage({ binding: { tools: { overrides: { move_to: { turnSpeed: 0 } } } } });
    const ada = (await play(s, 'ada')).agent;
    const walk = ada.call('move_to', { x: 1, z: 0 });
    await settle();
    await frames(s.binding, 6, 100);
    expect(ok(await walk)).toMatchObject({ arrived: true, heading: 0 });
    expect(at(s.ada)).toEqual({ x: 1, z: 0 });
  });
});
