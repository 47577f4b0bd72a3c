// @vitest-environment jsdom
// Data Manager changes as `state_change`: a game object's setData (first set, then changes), the
// scene's own data when asked for, and values that are not plain JSON kept off the wire.

import { afterEach, describe, expect, it } from 'vitest';
import { jsonValue } from '../../../src/adapters/phaser/dataChanges.js';
import type { CapsuleEvents } from '../../../src/runtime/capsule.js';
import { agentFor, collect, makeTexture, play, stage, type Stage } from './harness.js';

let s: Stage;
afterEach(() => s?.destroy());

function emitted(): Array<CapsuleEvents['state_change']> {
  const seen: Array<CapsuleEvents['state_change']> = [];
  s.plugin.capsule.on('state_change', (event) => seen.push(event));
  return seen;
}

describe('Data Manager → state_change', () => {
  it('setData on a registered object: the first set without previous, a change with it; nearby characters hear it', async () => {
    s = await stage();
    const key = makeTexture(s.scene);
    const well = s.scene.add.sprite(100, 100, key);
    s.plugin.addObject('well', well, { kind: 'well' });
    s.plugin.addCharacter('hero', s.scene.add.sprite(120, 100, key));
    const heard = collect(await agentFor(s.plugin, 'hero'), 'state_change');
    const all = emitted();
    well.setData('water', 3);
    well.setData('water', 2);
    well.setData({ owner: 'mira', rope: { length: 4 } });
    await play(s, 2);
    const expected = [
      { entity: 'well', field: 'water', value: 3 },
      { entity: 'well', field: 'water', value: 2, previous: 3 },
      { entity: 'well', field: 'owner', value: 'mira' },
      { entity: 'well', field: 'rope', value: { length: 4 } },
    ];
    expect(all).toEqual(expected);
    // The agent's queue coalesces changes of one field: the latest water level stands.
    expect(heard).toEqual([expected[1], expected[2], expected[3]]);
  });

  it('values that are not plain JSON are counted and not sent', async () => {
    s = await stage();
    const sprite = s.scene.add.sprite(100, 100, makeTexture(s.scene));
    s.plugin.addObject('chest', sprite);
    const all = emitted();
    sprite.setData('self', sprite);
    sprite.setData('nan', Number.NaN);
    sprite.setData('fn', () => 1);
    sprite.setData('ok', [1, 'two', null]);
    expect(all).toEqual([{ entity: 'chest', field: 'ok', value: [1, 'two', null] }]);
    expect(s.plugin.counts().unfitData).toBe(3);
  });

  it('the scene’s own data is forwarded as sceneDataEntity, to every character', async () => {
    s = await stage({ plugin: { sceneDataEntity: 'village', perceptionRadius: 10 } });
    s.plugin.addCharacter('hero', s.scene.add.sprite(700, 500, makeTexture(s.scene)));
    const heard = collect(await agentFor(s.plugin, 'hero'), 'state_change');
    s.scene.data.set('weather', 'rain');
    await play(s, 2);
    expect(heard).toEqual([{ entity: 'village', field: 'weather', value: 'rain' }]);
  });

  it('an object no longer registered is no longer forwarded', async () => {
    s = await stage();
    const sprite = s.scene.add.sprite(100, 100, makeTexture(s.scene));
    s.plugin.addObject('chest', sprite);
    const all = emitted();
    s.plugin.remove('chest');
    sprite.setData('gold', 5);
    expect(all).toEqual([]);
  });
});

describe('jsonValue', () => {
  it('copies plain data within the bounds and refuses the rest', () => {
    expect(jsonValue({ a: [1, { b: true }] })).toEqual({ value: { a: [1, { b: true }] } });
    expect(jsonValue('x'.repeat(1001))).toBeUndefined();
    expect(jsonValue(new Array(65).fill(0))).toBeUndefined();
    expect(jsonValue({ a: { b: { c: { d: { e: 1 } } } } })).toBeUndefined();
    expect(jsonValue(new Map())).toBeUndefined();
    expect(jsonValue(Infinity)).toBeUndefined();
    expect(jsonValue(undefined)).toBeUndefined();
  });
});
