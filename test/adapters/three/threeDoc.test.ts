// docs/THREE.md's example runs as written, in a scene without WebGL: a renderer that only holds the
// animation loop, whose frames the test runs with made-up timestamps.

import { readFileSync } from 'node:fs';
import { BoxGeometry, Mesh, PerspectiveCamera, Scene } from 'three';
import { expect, it } from 'vitest';
import * as aicc from '../../../src/index.js';
import * as three from '../../../src/adapters/three/index.js';
import { settle } from '../../helpers.js';

const doc = readFileSync(new URL('../../../docs/THREE.md', import.meta.url), 'utf8');

it('the NPC example walks Wren to (4, −2) on the animation loop', async () => {
  const block = doc.match(/## Wire an NPC\n\n```ts\n([\s\S]*?)```/)![1]!;
  const body = block.replace(/^import .*$/gm, '');
  expect(body).toContain("binding.connect({ renderer, onFrame: () => renderer.render(scene, camera) })");

  const scene = new Scene();
  const wrenMesh = new Mesh(new BoxGeometry(1, 1, 1));
  const crateMesh = new Mesh(new BoxGeometry(1, 1, 1));
  crateMesh.position.set(-5, 0, 5);
  scene.add(wrenMesh, crateMesh);
  let loop: ((time: number) => void) | null = null;
  let rendered = 0;
  const renderer = { setAnimationLoop: (callback: typeof loop) => void (loop = callback), render: () => void rendered++ };
  const camera = new PerspectiveCamera();

  const run = new Function('aicc', 'three', 'scene', 'wrenMesh', 'crateMesh', 'renderer', 'camera', `return (async () => {
    const { createCapsule, createMemoryLinkPair, AgentClient } = aicc;
    const { CapsuleBinding } = three;
    ${body}
    return { walk, binding, capsule };
  })();`);
  let outcome: { walk: aicc.CallOutcome; binding: three.CapsuleBinding; capsule: aicc.Capsule } | undefined;
  const running = (run(aicc, three, scene, wrenMesh, crateMesh, renderer, camera) as Promise<typeof outcome>).then((value) => (outcome = value));
  // 100 ms frames: 4.47 units at 2 units/s is 23 frames, and a tick or two for the call to start.
  for (let frame = 0; frame < 100 && outcome === undefined; frame++) {
    await settle();
    if (loop !== null) (loop as (time: number) => void)(frame * 100);
  }
  await running;
  expect(outcome!.walk).toMatchObject({ ok: true, output: { arrived: true, end: 'done', position: { x: 4, y: 0, z: -2 } } });
  expect(rendered).toBeGreaterThan(20);
  outcome!.binding.dispose();
  outcome!.capsule.dispose();
});
