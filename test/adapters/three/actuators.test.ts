import { describe, expect, it } from 'vitest';
import { at, frames, ok, play, stage } from './fixture.js';
import { settle } from '../../helpers.js';

describe('move_to', () => {
  it('walks smoothly across frames at its speed, turning to face the way, and answers on arrival', async () => {
    const s = stage();
    const ada = (await play(s, 'ada')).agent;
    const walk = ada.call('move_to', { x: 0, z: -4 });
    await settle();
    let answered = false;
    void walk.then(() => (answered = true));

    // 2 units/s by default: 0.2 a frame of 100 ms. The turn to face −z (180°) takes 0.5 s at 360°/s.
    await frames(s.binding, 1, 100);
    expect(at(s.ada)).toEqual({ x: 0, z: -0.2 });
    expect(s.ada.rotation.y).toBeCloseTo(Math.PI / 5);
    await frames(s.binding, 9, 100);
    expect(at(s.ada)).toEqual({ x: 0, z: -2 });
    expect(Math.abs(s.ada.rotation.y)).toBeCloseTo(Math.PI);
    expect(ok(await ada.call('position', {}))).toMatchObject({ moving: true, turning: false });
    expect(answered).toBe(false);

    await frames(s.binding, 10, 100);
    expect(await walk).toMatchObject({ ok: true, output: { arrived: true, end: 'done', position: { x: 0, y: 0, z: -4 }, heading: 180 } });
    await frames(s.binding, 5, 100);
    expect(at(s.ada)).toEqual({ x: 0, z: -4 }); // it stays there
  });

  it('keeps its height unless given one, and walks at the speed asked for', async () => {
    const s = stage();
    const ada = (await play(s, 'ada')).agent;
    const walk = ada.call('move_to', { x: 3, z: 0, y: 1, speed: 5 });
    await settle();
    await frames(s.binding, 1, 100);
    expect(s.ada.position.distanceTo({ x: 0, y: 0, z: 0 } as never)).toBeCloseTo(0.5);
    await frames(s.binding, 6, 100);
    expect(ok(await walk)).toMatchObject({ arrived: true, position: { x: 3, y: 1, z: 0 }, heading: 90 });
  });

  it('a newer move replaces the walk under way: the first answers arrived:false, end "replaced"', async () => {
    const s = stage();
    const ada = (await play(s, 'ada')).agent;
    const first = ada.call('move_to', { x: 0, z: -4 });
    await settle();
    await frames(s.binding, 5, 100);
    const second = ada.call('move_to', { x: -1, z: -1 });
    await settle();
    expect(await first).toMatchObject({ ok: true, output: { arrived: false, end: 'replaced', position: { x: 0, z: -1 } } });
    await frames(s.binding, 6, 100);
    expect(ok(await second)).toMatchObject({ arrived: true, end: 'done', position: { x: -1, z: -1 } });
  });

  it('refuses a walk longer than its time budget, saying to walk in legs', async () => {
    const s = stage();
    const ada = (await play(s, 'ada')).agent;
    // 18 s of the 20 s timeout at 2 units/s: at most 36 units.
    expect(await ada.call('move_to', { x: 0, z: 40 })).toMatchObject({
      ok: false,
      error: { code: 'execution_failed', message: 'that point is 40 units away; at 2 units/s one move_to covers at most 36: walk in shorter legs' },
    });
    expect(at(s.ada)).toEqual({ x: 0, z: 0 });
  });

  it('refuses bad input as invalid_input: no z, a speed past the maximum, a point outside the area, an unknown field', async () => {
    const s = stage({ binding: { tools: { overrides: { move_to: { area: { minX: -10, maxX: 10, minZ: -10, maxZ: 10 } } } } } });
    const ada = (await play(s, 'ada')).agent;
    for (const input of [{ x: 1 }, { x: 1, z: 1, speed: 7 }, { x: 11, z: 0 }, { x: 0, z: -10.5 }, { x: 1, z: 1, run: true }, { x: '1', z: 1 }]) {
      expect(await ada.call('move_to', input), JSON.stringify(input)).toMatchObject({ ok: false, error: { code: 'invalid_input', retryable: false } });
    }
  });

  it('tells agents the walkable area in the manifest', async () => {
    const s = stage({ binding: { tools: { overrides: { move_to: { area: { minX: -10, maxX: 10, minZ: -5, maxZ: 5 } } } } } });
    const ada = (await play(s, 'ada')).agent;
    const schema = ada.manifest.tools.find((tool) => tool.id === 'move_to')!.input_schema as { properties: Record<string, object> };
    expect(schema.properties['x']).toMatchObject({ minimum: -10, maximum: 10 });
    expect(schema.properties['z']).toMatchObject({ minimum: -5, maximum: 5 });
  });

  it("ends where it is when the agent's session closes", async () => {
    const s = stage();
    const ada = (await play(s, 'ada')).agent;
    void ada.call('move_to', { x: 0, z: -4 });
    await settle();
    await frames(s.binding, 3, 100);
    s.capsule.sessions()[0]!.close('the agent left');
    await frames(s.binding, 5, 100);
    expect(at(s.ada)).toEqual({ x: 0, z: -0.6 });
    expect(s.binding.motion.active).toBe(0);
  });

  it('needs the legs capability', async () => {
    const s = stage();
    const ada = (await play(s, 'ada', { sensors: ['sight'], actuators: [], generators: [] })).agent;
    expect(await ada.call('move_to', { x: 1, z: 1 })).toMatchObject({ ok: false, error: { code: 'tool_unavailable' } });
  });
});

