// docs/THREE.md's example runs as written, in a scene without WebGL: its imports are given it as
// they would be, except three's WebGLRenderer, which here only holds the animation loop, whose
// frames the test runs with made-up timestamps.

import { readFileSync } from 'node:fs';
import * as threeCore from 'three';
import { expect, it } from 'vitest';
import * as aicc from '../../../src/index.js';
import * as core from '../../../src/core.js';
import * as three from '../../../src/adapters/three/index.js';
import { settle } from '../../helpers.js';

const doc = readFileSync(new URL('../../../docs/THREE.md', import.meta.url), 'utf8');

it('the NPC example walks Wren to (4, −2) on the animation loop', async () => {
  const block = doc.match(/## Wire an NPC\n\n```ts[^\n]*\n([\s\S]*?)```/)![1]!;
  expect(block).toContain('binding.connect({ renderer, onFrame: () => renderer.render(scene, camera) })');
  // `import { a, b } from 'm';` → `const { a, b } = modules['m'];`
  const body = block.replace(/^import \{([^}]*)\} from '([^']+)';$/gm, "const {$1} = modules['$2'];");
  expect(body).not.toMatch(/^import /m);

  let loop: ((time: number) => void) | null = null;
  let rendered = 0;
  class WebGLRenderer {
    domElement = {};
    setSize(): void {}
    setAnimationLoop(callback: typeof loop): void {
      loop = callback;
    }
    render(): void {
      rendered++;
    }
  }
  const modules = { three: { ...threeCore, WebGLRenderer }, 'aicc-capsule': aicc, 'aicc-capsule/core': core, 'aicc-capsule/three': three };
  const page = { innerWidth: 800, innerHeight: 600, document: { body: { append: () => {} } } };

  const run = new Function(
    'modules',
    'innerWidth',
    'innerHeight',
    'document',
    `return (async () => {
    ${body}
    return { walk, binding, capsule };
  })();`,
  );
  let outcome: { walk: aicc.CallOutcome; binding: three.CapsuleBinding; capsule: aicc.Capsule } | undefined;
  const running = (run(modules, page.innerWidth, page.innerHeight, page.document) as Promise<typeof outcome>).then((value) => (outcome = value));
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
