import { afterEach, describe, expect, it, vi } from 'vitest';
import { CapsuleError, ToolError } from '../../../src/base/errors.js';
import { TextWorld, type TextWorldSpec, type WorldChange } from '../../../src/adapters/text/index.js';
import { millSpec, millWorld } from './fixture.js';

/** The ToolError message a world change throws, or a failure if it throws none. */
function refusal(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return (error as ToolError).message;
  }
  throw new Error('expected a ToolError');
}

function specError(edit: (spec: TextWorldSpec & { rooms: any[]; items: any[]; characters: any[] }) => void): CapsuleError {
  const spec = millSpec() as TextWorldSpec & { rooms: any[]; items: any[]; characters: any[] };
  edit(spec);
  try {
    new TextWorld(spec);
  } catch (error) {
    expect(error).toBeInstanceOf(CapsuleError);
    expect((error as CapsuleError).code).toBe('AICC_INVALID_OPTION');
    return error as CapsuleError;
  }
  throw new Error('expected a CapsuleError');
}

describe('TextWorld construction', () => {
  it('refuses a bad spec, naming the entry and what to fix', () => {
    expect(specError((s) => (s.rooms[0].exits.east = 'barn')).message).toBe(
      'TextWorld: rooms[0] ("mill"): exit "east" leads to unknown room "barn"; add that room or fix the exit',
    );
    expect(specError((s) => s.items.push({ id: 'mill', name: 'x', description: '', location: 'mill' })).message).toMatch(
      /items\[6\]: id "mill" is already used by a room/,
    );
    expect(specError((s) => s.characters.push({ id: 'tom', name: 'Tom', description: '', room: 'mill' })).message).toMatch(
      /characters\[5\]: id "tom" is already used by a character/,
    );
    expect(specError((s) => (s.items[0].location = 'attic')).message).toMatch(/items\[0\] \("lantern"\): location "attic" is neither a room nor a character/);
    expect(specError((s) => (s.characters[0].room = 'lantern')).message).toMatch(/characters\[0\] \("wren"\): room "lantern" is not a room/);
    expect(specError((s) => (s.rooms[1].id = 'Meadow')).message).toMatch(/rooms\[1\]: id "Meadow" must be lowercase snake_case/);
    expect(specError((s) => (s.rooms[0].exits = { North: 'meadow' })).message).toMatch(/exit direction "North" must be lowercase snake_case/);
    expect(specError((s) => (s.items[1].portable = 'no')).message).toMatch(/portable must be true or false/);
    expect(specError((s) => (s.rooms = [])).message).toMatch(/rooms must be a non-empty array/);
  });

  it('copies the spec: later edits to it do not change the world', () => {
    const spec = millSpec();
    const world = new TextWorld(spec);
    (spec.rooms[0]!.exits as Record<string, string>)['east'] = 'cellar';
    expect(world.room('mill')!.exits).toEqual({ north: 'meadow', west: 'yard' });
  });
});

describe('TextWorld queries', () => {
  const world = millWorld();

  it('looks things up by id, and hands out snapshots', () => {
    expect(world.room('yard')).toEqual({
      id: 'yard',
      name: 'The Yard',
      description: 'A cobbled yard behind the mill.',
      exits: { east: 'mill', down: 'cellar' },
    });
    expect(world.item('millstone')).toMatchObject({ location: 'mill', portable: false });
    expect(world.item('lantern')!.portable).toBe(true);
    expect(world.character('mira')).toEqual({ id: 'mira', name: 'Mira', description: 'Strong arms, floury apron.', room: 'mill', role: 'miller' });
    expect(world.room('attic')).toBeUndefined();
    (world.character('wren') as { room: string }).room = 'cellar';
    expect(world.roomOf('wren').id).toBe('mill');
  });

  it('lists who is where, what lies where and who carries what, in spec order', () => {
    expect(world.charactersIn('mill').map((c) => c.id)).toEqual(['wren', 'mira']);
    expect(world.itemsAt('mill').map((i) => i.id)).toEqual(['lantern', 'millstone']);
    expect(world.itemsAt('mira').map((i) => i.id)).toEqual(['bread']);
    expect(world.neighbours('mill').map((r) => r.id)).toEqual(['meadow', 'yard']);
    expect(world.neighbours('cellar').map((r) => r.id)).toEqual(['yard']);
  });

  it('refuses an unknown id in a query as a programmer error', () => {
    expect(() => world.charactersIn('attic')).toThrow(/TextWorld\.charactersIn: no room "attic"/);
    expect(() => world.itemsAt('attic')).toThrow(/TextWorld\.itemsAt: "attic" is neither a room nor a character/);
    expect(() => world.roomOf('ghost')).toThrow(CapsuleError);
  });

  it('finds items the way agents name them: id, any case, with or without "the", or some of the words', () => {
    for (const ref of ['lantern', 'LANTERN', 'the lantern', ' The Lantern ']) expect(world.findItem(ref, 'mill')?.id).toBe('lantern');
    expect(world.findItem('red_apple', 'meadow')?.id).toBe('red_apple');
    expect(world.findItem('the red apple', 'meadow')?.id).toBe('red_apple');
    expect(world.findItem('bread', ['mill', 'mira'])?.id).toBe('bread');
    expect(world.findItem('lantern', 'meadow')).toBeUndefined();
    expect(refusal(() => world.findItem('apple', 'meadow'))).toBe('"apple" could mean red apple (red_apple), green apple (green_apple); name one by its id');
  });

  it('finds a character by name, id or role', () => {
    expect(world.findCharacter('the miller', 'mill')?.id).toBe('mira');
    expect(world.findCharacter('MIRA', 'mill')?.id).toBe('mira');
    expect(world.findCharacter('tom', 'mill')).toBeUndefined();
  });
});

