import { PerspectiveCamera } from 'three';
import { describe, expect, it } from 'vitest';
import { EVERY_CAPABILITY, cube, ok, play, stage } from './fixture.js';

describe('in_view (frustum)', () => {
  it('lists what lies inside the 90° view cone along the heading, and follows a turn', async () => {
    const s = stage();
    const ada = (await play(s, 'ada')).agent;
    expect(ok(await ada.call('in_view', {}))).toEqual({ objects: [{ id: 'bo', kind: 'villager', distance: 5, bearing: 0 }], more: 0, camera: false });
    s.ada.rotation.y = Math.PI / 2; // now facing +x, toward the crate
    s.binding.update(0);
    expect(ok(await ada.call('in_view', {}))).toMatchObject({ objects: [{ id: 'crate', bearing: 0 }] });
    expect(ok(await ada.call('in_view', { kind: 'villager' }))).toMatchObject({ objects: [] });
  });

  it('stops at the view range', async () => {
    const s = stage({ binding: { tools: { overrides: { in_view: { range: 3 } } } } });
    const ada = (await play(s, 'ada')).agent;
    expect(ok(await ada.call('in_view', {}))).toMatchObject({ objects: [] });
  });

  it("uses a character's own camera when it has one", async () => {
    const s = stage({ connect: false });
    const tom = cube('Tom', -3, 0);
    // Tom's camera looks toward −x, away from everyone: it sees nothing; turned to +x, it sees ada and the crate.
    const camera = new PerspectiveCamera(60, 1, 0.1, 50);
    camera.position.set(0, 0.5, 0);
    camera.lookAt(-10, 0.5, 0);
    tom.add(camera);
    s.scene.add(tom);
    s.binding.add('tom', tom, { kind: 'villager', camera });
    s.binding.connect();
    s.binding.update(0);
    const agent = (await play(s, 'tom', EVERY_CAPABILITY)).agent;
    expect(ok(await agent.call('in_view', {}))).toEqual({ objects: [], more: 0, camera: true });
    camera.lookAt(10, 0.5, 0);
    expect(ok(await agent.call('in_view', {}))).toMatchObject({ objects: [{ id: 'ada' }, { id: 'crate' }], camera: true });
  });
});
