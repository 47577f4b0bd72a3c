import { describe, expect, it } from 'vitest';
import type { CallOutcome } from '../../../src/agent/agentClient.js';
import type { Capabilities, JsonObject } from '../../../src/protocol/messages.js';
import { CapsuleError } from '../../../src/base/errors.js';
import { TEXT_TOOL_NAMES, textTools, type TextWorld } from '../../../src/adapters/text/index.js';
import { makeCapsule, pass } from '../../helpers.js';
import { ALL_CAPABILITIES, millWorld, play } from './fixture.js';

async function setup(character = 'wren', capabilities: Partial<Capabilities> = ALL_CAPABILITIES, world: TextWorld = millWorld()) {
  const { capsule, clock } = makeCapsule({ world: { name: 'The Mill', kind: 'text' } });
  for (const tool of textTools(world)) capsule.registerTool(tool);
  const { agent } = await play(capsule, clock, character, capabilities);
  return { capsule, clock, world, agent };
}

function failure(outcome: CallOutcome) {
  if (outcome.ok) throw new Error(`expected a refusal, got ${JSON.stringify(outcome.output)}`);
  return outcome.error;
}

function output(outcome: CallOutcome): JsonObject {
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.error.code}: ${outcome.error.message}`);
  return outcome.output;
}

function mentionsAdditionalProperties(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  return Object.entries(schema).some(([key, value]) => key === 'additionalProperties' || mentionsAdditionalProperties(value));
}

describe('the text tools in the manifest', () => {
  it('declare class, capability, limits and strict input, with additionalProperties left to strict_input', async () => {
    const { agent } = await setup();
    const summary = agent.manifest.tools.map((t) => [t.id, t.class, t.requires_capability, t.limits?.calls_per_minute]);
    expect(summary).toEqual([
      ['look', 'sensor', 'sight', 60],
      ['inspect', 'sensor', 'sight', 60],
      ['who', 'sensor', 'hearing', 60],
      ['go', 'actuator', 'legs', 30],
      ['take', 'actuator', 'hands', 30],
      ['drop', 'actuator', 'hands', 30],
      ['give', 'actuator', 'hands', 20],
      ['say', 'actuator', 'voice', 20],
      ['compose', 'generator', 'quill', 10],
    ]);
    for (const tool of agent.manifest.tools) {
      expect(tool.strict_input, tool.id).toBe(true);
      expect(mentionsAdditionalProperties(tool.input_schema), tool.id).toBe(false);
      expect(tool.description.length, tool.id).toBeGreaterThan(20);
    }
  });

  it('textTools picks a subset and applies overrides; it refuses names it does not know', () => {
    const world = millWorld();
    const tools = textTools(world, {
      only: ['say', 'look'],
      overrides: { say: { id: 'speak', limits: { calls_per_minute: 5 }, requires_capability: 'mouth' } },
    });
    expect(tools.map((t) => [t.id, t.limits, t.requires_capability])).toEqual([
      ['look', { calls_per_minute: 60 }, 'sight'],
      ['speak', { calls_per_minute: 5 }, 'mouth'],
    ]);
    expect(TEXT_TOOL_NAMES).toHaveLength(9);
    expect(() => textTools(world, { only: ['fly' as 'go'] })).toThrow(CapsuleError);
    expect(() => textTools(world, { overrides: { fly: {} } as object })).toThrow(/options\.overrides names "fly", which is not a text tool/);
  });
});

describe('sensors', () => {
  it('look describes the room, its exits, items and the others present', async () => {
    const { agent } = await setup();
    expect(output(await agent.call('look'))).toEqual({
      id: 'mill',
      name: 'The Mill',
      description: 'Flour dust hangs in the air.',
      exits: [
        { direction: 'north', to: 'Meadow' },
        { direction: 'west', to: 'The Yard' },
      ],
      items: [
        { id: 'lantern', name: 'lantern' },
        { id: 'millstone', name: 'millstone' },
      ],
      characters: [{ id: 'mira', name: 'Mira', role: 'miller' }],
      carrying: [],
      text: 'The Mill. Flour dust hangs in the air. Exits: north (Meadow), west (The Yard). You see: lantern, millstone. Here: Mira (miller).',
    });
    expect(failure(await agent.call('look', { verbose: true }))).toMatchObject({
      code: 'invalid_input',
      message: 'look: input.verbose is not a declared field',
    });
  });

  it('inspect reaches items in hand or on the floor and characters here, nothing further', async () => {
    const { agent } = await setup();
    expect(output(await agent.call('inspect', { target: 'the Millstone' }))).toMatchObject({
      kind: 'item',
      id: 'millstone',
      carried: false,
      portable: false,
      text: 'Millstone. Far too heavy to lift. It cannot be carried. It lies in The Mill.',
    });
    expect(output(await agent.call('inspect', { target: 'miller' }))).toEqual({
      kind: 'character',
      id: 'mira',
      name: 'Mira',
      description: 'Strong arms, floury apron.',
      role: 'miller',
      carrying: [{ id: 'bread', name: 'loaf of bread' }],
      text: 'Mira, the miller. Strong arms, floury apron. Carrying: loaf of bread.',
    });
    expect(output(await agent.call('inspect', { target: 'me' }))).toMatchObject({ id: 'wren', carrying: [] });
    await agent.call('take', { item: 'lantern' });
    expect(output(await agent.call('inspect', { target: 'lantern' }))).toMatchObject({
      carried: true,
      text: 'Lantern. A brass lantern, unlit. Carried by Wren.',
    });
    for (const target of ['red apple', 'bread']) {
      expect(failure(await agent.call('inspect', { target }))).toEqual({
        code: 'execution_failed',
        retryable: false,
        message: `there is no "${target}" here to inspect; you can inspect: lantern, millstone, Mira`,
      });
    }
    expect(failure(await agent.call('inspect', {}))).toMatchObject({ code: 'invalid_input', message: 'inspect: input.target is required' });
  });

  it('who lists the others here with their roles, by hearing alone', async () => {
    const { agent } = await setup('tom', { sensors: ['hearing'] });
    expect(output(await agent.call('who'))).toEqual({ room: { id: 'meadow', name: 'Meadow' }, characters: [] });
    expect(failure(await agent.call('look'))).toMatchObject({
      code: 'tool_unavailable',
      retryable: false,
      message: 'look requires the sensor capability "sight", which this session does not hold',
    });
    const { agent: wren } = await setup('wren', { sensors: ['hearing'] });
    expect(output(await wren.call('who')).characters).toEqual([{ id: 'mira', name: 'Mira', role: 'miller' }]);
  });
});

describe('actuators', () => {
  it('go walks through an exit; bad input is invalid_input naming the field; a missing exit is execution_failed', async () => {
    const { agent, world } = await setup();
    expect(output(await agent.call('go', { direction: 'west' }))).toEqual({
      direction: 'west',
      from: { id: 'mill', name: 'The Mill' },
      to: { id: 'yard', name: 'The Yard' },
    });
    expect(world.roomOf('wren').id).toBe('yard');
    expect(output(await agent.call('go', { direction: 'E' })).to).toEqual({ id: 'mill', name: 'The Mill' });
    expect(failure(await agent.call('go', {}))).toEqual({ code: 'invalid_input', retryable: false, message: 'go: input.direction is required' });
    expect(failure(await agent.call('go', { direction: 'north', speed: 'run' }))).toMatchObject({
      code: 'invalid_input',
      message: 'go: input.speed is not a declared field',
    });
    expect(failure(await agent.call('go', { direction: 7 }))).toMatchObject({ code: 'invalid_input', message: 'go: input.direction must be string' });
    const blocked = await agent.call('go', { direction: 'east' });
    expect(failure(blocked)).toEqual({ code: 'execution_failed', retryable: false, message: 'there is no exit east from the Mill; exits: north, west' });
    expect(blocked.meta.source).toBe('handler');
    expect(world.roomOf('wren').id).toBe('mill');
  });

  it('take, drop and give move items by the rules, refusing with what the agent can do instead', async () => {
    const { agent, world } = await setup();
    expect(output(await agent.call('take', { item: 'The Lantern' }))).toEqual({
      item: { id: 'lantern', name: 'lantern' },
      carrying: [{ id: 'lantern', name: 'lantern' }],
    });
    expect(failure(await agent.call('take', { item: 'millstone' })).message).toBe('the millstone cannot be taken; it stays where it is');
    expect(failure(await agent.call('take', { item: 'bread' })).message).toBe('Mira has the loaf of bread; ask them to give it to you');
    expect(failure(await agent.call('take', { item: 'apple' })).message).toBe('there is no "apple" here to take; on the floor: millstone');
    expect(failure(await agent.call('give', { item: 'lantern', to: 'Tom' }))).toEqual({
      code: 'execution_failed',
      retryable: false,
      message: 'Tom is not here to give to; here with you: Mira (miller)',
    });
    expect(failure(await agent.call('give', { item: 'lantern' }))).toMatchObject({ code: 'invalid_input', message: 'give: input.to is required' });
    expect(output(await agent.call('give', { item: 'lantern', to: 'the miller' }))).toEqual({
      item: { id: 'lantern', name: 'lantern' },
      to: { id: 'mira', name: 'Mira' },
    });
    expect(world.item('lantern')!.location).toBe('mira');
    expect(failure(await agent.call('drop', { item: 'lantern' })).message).toBe('you are not carrying "lantern"; you carry: none');
    await agent.call('go', { direction: 'north' });
    await agent.call('take', { item: 'red apple' });
    expect(failure(await agent.call('take', { item: 'red apple' })).message).toBe('you already carry the red apple');
    expect(output(await agent.call('drop', { item: 'apple' }))).toEqual({
      item: { id: 'red_apple', name: 'red apple' },
      room: { id: 'meadow', name: 'Meadow' },
    });
    expect(failure(await agent.call('take', { item: 'apple' })).message).toBe(
      '"apple" could mean red apple (red_apple), green apple (green_apple); name one by its id',
    );
  });

  it('say speaks 1–280 characters, to the room or one person in it', async () => {
    const { agent } = await setup();
    expect(output(await agent.call('say', { text: 'Good morning!' }))).toEqual({ text: 'Good morning!', room: { id: 'mill', name: 'The Mill' } });
    expect(output(await agent.call('say', { text: 'Bread?', to: 'Mira' }))).toEqual({
      text: 'Bread?',
      room: { id: 'mill', name: 'The Mill' },
      to: { id: 'mira', name: 'Mira' },
    });
    expect(output(await agent.call('say', { text: 'x'.repeat(280) })).text).toHaveLength(280);
    expect((await agent.call('say', { text: '🙂'.repeat(280) })).ok).toBe(true);
    expect(failure(await agent.call('say', { text: 'x'.repeat(281) }))).toMatchObject({
      code: 'invalid_input',
      message: 'say: input.text must NOT have more than 280 characters',
    });
    expect(failure(await agent.call('say', { text: '' }))).toMatchObject({
      code: 'invalid_input',
      message: 'say: input.text must NOT have fewer than 1 characters',
    });
    expect(failure(await agent.call('say', { text: '   ' }))).toMatchObject({ code: 'execution_failed', message: 'say what? the text is empty' });
    expect(failure(await agent.call('say', { text: 'hi', to: 'Bo' }))).toMatchObject({
      code: 'execution_failed',
      message: 'Bo is not here to speak to; here with you: Mira (miller)',
    });
  });

  it('refuses a tool whose capability the session lacks', async () => {
    const { agent, world } = await setup('wren', { sensors: ['sight'], actuators: ['legs'] });
    expect(failure(await agent.call('take', { item: 'lantern' }))).toEqual({
      code: 'tool_unavailable',
      retryable: false,
      message: 'take requires the actuator capability "hands", which this session does not hold',
    });
    expect(failure(await agent.call('say', { text: 'hi' })).message).toMatch(/actuator capability "voice"/);
    expect(failure(await agent.call('compose', { kind: 'description', subject: 'here' })).message).toMatch(/generator capability "quill"/);
    expect(world.item('lantern')!.location).toBe('mill');
  });

  it('holds say to 20 calls a minute: the 21st is refused as retryable until the first leaves the window', async () => {
    const { agent, clock } = await setup();
    for (let i = 1; i <= 20; i++) expect((await agent.call('say', { text: `line ${i}` })).ok).toBe(true);
    const limited = failure(await agent.call('say', { text: 'one more' }));
    expect(limited).toMatchObject({ code: 'tool_unavailable', retryable: true });
    expect(limited.message).toMatch(/^say: at most 20 calls per minute; retry in \d+ ms$/);
    await pass(clock, 59_000);
    expect((await agent.call('say', { text: 'still too soon' })).ok).toBe(false);
    await pass(clock, 1_000);
    expect((await agent.call('say', { text: 'again' })).ok).toBe(true);
  });

  it('answers a session whose character the world lacks with what the game must fix', async () => {
    const { agent } = await setup('ghost');
    expect(failure(await agent.call('look')).message).toBe(
      'you play "ghost", who is not in this text world; the game must add that character to the TextWorld',
    );
  });
});

describe('compose', () => {
  it('describes the room, an item or a character in reach, from the world data', async () => {
    const { agent } = await setup();
    expect(output(await agent.call('compose', { kind: 'description', subject: 'here' }))).toEqual({
      kind: 'description',
      subject: { kind: 'room', id: 'mill', name: 'The Mill' },
      text: 'The Mill. Flour dust hangs in the air. Exits: north (Meadow), west (The Yard). You see: lantern, millstone. Here: Mira (miller).',
    });
    expect(output(await agent.call('compose', { kind: 'description', subject: 'the miller' })).text).toBe(
      'Mira, the miller. Strong arms, floury apron. Carrying: loaf of bread.',
    );
    expect(failure(await agent.call('compose', { kind: 'description', subject: 'Tom' })).message).toBe(
      'there is no "Tom" here to write about; you can write about: here, lantern, millstone, Mira',
    );
    expect(failure(await agent.call('compose', { kind: 'description', subject: 'here', remark: 'hi' })).message).toBe(
      'a remark goes only on a note; leave it out, or use kind "note"',
    );
    expect(failure(await agent.call('compose', { kind: 'poem', subject: 'here' }))).toMatchObject({
      code: 'invalid_input',
      message: 'compose: input.kind must be one of ["description","note"]',
    });
  });

  it("writes a note as a new portable item in the writer's hands, with unique ids", async () => {
    const { agent, world } = await setup();
    const first = output(await agent.call('compose', { kind: 'note', subject: 'lantern', remark: 'Take it to the cellar' }));
    expect(first).toEqual({
      kind: 'note',
      subject: { kind: 'item', id: 'lantern', name: 'lantern' },
      text: 'Note by Wren about the lantern: Lantern. A brass lantern, unlit. It lies in The Mill. Wren adds: "Take it to the cellar."',
      note: { id: 'note', name: 'note about the lantern' },
    });
    expect(world.item('note')).toEqual({ id: 'note', name: 'note about the lantern', description: first['text'], location: 'wren', portable: true });
    expect(output(await agent.call('compose', { kind: 'note', subject: 'Mira' })).note).toEqual({ id: 'note_2', name: 'note about Mira' });
    // Notes are items like any other: named by id or name, read, and handed on.
    expect(output(await agent.call('inspect', { target: 'note' })).id).toBe('note');
    expect(failure(await agent.call('drop', { item: 'note about' })).message).toBe(
      '"note about" could mean note about the lantern (note), note about Mira (note_2); name one by its id',
    );
    expect(output(await agent.call('give', { item: 'the note about Mira', to: 'mira' })).item).toEqual({ id: 'note_2', name: 'note about Mira' });
  });

  it('composes the same words from the same world every time', async () => {
    const texts: unknown[] = [];
    for (let run = 0; run < 2; run++) {
      const { agent } = await setup();
      texts.push(output(await agent.call('compose', { kind: 'note', subject: 'here' })));
    }
    expect(texts[0]).toEqual(texts[1]);
  });
});
