import { describe, expect, it } from 'vitest';
import { ok, play, stage } from './fixture.js';

describe('position', () => {
  it('says where the caller stands and faces, and whether it moves', async () => {
    const s = stage();
    s.ada.position.set(1.234, 0, -2);
    s.ada.rotation.y = Math.PI / 2;
    s.binding.update(0);
    const { agent } = await play(s, 'ada');
    const result = await agent.call('position', {});
    expect(result).toMatchObject({ ok: true, output: { position: { x: 1.23, y: 0, z: -2 }, heading: 90, moving: false, turning: false } });
  });

  it('refuses a character the game never registered, saying how to fix it', async () => {
    const s = stage();
    const { agent } = await play(s, 'ghost');
    const result = await agent.call('position', {});
    expect(result).toMatchObject({ ok: false, error: { code: 'execution_failed', message: expect.stringContaining('binding.add("ghost", object)') } });
  });

  it('needs the proprioception capability', async () => {
    const s = stage();
    const { agent } = await play(s, 'ada', { sensors: ['sight'], actuators: [], generators: [] });
    expect(await agent.call('position', {})).toMatchObject({ ok: false, error: { code: 'tool_unavailable', retryable: false } });
  });
});

describe('nearby (bounding volumes)', () => {
  it('lists registered objects within the radius by the gap between outlines, nearest first, with bearings', async () => {
    const s = stage();
    const { agent } = await play(s, 'ada');
    // Unit cubes: ada spans z −0.5..0.5, bo 4.5..5.5 (gap 4); the crate x 3.5..4.5 (gap 3, to the +x side).
    expect(await agent.call('nearby', {})).toMatchObject({
      ok: true,
      output: {
        radius: 5,
        objects: [
          { id: 'crate', kind: 'crate', distance: 3, bearing: 90 },
          { id: 'bo', kind: 'villager', distance: 4, bearing: 0 },
        ],
        more: 0,
      },
    });
    expect(ok(await agent.call('nearby', { radius: 3.5 }))).toEqual({
      radius: 3.5,
      objects: [{ id: 'crate', kind: 'crate', distance: 3, bearing: 90 }],
      more: 0,
    });
    expect(ok(await agent.call('nearby', { kind: 'villager' }))).toMatchObject({ objects: [{ id: 'bo' }] });
  });

  it('caps the answer at maxResults and counts the rest', async () => {
    const s = stage({ binding: { tools: { overrides: { nearby: { maxResults: 1 } } } } });
    const { agent } = await play(s, 'ada');
    expect(ok(await agent.call('nearby', {}))).toMatchObject({ objects: [{ id: 'crate' }], more: 1 });
  });

  it('refuses a radius past the maximum, a wrong type and an unknown field as invalid_input', async () => {
    const s = stage();
    const { agent } = await play(s, 'ada');
    for (const input of [{ radius: 21 }, { radius: 0 }, { radius: 'far' }, { range: 3 }]) {
      expect(await agent.call('nearby', input), JSON.stringify(input)).toMatchObject({ ok: false, error: { code: 'invalid_input', retryable: false } });
    }
  });
});
