// The Three.js demo page: a meadow whose characters are driven by agents through the capsule —
// scripted agents in the page (`?agent=scripted`, the default), or, for one character, pi through
// the pilot over the page's own origin (`?agent=pi`; the demo server proxies /pi to a gateway and
// adds the key there, so it never reaches this page). The player moves the blue cube with WASD or
// the arrows. `?characters=N` (default 4), `?inspector=0`, `?seed=S`.
//
// The capsule checks the binding's tools with their precompiled validators (threeValidators, from
// aicc-capsule/core's createCapsule): no schema is compiled at run time, so the page runs under
// Content-Security-Policy: script-src 'self'. The inspector opens docked on the right and the meadow
// is drawn in the room beside it (index.html reads the room the inspector publishes); closed, or
// docked left, the stage follows. What goes wrong (pi unreachable, an error) is said on the page.
//
// `window.aiccDemo` is what the browser tests and the benchmark read (see the #6 contract).

import { WebGLRenderer } from 'three';
import { createCapsule } from '../../src/core.js';
import { AgentClient } from '../../src/agent/agentClient.js';
import { connectInProcess } from '../../src/agent/inProcess.js';
import { SeededRandom } from '../../src/adapters/headless/random.js';
import { CapsuleBinding, threeValidators } from '../../src/adapters/three/index.js';
import { mountInspector } from '../../src/inspector/index.js';
import { createMemoryLinkPair } from '../../src/links/memory.js';
import { objectCodec } from '../../src/protocol/objectCodec.js';
import { demoParams, okCalls, pageErrors, pilotOnPage, type AiccDemo } from '../shared/page.js';
import { AREA, buildMeadow, character } from './meadow.js';
import { Wanderer } from './wanderer.js';

/** How fast the player's cube goes, units/s. */
const PLAYER_SPEED = 5;
/** The narrowest stage (width / height) the meadow's camera shows whole at its own field of view. */
const WIDE_ASPECT = 1.5;

const { errors, report } = pageErrors();
void start().catch(report);

