// A small Three scene for the adapter tests — no renderer, no WebGL: three's math, scene graph and
// raycaster run as they are. Everything stands on the ground plane (y = 0 at the feet, unit cubes
// centred at y = 0.5):
//
//   z
//   ▲        wall (x −2..2, z 7.5..8.5, 2 high; scenery, not registered)
//   │
//   │   bo (0, 5)                    crate (4, 0)
//   │
//   └── ada (0, 0), facing +z ───────────────────────▶ x

import { BoxGeometry, Mesh, MeshBasicMaterial, Scene, type Object3D } from 'three';
import type { AgentClient, CallOutcome } from '../../../src/agent/agentClient.js';
import type { Capsule } from '../../../src/runtime/capsule.js';
import type { ManualClock } from '../../../src/base/clock.js';
import type { Capabilities, EventMessage, JsonObject } from '../../../src/protocol/messages.js';
import type { CapsuleOptions } from '../../../src/runtime/options.js';
import { CapsuleBinding, type CapsuleBindingOptions } from '../../../src/adapters/three/index.js';
import { connectAgent, makeCapsule, settle } from '../../helpers.js';

export const EVERY_CAPABILITY: Capabilities = { sensors: ['proprioception', 'proximity', 'sight'], actuators: ['legs'], generators: [] };

/** A 1×1×1 cube standing at (x, z), with its origin at its feet so position.y is the ground. */
export function cube(name: string, x: number, z: number): Mesh {
  const geometry = new BoxGeometry(1, 1, 1).translate(0, 0.5, 0);
  const mesh = new Mesh(geometry, new MeshBasicMaterial());
  mesh.name = name;
  mesh.position.set(x, 0, z);
  return mesh;
}

export interface Stage {
  capsule: Capsule;
  clock: ManualClock;
  scene: Scene;
  binding: CapsuleBinding;
  ada: Mesh;
  bo: Mesh;
  crate: Mesh;
  wall: Mesh;
}

/** The scene above, bound to a capsule on a ManualClock (event mode unless told), and connected. */
export function stage(options: { capsule?: Partial<CapsuleOptions>; binding?: CapsuleBindingOptions; connect?: boolean } = {}): Stage {
  const { capsule, clock } = makeCapsule({ world: { name: 'Cubeland', kind: '3d' }, ...options.capsule });
  const scene = new Scene();
  const ada = cube('Ada', 0, 0);
  const bo = cube('Bo', 0, 5);
  const crate = cube('crate', 4, 0);
  const wall = new Mesh(new BoxGeometry(4, 2, 1).translate(0, 1, 0), new MeshBasicMaterial());
  wall.name = 'wall';
  wall.position.set(0, 0, 8);
  scene.add(ada, bo, crate, wall);
  const binding = new CapsuleBinding(capsule, scene, { eyeHeight: 0.5, ...options.binding });
  binding.add('ada', ada, { kind: 'villager' }).add('bo', bo, { kind: 'villager' }).add('crate', crate, { kind: 'crate' });
  if (options.connect !== false) binding.connect();
  binding.update(0);
  return { capsule, clock, scene, binding, ada, bo, crate, wall };
}

export interface Player {
  agent: AgentClient;
  /** World events (ticks left out) in arrival order. */
  events: Array<Pick<EventMessage, 'topic' | 'payload'>>;
}

export async function play(s: Pick<Stage, 'capsule' | 'clock'>, character: string, capabilities: Capabilities = EVERY_CAPABILITY): Promise<Player> {
  // edge_small: events go out every ~12 ms of capsule time, so a frame or two delivers them.
  const { agent } = await connectAgent(s.capsule, s.clock, { character, capabilities, agentModel: { class: 'edge_small' } });
  const events: Player['events'] = [];
  agent.on('event', (event) => {
    if (event.topic !== 'tick') events.push({ topic: event.topic, payload: event.payload });
  });
  return { agent, events };
}

/** Runs `frames` frames of `dtMs` each, letting links deliver after every one. */
export async function frames(binding: CapsuleBinding, count: number, dtMs: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    binding.update(dtMs);
    await settle();
  }
}

/** Ground position of an object, rounded to the centimetre. */
export function at(object: Object3D): { x: number; z: number } {
  return { x: Math.round(object.position.x * 100) / 100, z: Math.round(object.position.z * 100) / 100 };
}

/** The output of a call that must have succeeded; a refusal fails the test with its message. */
export function ok(outcome: CallOutcome): JsonObject {
  if (!outcome.ok) throw new Error(`expected ok, got ${outcome.error.code}: ${outcome.error.message}`);
  return outcome.output;
}
