import { describe, expect, it } from 'vitest';
import { CapsuleError } from '../../../src/base/errors.js';
import { bindTextWorld } from '../../../src/adapters/text/index.js';
import { THUD_VOLUME, VOICES_VOLUME } from '../../../src/adapters/text/worldEvents.js';
import { makeCapsule } from '../../helpers.js';
import { flush, millWorld, play, type Player } from './fixture.js';

const CAST = ['wren', 'mira', 'tom', 'ada', 'bo'] as const;
type Name = (typeof CAST)[number];

/** A bound world with an agent for every character; `heard()` takes what each received since. */
async function setup() {
  const { capsule, clock } = makeCapsule({ world: { name: 'The Mill', kind: 'text' } });
  const world = millWorld();
  const binding = bindTextWorld(capsule, world);
  const players = {} as Record<Name, Player>;
  for (const name of CAST) players[name] = await play(capsule, clock, name);
  const heard = async (): Promise<Record<Name, unknown[]>> => {
    await flush(clock);
    const out = {} as Record<Name, unknown[]>;
    for (const name of CAST) out[name] = players[name].events.splice(0);
    return out;
  };
  await heard();
  return { capsule, clock, world, binding, players, heard, wren: players.wren.agent, mira: players.mira.agent };
}

const nothing = { wren: [], mira: [], tom: [], ada: [], bo: [] };

describe('bindTextWorld: who perceives what', () => {
  it('speech: words to the room (not the speaker), voices to the rooms next door, nothing further', async () => {
    const { wren, heard } = await setup();
    expect((await wren.call('say', { text: 'Good morning!' })).ok).toBe(true);
    const voices = { topic: 'audio', payload: { source: 'wren', sound: 'voices', volume: VOICES_VOLUME, room: 'mill' } };
    expect(await heard()).toEqual({
      ...nothing,
      mira: [{ topic: 'agent_message', payload: { from: 'wren', text: 'Good morning!' } }],
      tom: [voices],
      ada: [voices],
    });
  });

  it('speech to one person is still overheard by everyone in the room', async () => {
    const { players, wren, heard } = await setup();
    await players.ada.agent.call('go', { direction: 'east' });
    await heard();
    await wren.call('say', { text: 'Bread, please.', to: 'the miller' });
    const words = { topic: 'agent_message', payload: { from: 'wren', text: 'Bread, please.', to: 'mira' } };
    const voices = { topic: 'audio', payload: { source: 'wren', sound: 'voices', volume: VOICES_VOLUME, room: 'mill' } };
    expect(await heard()).toEqual({ ...nothing, mira: [words], ada: [words], tom: [voices] });
  });

  it('a move is seen in the room left and the room entered, by the mover too', async () => {
    const { wren, heard } = await setup();
    await wren.call('go', { direction: 'west' });
    const moved = { topic: 'state_change', payload: { entity: 'wren', field: 'room', value: 'yard', previous: 'mill' } };
    expect(await heard()).toEqual({ ...nothing, wren: [moved], mira: [moved], ada: [moved] });
    await wren.call('go', { direction: 'down' });
    const down = { topic: 'state_change', payload: { entity: 'wren', field: 'room', value: 'cellar', previous: 'yard' } };
    expect(await heard()).toEqual({ ...nothing, wren: [down], ada: [down], bo: [down] });
  });

  it('taking and giving are seen in the room; a drop also thuds for the others there', async () => {
    const { wren, mira, heard } = await setup();
    await wren.call('take', { item: 'lantern' });
    const taken = { topic: 'state_change', payload: { entity: 'lantern', field: 'location', value: 'wren', previous: 'mill' } };
    expect(await heard()).toEqual({ ...nothing, wren: [taken], mira: [taken] });

    await wren.call('drop', { item: 'lantern' });
    const dropped = { topic: 'state_change', payload: { entity: 'lantern', field: 'location', value: 'mill', previous: 'wren' } };
    const thud = { topic: 'audio', payload: { source: 'lantern', sound: 'thud', volume: THUD_VOLUME, room: 'mill', by: 'wren' } };
    expect(await heard()).toEqual({ ...nothing, wren: [dropped], mira: [dropped, thud] });

    await mira.call('give', { item: 'bread', to: 'wren' });
    const given = { topic: 'state_change', payload: { entity: 'bread', field: 'location', value: 'wren', previous: 'mira' } };
    expect(await heard()).toEqual({ ...nothing, wren: [given], mira: [given] });
  });

  it('a composed note appears in the room where it was written', async () => {
    const { wren, heard } = await setup();
    await wren.call('compose', { kind: 'note', subject: 'here' });
    const added = { topic: 'state_change', payload: { entity: 'note', field: 'location', value: 'wren' } };
    expect(await heard()).toEqual({ ...nothing, wren: [added], mira: [added] });
  });

  it('forwards changes the game makes itself, such as an NPC it moves', async () => {
    const { world, heard } = await setup();
    world.move('tom', 'south');
    world.say('tom', 'The sheep are out!');
    const moved = { topic: 'state_change', payload: { entity: 'tom', field: 'room', value: 'mill', previous: 'meadow' } };
    const words = { topic: 'agent_message', payload: { from: 'tom', text: 'The sheep are out!' } };
    const voices = { topic: 'audio', payload: { source: 'tom', sound: 'voices', volume: VOICES_VOLUME, room: 'mill' } };
    expect(await heard()).toEqual({ ...nothing, tom: [moved], wren: [moved, words], mira: [moved, words], ada: [voices] });
  });

  it('a refused action changes nothing and tells no one', async () => {
    const { wren, heard } = await setup();
    expect((await wren.call('go', { direction: 'east' })).ok).toBe(false);
    expect((await wren.call('take', { item: 'millstone' })).ok).toBe(false);
    expect(await heard()).toEqual(nothing);
  });
});

