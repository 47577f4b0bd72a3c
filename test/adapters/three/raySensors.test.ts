import { describe, expect, it } from 'vitest';
import { cube, ok, play, stage } from './fixture.js';

describe('look_ahead (raycasting)', () => {
  it('reports the first thing along the heading: a registered object by id, or scenery by name', async () => {
    const s = stage();
    const ada = (await play(s, 'ada')).agent;
    // From ada's eyes (0, 0.5, 0) along +z, the ray enters bo's cube at z = 4.5; ada's own cube is left out.
    expect(await ada.call('look_ahead', {})).toMatchObject({
      ok: true,
      output: { range: 20, clear: false, hit: { id: 'bo', kind: 'villager', name: 'Bo', distance: 4.5, point: { x: 0, y: 0.5, z: 4.5 } } },
    });
    expect(ok(await ada.call('look_ahead', { range: 4 }))).toEqual({ range: 4, clear: true });
    const bo = (await play(s, 'bo')).agent;
    expect(ok(await bo.call('look_ahead', {}))).toMatchObject({ clear: false, hit: { kind: 'scenery', name: 'wall', distance: 2.5 } });
    expect(ok(await bo.call('look_ahead', {}))).not.toHaveProperty('hit.id');
  });

  it('ignores hidden meshes and non-mesh objects', async () => {
    const s = stage();
    s.bo.visible = false;
    const ada = (await play(s, 'ada')).agent;
    expect(ok(await ada.call('look_ahead', {}))).toMatchObject({ hit: { name: 'wall', distance: 7.5 } });
  });

  it('refuses a range past the maximum', async () => {
    const s = stage();
    const ada = (await play(s, 'ada')).agent;
    expect(await ada.call('look_ahead', { range: 51 })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });
});

describe('line_of_sight (raycasting)', () => {
  it('sees an object in the open, with its distance and bearing', async () => {
    const s = stage();
    const ada = (await play(s, 'ada')).agent;
    expect(ok(await ada.call('line_of_sight', { target: 'bo' }))).toEqual({ target: 'bo', visible: true, distance: 5, bearing: 0 });
    expect(ok(await ada.call('line_of_sight', { target: 'crate' }))).toEqual({ target: 'crate', visible: true, distance: 4, bearing: 90 });
  });

  it('names what blocks the view: a registered object or scenery', async () => {
    const s = stage();
    s.crate.position.set(0, 0, 2.5);
    const tom = cube('Tom', 0, 10);
    s.scene.add(tom);
    s.binding.add('tom', tom, { kind: 'villager' });
    s.binding.update(0);
    const ada = (await play(s, 'ada')).agent;
    expect(ok(await ada.call('line_of_sight', { target: 'bo' }))).toMatchObject({ visible: false, blocked_by: { id: 'crate', distance: 2 } });
    const bo = (await play(s, 'bo')).agent;
    expect(ok(await bo.call('line_of_sight', { target: 'tom' }))).toMatchObject({ visible: false, distance: 5, blocked_by: { kind: 'scenery', name: 'wall' } });
  });

  it('says too_far beyond its range', async () => {
    const s = stage({ binding: { tools: { overrides: { line_of_sight: { range: 4.5 } } } } });
    const ada = (await play(s, 'ada')).agent;
    expect(ok(await ada.call('line_of_sight', { target: 'bo' }))).toEqual({ target: 'bo', visible: false, distance: 5, bearing: 0, too_far: true });
  });

  it('refuses an unknown target or the caller itself with a message the agent can act on', async () => {
    const s = stage();
    const ada = (await play(s, 'ada')).agent;
    expect(await ada.call('line_of_sight', { target: 'nobody' })).toMatchObject({
      ok: false,
      error: { code: 'execution_failed', message: 'there is no "nobody" here; use an id that nearby or in_view reported' },
    });
    expect(await ada.call('line_of_sight', { target: 'ada' })).toMatchObject({
      ok: false,
      error: { code: 'execution_failed', message: '"ada" is you; name another object' },
    });
    expect(await ada.call('line_of_sight', {})).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });
});
