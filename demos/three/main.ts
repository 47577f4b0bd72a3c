// The Three.js demo page: a meadow whose characters are driven by agents through the capsule —
// scripted agents in the page (`?agent=scripted`, the default), or, for one character, pi through
// the pilot over the page's own origin (`?agent=pi`; the demo server proxies /pi to a gateway and
// adds the key there, so it never reaches this page). The player moves the blue cube with WASD or
// the arrows. `?characters=N` (default 4), `?inspector=0`, `?seed=S`.
//
// `window.aiccDemo` is what the browser tests and the benchmark read (see the #6 contract).

import { WebGLRenderer } from 'three';
import { createCapsule } from '../../src/index.js';
import { AgentClient } from '../../src/agent/agentClient.js';
import { Pilot } from '../../src/agent/pilot/pilot.js';
import { PeersBackend } from '../../src/agent/pilot/peersBackend.js';
import { SeededRandom } from '../../src/adapters/headless/random.js';
import { CapsuleBinding, type FrameStats } from '../../src/adapters/three/index.js';
import { mountInspector } from '../../src/inspector/index.js';
import { createMemoryLinkPair } from '../../src/links/memory.js';
import { objectCodec } from '../../src/links/objectCodec.js';
import { connectWebSocket } from '../../src/links/websocket.js';
import { PeersClient } from '../../src/pi/peersClient.js';
import type { Capsule } from '../../src/runtime/capsule.js';
import { AREA, buildMeadow, character } from './meadow.js';
import { Wanderer } from './wanderer.js';

interface AiccDemo {
  ready: boolean;
  agent: 'scripted' | 'pi';
  capsule: Capsule;
  characters(): Array<{ id: string; x: number; y: number }>;
  calls(): number;
  errors: string[];
  frameStats(): FrameStats;
}

/** The most characters a page will make, whatever the URL asks (the benchmark uses 50). */
const MAX_CHARACTERS = 100;
const NAMES = ['ada', 'bram', 'cleo', 'dov', 'edda', 'finn', 'greta', 'hugo'];
/** How fast the player's cube goes, units/s. */
const PLAYER_SPEED = 5;

const errors: string[] = [];
window.addEventListener('error', (event) => errors.push(String(event.message)));
window.addEventListener('unhandledrejection', (event) => errors.push(String((event.reason as Error)?.message ?? event.reason)));

void start().catch((error: unknown) => {
  errors.push(String((error as Error)?.message ?? error));
  console.error(error);
});

async function start(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const agentKind: 'scripted' | 'pi' = params.get('agent') === 'pi' ? 'pi' : 'scripted';
  const count = Math.max(1, Math.min(MAX_CHARACTERS, Number.parseInt(params.get('characters') ?? '4', 10) || 4));
  const random = new SeededRandom(params.get('seed') ?? 'meadow');
  document.getElementById('who')!.textContent = agentKind === 'pi' ? `pi drives ${NAMES[0]}, scripts the rest` : 'scripted';

  const host = document.getElementById('stage')!;
  const renderer = new WebGLRenderer({ antialias: false });
  renderer.setPixelRatio(1);
  renderer.setSize(host.clientWidth, host.clientHeight);
  host.appendChild(renderer.domElement);
  const meadow = buildMeadow(host.clientWidth / host.clientHeight);
  const showInspector = params.get('inspector') !== '0';
  const fit = (): void => {
    const [width, height] = [host.clientWidth, host.clientHeight];
    renderer.setSize(width, height);
    meadow.camera.aspect = width / height;
    // The inspector covers the right of the page: draw the meadow left of centre while it is shown.
    if (showInspector) meadow.camera.setViewOffset(width, height, width * 0.16, 0, width, height);
    meadow.camera.updateProjectionMatrix();
  };
  fit();
  window.addEventListener('resize', fit);

  const capsule = createCapsule({ world: { name: 'The Meadow', kind: '3d' }, tickMode: 'fixed', tickRateHz: 10 });
  let callsOk = 0;
  capsule.on('call', (record) => {
    if (record.result.ok) callsOk++;
  });
  capsule.on('error', (error) => errors.push(`capsule: ${error.message}`));

  const binding = new CapsuleBinding(capsule, meadow.scene, { eyeHeight: 0.8, tools: { overrides: { move_to: { area: AREA, speed: 3 } } } });
  binding.add('player', meadow.player, { kind: 'player' });
  for (const thing of meadow.things) binding.add(thing.id, thing.object, { kind: thing.kind });

  // Characters on a ring around the middle, each facing outward.
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = i < NAMES.length ? NAMES[i]! : `villager_${i + 1}`;
    const body = character(id, i / count);
    const angle = (i / count) * Math.PI * 2;
    const ring = 6 + (i % 3) * 3;
    body.position.set(Math.sin(angle) * ring, 0, Math.cos(angle) * ring);
    body.rotation.y = angle;
    meadow.scene.add(body);
    binding.add(id, body, { kind: 'villager' });
    ids.push(id);
  }

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

  if (showInspector) mountInspector(capsule, { parent: document.body });

  const demo: AiccDemo = {
    ready: false,
    agent: agentKind,
    capsule,
    characters: () => ids.map((id) => {
      const position = binding.objects.get(id)?.object.position;
      // The ground plane is x–z: the contract's y is the scene's z.
      return { id, x: position?.x ?? Number.NaN, y: position?.z ?? Number.NaN };
    }),
    calls: () => callsOk,
    errors,
    frameStats: () => binding.frameStats(),
  };
  // Not a `declare global`: each demo page has its own aiccDemo type, and they share one type-check.
  Object.assign(window, { aiccDemo: demo });

  const capabilities = { sensors: ['proprioception', 'proximity', 'sight'], actuators: ['legs'], generators: [] };
  await Promise.all(
    ids.map(async (id, i) => {
      const [gameSide, agentSide] = createMemoryLinkPair();
      const piDriven = agentKind === 'pi' && i === 0;
      // In-page links carry message objects (objectCodec): no JSON on either side.
      const connecting = AgentClient.connect(agentSide, { codec: objectCodec });
      // A scripted agent decides in microseconds; a model takes seconds, and is sent news less often.
      capsule.connect(gameSide, { character: id, capabilities, codec: objectCodec, agentModel: { class: piDriven ? 'cloud_large' : 'edge_small' } });
      const client = await connecting;
      if (piDriven) await pilotFor(client, id);
      else new Wanderer(client, random.fork(id), AREA);
    }),
  );
  demo.ready = true;
}

/** pi drives this character: pi-peers over a WebSocket to this page's own origin at /pi. */
async function pilotFor(client: AgentClient, id: string): Promise<void> {
  const link = await connectWebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/pi`, { protocols: ['pi-peers.v1'] });
  const peers = await PeersClient.connect(link, { from: { id: 'aicc-three-demo', label: 'The Meadow (Three.js demo)', host: location.host } });
  const pilot = new Pilot({
    client,
    backend: new PeersBackend(peers),
    character: {
      id,
      name: id[0]!.toUpperCase() + id.slice(1),
      description: 'A villager in a fenced meadow with crates, rocks, other villagers and a blue cube the player moves.',
      goal: 'Explore the meadow: look around, walk over to what you see, and keep clear of the fence.',
    },
  });
  pilot.start();
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