describe('TextWorld changes', () => {
  it('moves through exits, with short forms, and refuses a missing exit listing those there are', () => {
    const world = millWorld();
    expect(world.move('wren', 'North')).toMatchObject({ direction: 'north', from: { id: 'mill' }, to: { id: 'meadow' } });
    expect(world.move('wren', 's').to.id).toBe('mill');
    expect(refusal(() => world.move('wren', 'east'))).toBe('there is no exit east from the Mill; exits: north, west');
    expect(refusal(() => world.move('bo', 'north'))).toBe('there is no exit north from Cellar; exits: up');
    expect(refusal(() => world.move('ghost', 'north'))).toMatch(/"ghost" is not a character in this world/);
  });

  it('takes from the floor only, and says why not', () => {
    const world = millWorld();
    expect(world.take('wren', 'the lantern')).toMatchObject({ item: { id: 'lantern', location: 'wren' }, from: 'mill', to: 'wren' });
    expect(refusal(() => world.take('wren', 'lantern'))).toBe('you already carry the lantern');
    expect(refusal(() => world.take('wren', 'millstone'))).toBe('the millstone cannot be taken; it stays where it is');
    expect(refusal(() => world.take('wren', 'bread'))).toBe('Mira has the loaf of bread; ask them to give it to you');
    expect(refusal(() => world.take('wren', 'apple'))).toBe('there is no "apple" here to take; on the floor: millstone');
  });

  it('drops what is carried and gives only to someone in the same room', () => {
    const world = millWorld();
    expect(refusal(() => world.drop('wren', 'lantern'))).toBe('you are not carrying "lantern"; you carry: none');
    world.take('wren', 'lantern');
    expect(refusal(() => world.give('wren', 'lantern', 'tom'))).toBe('Tom is not here to give to; here with you: Mira (miller)');
    expect(refusal(() => world.give('wren', 'lantern', 'nobody'))).toBe('there is no one called "nobody" here to give to; here with you: Mira (miller)');
    expect(refusal(() => world.give('wren', 'lantern', 'wren'))).toMatch(/you already have the lantern/);
    expect(world.give('wren', 'lantern', 'the miller')).toMatchObject({ from: 'wren', to: 'mira' });
    expect(world.drop('mira', 'lantern')).toMatchObject({ from: 'mira', to: 'mill' });
    expect(world.item('lantern')!.location).toBe('mill');
  });

  it('says words to the room or to one person here', () => {
    const world = millWorld();
    expect(world.say('wren', '  Hello!  ')).toEqual({ character: 'wren', room: 'mill', text: 'Hello!' });
    expect(world.say('wren', 'Bread?', 'miller')).toEqual({ character: 'wren', room: 'mill', text: 'Bread?', to: 'mira' });
    expect(refusal(() => world.say('wren', '   '))).toBe('say what? the text is empty');
    expect(refusal(() => world.say('wren', 'x'.repeat(281)))).toBe('that is 281 characters; say at most 280 at once');
    expect(refusal(() => world.say('wren', 'hi', 'tom'))).toMatch(/^Tom is not here to speak to/);
  });

  it('adds items with unique ids, and refuses a bad one without using its id', () => {
    const world = millWorld();
    expect(world.uniqueId('note')).toBe('note');
    world.addItem({ id: 'note', name: 'note', description: 'Hi.', location: 'wren' });
    expect(world.uniqueId('note')).toBe('note_2');
    expect(world.itemsAt('wren').map((i) => i.id)).toEqual(['note']);
    expect(() => world.addItem({ id: 'note', name: 'x', description: '', location: 'mill' })).toThrow(
      /TextWorld: addItem: id "note" is already used by an item/,
    );
    expect(() => world.addItem({ id: 'scrap', name: 'x', description: '', location: 'attic' })).toThrow(/location "attic" is neither a room nor a character/);
    expect(world.uniqueId('scrap')).toBe('scrap');
  });

  it('tells listeners every change, in order, until they unsubscribe', () => {
    const world = millWorld();
    const changes: WorldChange[] = [];
    const off = world.on((change) => changes.push(change));
    world.move('wren', 'west');
    world.move('wren', 'east');
    world.take('wren', 'lantern');
    world.drop('wren', 'lantern');
    world.give('mira', 'bread', 'wren');
    world.say('mira', 'Eat it warm.', 'wren');
    world.addItem({ id: 'flour', name: 'sack of flour', description: 'Heavy.', location: 'mill' });
    expect(() => world.move('wren', 'up')).toThrow(ToolError);
    off();
    world.move('wren', 'north');
    expect(changes).toEqual([
      { kind: 'moved', character: 'wren', from: 'mill', to: 'yard', direction: 'west' },
      { kind: 'moved', character: 'wren', from: 'yard', to: 'mill', direction: 'east' },
      { kind: 'item_moved', item: 'lantern', from: 'mill', to: 'wren', by: 'wren' },
      { kind: 'item_moved', item: 'lantern', from: 'wren', to: 'mill', by: 'wren' },
      { kind: 'item_moved', item: 'bread', from: 'mira', to: 'wren', by: 'mira' },
      { kind: 'said', character: 'mira', room: 'mill', text: 'Eat it warm.', to: 'wren' },
      { kind: 'item_added', item: 'flour', location: 'mill' },
    ]);
  });

  it('tells a change made by a listener after the current change has reached every listener', () => {
    const world = millWorld();
    const first: string[] = [];
    const second: string[] = [];
    // Tom answers anyone who speaks in the meadow by walking off to the mill.
    world.on((change) => {
      first.push(change.kind);
      if (change.kind === 'said' && change.room === 'meadow') world.move('tom', 'south');
    });
    world.on((change) => second.push(change.kind));
    world.move('wren', 'north');
    world.say('wren', 'Morning, Tom.');
    expect(first).toEqual(['moved', 'said', 'moved']);
    expect(second).toEqual(['moved', 'said', 'moved']);
    expect(world.roomOf('tom').id).toBe('mill');
  });

  it('counts what is said in characters, not UTF-16 units, like the say tool schema', () => {
    const world = millWorld();
    expect(world.say('wren', '🙂'.repeat(280)).text).toHaveLength(560);
    expect(refusal(() => world.say('wren', '🙂'.repeat(281)))).toMatch(/^that is 281 characters/);
  });

  describe('a throwing listener', () => {
    afterEach(() => vi.unstubAllGlobals());

    it('does not undo the change or silence the others; its error is rethrown on its own', () => {
      const rethrown: Array<() => void> = [];
      vi.stubGlobal('queueMicrotask', (task: () => void) => rethrown.push(task));
      const world = millWorld();
      const heard: string[] = [];
      world.on(() => {
        throw new Error('listener broke');
      });
      world.on((change) => heard.push(change.kind));
      expect(world.move('wren', 'north').to.id).toBe('meadow');
      expect(heard).toEqual(['moved']);
      expect(rethrown).toHaveLength(1);
      expect(() => rethrown[0]!()).toThrow('listener broke');
    });
  });

  it('is deterministic: the same calls on the same spec give the same world', () => {
    const run = (): unknown => {
      const world = millWorld();
      world.move('wren', 'north');
      world.take('wren', 'red apple');
      world.addItem({ id: world.uniqueId('note'), name: 'note', description: '', location: 'wren' });
      return [world.itemsAt('wren'), world.charactersIn('meadow'), world.uniqueId('note')];
    };
    expect(run()).toEqual(run());
  });
});