describe('turn_to', () => {
  it('turns to a heading at its turn speed, the shorter way round', async () => {
    const s = stage();
    s.ada.rotation.y = (170 * Math.PI) / 180;
    const ada = (await play(s, 'ada')).agent;
    const turn = ada.call('turn_to', { heading: -170 });
    await settle();
    // 180°/s: 18° a frame; from 170° to −170° is +20° through 180°, not −340°.
    await frames(s.binding, 1, 100);
    expect((s.ada.rotation.y * 180) / Math.PI).toBeCloseTo(-172);
    await frames(s.binding, 1, 100);
    expect(ok(await turn)).toEqual({ done: true, end: 'done', heading: -170 });
  });

  it('faces an object named by id', async () => {
    const s = stage();
    const ada = (await play(s, 'ada')).agent;
    const turn = ada.call('turn_to', { toward: 'crate' });
    await settle();
    await frames(s.binding, 5, 100);
    expect(ok(await turn)).toEqual({ done: true, end: 'done', heading: 90 });
    expect(ok(await ada.call('look_ahead', {}))).toMatchObject({ hit: { id: 'crate' } });
  });

  it('takes exactly one of heading and toward; an unknown object is refused with its name', async () => {
    const s = stage();
    const ada = (await play(s, 'ada')).agent;
    expect(await ada.call('turn_to', {})).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await ada.call('turn_to', { heading: 90, toward: 'bo' })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await ada.call('turn_to', { heading: 400 })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await ada.call('turn_to', { toward: 'nobody' })).toMatchObject({
      ok: false,
      error: { code: 'execution_failed', message: expect.stringContaining('"nobody"') },
    });
  });
});

describe('stop', () => {
  it('ends the walk where it is; the walk answers end "stopped"; a second stop has nothing to stop', async () => {
    const s = stage();
    const ada = (await play(s, 'ada')).agent;
    const walk = ada.call('move_to', { x: 0, z: -4 });
    await settle();
    await frames(s.binding, 4, 100);
    expect(ok(await ada.call('stop', {}))).toMatchObject({ stopped: true, position: { x: 0, z: -0.8 } });
    expect(ok(await walk)).toMatchObject({ arrived: false, end: 'stopped', position: { x: 0, z: -0.8 } });
    await frames(s.binding, 3, 100);
    expect(at(s.ada)).toEqual({ x: 0, z: -0.8 });
    expect(ok(await ada.call('stop', {}))).toMatchObject({ stopped: false });
  });

  it('the game can stop a character too (binding.stop), and removing it ends its walk as "removed"', async () => {
    const s = stage();
    const ada = (await play(s, 'ada')).agent;
    const walk = ada.call('move_to', { x: 0, z: -4 });
    await settle();
    await frames(s.binding, 2, 100);
    expect(s.binding.stop('ada')).toBe(true);
    expect(ok(await walk)).toMatchObject({ end: 'stopped' });
    const again = ada.call('move_to', { x: 0, z: -4 });
    await settle();
    expect(s.binding.remove('ada')).toBe(true);
    expect(ok(await again)).toMatchObject({ arrived: false, end: 'removed' });
  });
});