describe('bindTextWorld: registration and dispose', () => {
  it('returns a handle per tool, and dispose removes them and stops forwarding', async () => {
    const { binding, world, wren, heard } = await setup();
    expect(binding.handles.map((h) => h.id)).toEqual(['look', 'inspect', 'who', 'go', 'take', 'drop', 'give', 'say', 'compose']);
    binding.dispose();
    binding.dispose();
    expect((await wren.requestManifest()).tools).toEqual([]);
    expect(await wren.call('look')).toMatchObject({ ok: false, error: { code: 'tool_unknown' } });
    world.move('mira', 'north');
    expect(await heard()).toEqual(nothing);
  });

  it('registers only the tools asked for, with their overrides', () => {
    const { capsule } = makeCapsule();
    const binding = bindTextWorld(capsule, millWorld(), { only: ['look', 'say'], overrides: { look: { id: 'text_look' } } });
    expect(binding.handles.map((h) => h.id)).toEqual(['text_look', 'say']);
  });

  it('on an id clash throws and leaves none of its tools behind', () => {
    const { capsule } = makeCapsule();
    capsule.registerTool({
      id: 'say',
      class: 'actuator',
      description: 'The game’s own say.',
      input_schema: { type: 'object' },
      output_schema: { type: 'object' },
      handler: () => ({}),
    });
    let thrown: unknown;
    try {
      bindTextWorld(capsule, millWorld());
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(CapsuleError);
    expect((thrown as CapsuleError).code).toBe('AICC_DUPLICATE_TOOL');
    // Had look…give stayed registered, this would clash on look.
    expect(bindTextWorld(capsule, millWorld(), { overrides: { say: { id: 'speak' } } }).handles).toHaveLength(9);
  });

  it('stops forwarding quietly once the capsule is disposed', async () => {
    const { capsule, world } = await setup();
    capsule.dispose();
    expect(() => world.move('wren', 'north')).not.toThrow();
    expect(() => world.move('wren', 'south')).not.toThrow();
  });

  it('dispose tolerates a tool the game already removed', async () => {
    const { binding } = await setup();
    binding.handles[0]!.remove();
    expect(() => binding.dispose()).not.toThrow();
  });
});
