// Tools checked by Standard Schema validators (zod 4, valibot) instead of JSON Schema: the validator
// decides and its output is what the handler gets; agents read the JSON Schema, given or converted.

import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import type { HostError } from '../../src/runtime/calls.js';
import { createCapsule } from '../../src/runtime/capsule.js';
import { precompiledValidators } from '../../src/validators/precompiled.js';
import { connectAgent, makeCapsule } from '../helpers.js';

const jump = {
  id: 'jump',
  class: 'actuator',
  description: 'Jump.',
  input_validator: z.object({ height: z.number().max(3), times: z.number().int().default(1) }),
  output_validator: z.object({ landed: z.boolean() }),
} as const;

describe('a tool checked by a Standard Schema validator', () => {
  it('hands the validator output to the handler: defaults filled in', async () => {
    const { capsule, clock } = makeCapsule();
    const handled: unknown[] = [];
    capsule.registerTool({ ...jump, handler: (input) => (handled.push(input), { landed: true }) });
    const { agent } = await connectAgent(capsule, clock);
    expect(await agent.call('jump', { height: 2 })).toMatchObject({ ok: true, output: { landed: true } });
    expect(handled).toEqual([{ height: 2, times: 1 }]);
  });

  it('refuses what the validator refuses as invalid_input, naming the field, without running the handler', async () => {
    const { capsule, clock } = makeCapsule();
    const handler = vi.fn(() => ({ landed: true }));
    capsule.registerTool({ ...jump, handler });
    const { agent } = await connectAgent(capsule, clock);
    const result = await agent.call('jump', { height: 9 });
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_input', retryable: false } });
    expect(result.ok || result.error.message).toMatch(/^jump: input\.height: .*3/);
    expect(handler).not.toHaveBeenCalled();
  });

  it('shows agents the JSON Schema zod converts itself to', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool({ ...jump, handler: () => ({ landed: true }) });
    const { agent } = await connectAgent(capsule, clock);
    const tool = agent.manifest.tools.find((each) => each.id === 'jump')!;
    expect(tool.input_schema).toMatchObject({ type: 'object', properties: { height: { type: 'number', maximum: 3 } }, required: ['height'] });
    expect(tool.input_schema).not.toHaveProperty('$schema');
    expect(tool.output_schema).toMatchObject({ type: 'object', properties: { landed: { type: 'boolean' } } });
  });

  it('checks the output with output_validator: an output it refuses is output_invalid, and the game is told', async () => {
    const { capsule, clock } = makeCapsule();
    const errors: HostError[] = [];
    capsule.on('error', (error) => errors.push(error));
    capsule.registerTool({ ...jump, handler: () => ({ landed: 'yes' }) as never });
    const { agent } = await connectAgent(capsule, clock);
    expect(await agent.call('jump', { height: 1 })).toMatchObject({ ok: false, error: { code: 'internal_error' } });
    expect(errors).toMatchObject([{ code: 'output_invalid', tool: 'jump' }]);
    expect(errors[0]!.message).toMatch(/output\.landed/);
  });

  it('needs no JSON Schema compiler: a capsule with no validators for its schemas runs it', async () => {
    const { capsule, clock } = makeCapsule({ validators: precompiledValidators({ validators: {} }) });
    capsule.registerTool({ ...jump, handler: () => ({ landed: true }) });
    const { agent } = await connectAgent(capsule, clock);
    expect(await agent.call('jump', { height: 1 })).toMatchObject({ ok: true });
  });

  it('takes valibot with its JSON Schema beside it, and says to give one when it is missing', async () => {
    const { capsule, clock } = makeCapsule();
    const wave = {
      id: 'wave',
      class: 'actuator',
      description: 'Wave.',
      input_validator: v.object({ hand: v.picklist(['left', 'right']) }),
      output_schema: { type: 'object' },
    } as const;
    expect(() => capsule.registerTool({ ...wave, handler: () => ({}) })).toThrow(
      /input_validator \(valibot\) does not convert itself to JSON Schema; give input_schema too/,
    );
    capsule.registerTool({
      ...wave,
      input_schema: { type: 'object', properties: { hand: { enum: ['left', 'right'] } }, required: ['hand'] },
      handler: (input) => ({ waved: input.hand }),
    });
    const { agent } = await connectAgent(capsule, clock);
    expect(await agent.call('wave', { hand: 'left' })).toMatchObject({ ok: true, output: { waved: 'left' } });
    const refused = await agent.call('wave', { hand: 'both' });
    expect(refused.ok || refused.error.message).toMatch(/^wave: input\.hand: /);
  });

  it("fails a call whose validator answers asynchronously as the game's fault, saying what to change", async () => {
    const { capsule, clock } = makeCapsule();
    const errors: HostError[] = [];
    capsule.on('error', (error) => errors.push(error));
    const handler = vi.fn(() => ({ landed: true }));
    const later = z.object({ height: z.number() }).refine(async () => true);
    capsule.registerTool({ ...jump, input_validator: later, handler });
    const { agent } = await connectAgent(capsule, clock);
    expect(await agent.call('jump', { height: 1 })).toMatchObject({ ok: false, error: { code: 'execution_failed' } });
    expect(errors[0]!.message).toMatch(/input_validator answered asynchronously/);
    expect(handler).not.toHaveBeenCalled();
  });

  it('refuses at registration a validator that is not a Standard Schema, and a tool with neither schema nor validator', () => {
    const capsule = createCapsule({ world: { name: 'Testland', kind: 'abstract' }, validators: precompiledValidators({ validators: {} }) });
    expect(() => capsule.registerTool({ ...jump, input_validator: { parse: () => ({}) } as never, handler: () => ({ landed: true }) })).toThrow(
      /input_validator must be a Standard Schema validator/,
    );
    expect(() =>
      capsule.registerTool({ id: 'bare', class: 'sensor', description: 'Bare.', output_schema: { type: 'object' }, handler: () => ({}) } as never),
    ).toThrow(/input_schema must be a JSON Schema object \(or give input_validator/);
  });
});