async function start(): Promise<void> {
  const { agent: requested, ids, seed, inspector: showInspector } = demoParams({ characters: 4, seed: 'meadow' });
  // Lending a character (to MCP clients or the gateway's model) is the Phaser demo's; here it plays as scripted.
  const agentKind = requested === 'mcp' || requested === 'model' ? 'scripted' : requested;
  const random = new SeededRandom(seed);
  document.getElementById('who')!.textContent = agentKind === 'pi' ? `pi drives ${ids[0]}, scripts the rest` : 'scripted';

  const host = document.getElementById('stage')!;
  const renderer = new WebGLRenderer({ antialias: false });
  renderer.setPixelRatio(1);
  renderer.setSize(host.clientWidth, host.clientHeight);
  host.appendChild(renderer.domElement);
  const meadow = buildMeadow(host.clientWidth / host.clientHeight);
  // The stage is the room the inspector leaves (index.html): the meadow is drawn in it, whole — on a
  // stage narrower than WIDE_ASPECT the camera widens its view so the fence still fits across.
  const baseFov = meadow.camera.fov;
  const fit = (): void => {
    const [width, height] = [host.clientWidth, host.clientHeight];
    if (width === 0 || height === 0) return;
    renderer.setSize(width, height);
    const aspect = width / height;
    meadow.camera.aspect = aspect;
    meadow.camera.fov = aspect >= WIDE_ASPECT ? baseFov : (2 * Math.atan(Math.tan((baseFov * Math.PI) / 360) * (WIDE_ASPECT / aspect)) * 180) / Math.PI;
    meadow.camera.updateProjectionMatrix();
  };
  fit();
  new ResizeObserver(fit).observe(host);

  const capsule = createCapsule({ world: { name: 'The Meadow', kind: '3d' }, tickMode: 'fixed', tickRateHz: 10, validators: threeValidators() });
  const calls = okCalls(capsule, errors);

  const binding = new CapsuleBinding(capsule, meadow.scene, { eyeHeight: 0.8, tools: { overrides: { move_to: { area: AREA, speed: 3 } } } });
  binding.add('player', meadow.player, { kind: 'player' });
  for (const thing of meadow.things) binding.add(thing.id, thing.object, { kind: thing.kind });

  // Characters on a ring around the middle, each facing outward.
  const count = ids.length;
  ids.forEach((id, i) => {
    const body = character(id, i / count);
    const angle = (i / count) * Math.PI * 2;
    const ring = 6 + (i % 3) * 3;
    body.position.set(Math.sin(angle) * ring, 0, Math.cos(angle) * ring);
    body.rotation.y = angle;
    meadow.scene.add(body);
    binding.add(id, body, { kind: 'villager' });
  });

  const keys = new Set<string>();
  window.addEventListener('keydown', (event) => keys.add(event.key.toLowerCase()));
  window.addEventListener('keyup', (event) => keys.delete(event.key.toLowerCase()));
  binding.connect({
    renderer,
    onFrame: (dtMs) => {
      movePlayer(meadow.player.position, keys, dtMs);
      renderer.render(meadow.scene, meadow.camera);
    },
  });

  if (showInspector) mountInspector(capsule, { parent: document.body, dock: 'right' });

  const demo: AiccDemo = {
    ready: false,
    agent: agentKind,
    capsule,
    characters: () =>
      ids.map((id) => {
        const position = binding.objects.get(id)?.object.position;
        // The ground plane is x–z: the contract's y is the scene's z.
        return { id, x: position?.x ?? Number.NaN, y: position?.z ?? Number.NaN };
      }),
    calls,
    errors,
    frameStats: () => binding.frameStats(),
  };
  Object.assign(window, { aiccDemo: demo });

  const capabilities = { sensors: ['proprioception', 'proximity', 'sight'], actuators: ['legs'], generators: [] };
  await Promise.all(
    ids.map(async (id, i) => {
      const piDriven = agentKind === 'pi' && i === 0;
      if (piDriven) {
        // pi thinks in wall time: its agent keeps wall time, and is sent news less often.
        const [gameSide, agentSide] = createMemoryLinkPair();
        const connecting = AgentClient.connect(agentSide, { codec: objectCodec });
        capsule.connect(gameSide, { character: id, capabilities, codec: objectCodec, agentModel: { class: 'cloud_large' } });
        await pilotFor(await connecting, id);
        return;
      }
      // A scripted agent in the page takes the capsule's messages as they are, a delivery at a time
      // (connectInProcess), and decides in microseconds.
      new Wanderer(await connectInProcess(capsule, { character: id, capabilities, agentModel: { class: 'edge_small' } }), random.fork(id), AREA);
    }),
  );
  demo.ready = true;
}

/** pi drives this character: pi-peers over a WebSocket to this page's own origin at /pi. */
async function pilotFor(client: AgentClient, id: string): Promise<void> {
  await pilotOnPage(client, id, {
    page: { id: 'aicc-three-demo', label: 'The Meadow (Three.js demo)' },
    description: 'A villager in a fenced meadow with crates, rocks, other villagers and a blue cube the player moves.',
    goal: 'Explore the meadow: look around, walk over to what you see, and keep clear of the fence.',
  });
}

function movePlayer(position: { x: number; z: number }, keys: ReadonlySet<string>, dtMs: number): void {
  const step = (PLAYER_SPEED * dtMs) / 1000;
  const held = (...names: string[]): boolean => names.some((name) => keys.has(name));
  if (held('w', 'arrowup')) position.z -= step;
  if (held('s', 'arrowdown')) position.z += step;
  if (held('a', 'arrowleft')) position.x -= step;
  if (held('d', 'arrowright')) position.x += step;
  position.x = Math.min(AREA.maxX, Math.max(AREA.minX, position.x));
  position.z = Math.min(AREA.maxZ, Math.max(AREA.minZ, position.z));
}
