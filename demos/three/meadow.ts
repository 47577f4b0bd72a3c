// The Three.js demo's world: a fenced meadow with crates and rocks, the player's blue cube, and the
// characters agents play. Plain lit geometry, no textures or shadows, so software GL (headless
// Chromium's SwiftShader) draws it at once.

import {
  AmbientLight,
  BoxGeometry,
  Color,
  ConeGeometry,
  CylinderGeometry,
  DirectionalLight,
  DodecahedronGeometry,
  Group,
  HemisphereLight,
  Mesh,
  MeshLambertMaterial,
  PerspectiveCamera,
  PlaneGeometry,
  Scene,
} from 'three';
import type { Area } from '../../src/adapters/three/index.js';

/** Where characters may walk: inside the fence. */
export const AREA: Area = { minX: -17, maxX: 17, minZ: -17, maxZ: 17 };

export interface Meadow {
  scene: Scene;
  camera: PerspectiveCamera;
  player: Mesh;
  /** Registered things agents can sense and bump into, by id. */
  things: Array<{ id: string; kind: 'crate' | 'rock'; object: Mesh }>;
}

const CRATES: Array<[number, number]> = [
  [-6, -4],
  [5, 6],
  [9, -9],
  [-11, 9],
  [2, -12],
];
const ROCKS: Array<[number, number]> = [
  [-13, -12],
  [12, 2],
  [-3, 12],
];

export function buildMeadow(aspect: number): Meadow {
  const scene = new Scene();
  scene.background = new Color(0x9fc9ec);
  scene.add(new HemisphereLight(0xddeeff, 0x557733, 1.6), new AmbientLight(0xffffff, 0.35));
  const sun = new DirectionalLight(0xffffff, 1.8);
  sun.position.set(12, 25, 8);
  scene.add(sun);

  const ground = new Mesh(new PlaneGeometry(40, 40), new MeshLambertMaterial({ color: 0x6fa85a }));
  ground.rotation.x = -Math.PI / 2;
  ground.name = 'ground';
  scene.add(ground);

  // The fence is scenery: rays meet it (look_ahead says "fence"), but it is not a registered object.
  const fenceMaterial = new MeshLambertMaterial({ color: 0x8a6a44 });
  for (const [x, z, w, d] of [
    [0, -18, 36, 0.4],
    [0, 18, 36, 0.4],
    [-18, 0, 0.4, 36],
    [18, 0, 0.4, 36],
  ] as const) {
    const rail = new Mesh(new BoxGeometry(w, 1, d).translate(0, 0.5, 0), fenceMaterial);
    rail.position.set(x, 0, z);
    rail.name = 'fence';
    scene.add(rail);
  }

  const things: Meadow['things'] = [];
  const crateMaterial = new MeshLambertMaterial({ color: 0xc48a3a });
  CRATES.forEach(([x, z], i) => {
    const crate = new Mesh(new BoxGeometry(1.4, 1.4, 1.4).translate(0, 0.7, 0), crateMaterial);
    crate.position.set(x, 0, z);
    crate.name = `crate ${i + 1}`;
    scene.add(crate);
    things.push({ id: `crate_${i + 1}`, kind: 'crate', object: crate });
  });
  const rockMaterial = new MeshLambertMaterial({ color: 0x8d8f94 });
  ROCKS.forEach(([x, z], i) => {
    const rock = new Mesh(new DodecahedronGeometry(1.1).translate(0, 0.6, 0), rockMaterial);
    rock.position.set(x, 0, z);
    rock.name = `rock ${i + 1}`;
    scene.add(rock);
    things.push({ id: `rock_${i + 1}`, kind: 'rock', object: rock });
  });

  const player = new Mesh(new BoxGeometry(1, 1, 1).translate(0, 0.5, 0), new MeshLambertMaterial({ color: 0x2f6fff }));
  player.name = 'you';
  player.position.set(0, 0, 3);
  scene.add(player);

  const camera = new PerspectiveCamera(50, aspect, 0.1, 200);
  camera.position.set(0, 34, 30);
  camera.lookAt(0, 0, 0);
  return { scene, camera, player, things };
}

/** A character: a coloured body with a nose that shows where it faces (+z, its heading). */
export function character(name: string, hue: number): Group {
  const body = new Mesh(
    new CylinderGeometry(0.45, 0.45, 1.2, 16).translate(0, 0.6, 0),
    new MeshLambertMaterial({ color: new Color().setHSL(hue, 0.65, 0.55) }),
  );
  const nose = new Mesh(new ConeGeometry(0.18, 0.45, 8).rotateX(Math.PI / 2).translate(0, 0.9, 0.5), new MeshLambertMaterial({ color: 0x222222 }));
  const group = new Group();
  group.name = name;
  group.add(body, nose);
  return group;
}
