// The Phaser demo's world: a green with fences and a pond, apples to forage, villagers the agents
// play and a blue square the player moves with the arrow keys. Drawn from generated shapes (no
// asset files). Everything agents may know of goes through the scene's AICC plugin (`this.aicc`):
// villagers are characters, apples and the player objects, fences and the pond obstacles; eating
// an apple is a Data Manager change (`apples`) the plugin forwards as state_change; `wave` is an
// animation villagers can play. Each villager wears its name, until the green gets crowded (more
// than LABELS_UP_TO villagers): then names would pile up over each other, and speech bubbles turn
// small and see-through (villageBubbles); the inspector still names everyone.

import type Phaser from 'phaser';
import type { AiccScenePlugin, BubbleStyle } from '../../src/adapters/phaser/index.js';
import type { SeededRandom } from '../../src/adapters/headless/random.js';

export const WIDTH = 800;
export const HEIGHT = 600;
/** Villager walking speed, px/s. */
const VILLAGER_SPEED = 90;
const PLAYER_SPEED = 180;
const START_APPLES = 10;
const COLOURS = [0xe4572e, 0xf3a712, 0x8e44ad, 0x29335c, 0xdb2b39, 0x17bebb, 0xff70a6, 0x6a4c93];
/** Up to this many villagers, each wears its name and speaks in full-size bubbles. */
export const LABELS_UP_TO = 12;

/** The plugin's speech bubbles for `villagers` on the green: the plugin's own, or small and see-through in a crowd. */
export function villageBubbles(villagers: number): BubbleStyle {
  if (villagers <= LABELS_UP_TO) return {};
  return {
    text: {
      fontFamily: 'sans-serif',
      fontSize: '9px',
      color: '#1b1b1b',
      backgroundColor: 'rgba(255, 255, 255, 0.7)',
      padding: { x: 2, y: 1 },
      wordWrap: { width: 90 },
    },
    gap: 2,
  };
}

export type VillageScene = Phaser.Scene & { aicc: AiccScenePlugin };

export interface VillageOptions {
  /** Ids of the villagers agents play. */
  villagers: readonly string[];
  random: SeededRandom;
  /** Called at the end of create(): the plugin runs, its capsule is there, the tools are registered. */
  ready(scene: VillageScene): void;
}

/** The scene, as a config object: no Phaser.Scene subclass, so the page needs no Phaser value here. */
export function villageScene(options: VillageOptions): Phaser.Types.Scenes.CreateSceneFromObjectConfig & Phaser.Types.Scenes.SettingsConfig {
  let cursors: Phaser.Types.Input.Keyboard.CursorKeys | undefined;
  let player: Phaser.Physics.Arcade.Sprite | undefined;
  const labels: Array<{ label: Phaser.GameObjects.Text; body: Phaser.GameObjects.Sprite }> = [];
  return {
    key: 'village',
    create(this: Phaser.Scene) {
      const scene = this as VillageScene;
      // A restart made new villagers and labels: the last start's are gone with its game objects.
      labels.length = 0;
      const aicc = scene.aicc;
      const random = options.random.fork('village');
      makeTextures(scene);
      scene.add.rectangle(WIDTH / 2, HEIGHT / 2, WIDTH, HEIGHT, 0x7cb66a);
      for (let i = 0; i < 40; i++) scene.add.circle(random.next() * WIDTH, random.next() * HEIGHT, 6 + random.next() * 14, 0x6aa35a, 0.8);

      // Obstacles: they stop walkers (colliders) and block sight (registered as obstacles).
      const walls = scene.physics.add.staticGroup();
      const fence = (x: number, y: number, w: number, h: number, kind: string, texture: string): void => {
        const wall = walls.create(x, y, texture) as Phaser.Physics.Arcade.Image;
        wall.setDisplaySize(w, h).refreshBody();
        aicc.addObstacle(wall, { kind });
      };
      fence(250, 170, 220, 14, 'fence', 'fence');
      fence(560, 430, 14, 200, 'fence', 'fence');
      fence(600, 150, 120, 80, 'pond', 'pond');
      fence(200, 450, 100, 60, 'pond', 'pond');

      // Apples: what `spawn` makes, and what foragers look for.
      const apples = scene.physics.add.staticGroup();
      aicc.addTemplate('apple', (_scene, x, y) => apples.create(x, y, 'apple') as Phaser.Physics.Arcade.Image, {
        description: 'a red apple someone can eat by walking onto it',
      });

      player = scene.physics.add.sprite(WIDTH / 2, HEIGHT / 2, 'player');
      player.setCollideWorldBounds(true);
      aicc.addObject('player', player, { kind: 'player' });

      const villagers = scene.physics.add.group();
      options.villagers.forEach((id, i) => {
        const at = freeSpot(random);
        const body = villagers.create(at.x, at.y, `villager${i % COLOURS.length}`) as Phaser.Physics.Arcade.Sprite;
        body.setCollideWorldBounds(true);
        body.setData('apples', 0);
        // An animation (play_animation) leaves its last frame on the sprite: back to its own colours.
        const own = body.texture.key;
        body.on('animationcomplete', () => body.setTexture(own));
        aicc.addCharacter(id, body, { kind: 'villager', speed: VILLAGER_SPEED });
        if (options.villagers.length <= LABELS_UP_TO)
          labels.push({ label: scene.add.text(at.x, at.y + 12, id, { fontFamily: 'sans-serif', fontSize: '10px', color: '#10320c' }).setOrigin(0.5, 0), body });
      });

      const eat = (eater: unknown, apple: unknown): void => {
        const who = eater as Phaser.GameObjects.Sprite;
        (apple as Phaser.GameObjects.GameObject).destroy();
        who.setData('apples', ((who.getData('apples') as number | undefined) ?? 0) + 1);
      };
      aicc.collider(villagers, walls);
      aicc.collider(player, walls);
      aicc.overlap(villagers, apples, eat);
      aicc.overlap(player, apples, eat);

      for (let i = 0; i < START_APPLES; i++) {
        const at = freeSpot(random);
        aicc.spawn('apple', at.x, at.y);
      }
      aicc.registerTools();
      cursors = scene.input.keyboard?.createCursorKeys();
      options.ready(scene);
    },
    update() {
      if (player !== undefined && cursors !== undefined) {
        const x = (cursors.left.isDown ? -1 : 0) + (cursors.right.isDown ? 1 : 0);
        const y = (cursors.up.isDown ? -1 : 0) + (cursors.down.isDown ? 1 : 0);
        const norm = x !== 0 && y !== 0 ? Math.SQRT1_2 : 1;
        player.setVelocity(x * PLAYER_SPEED * norm, y * PLAYER_SPEED * norm);
      }
      for (const { label, body } of labels) label.setPosition(body.x, body.y + 12);
    },
  };
}

/** A point on open ground (not on a fence or in a pond), inside the margins. */
export function freeSpot(random: SeededRandom): { x: number; y: number } {
  for (;;) {
    const x = Math.round(40 + random.next() * (WIDTH - 80));
    const y = Math.round(40 + random.next() * (HEIGHT - 80));
    const blocked = [
      [130, 155, 370, 185],
      [545, 320, 575, 540],
      [530, 100, 670, 200],
      [140, 410, 260, 490],
    ].some(([x0, y0, x1, y1]) => x > x0! - 20 && x < x1! + 20 && y > y0! - 20 && y < y1! + 20);
    if (!blocked) return { x, y };
  }
}

function makeTextures(scene: Phaser.Scene): void {
  // A HEADLESS game (a benchmark, a test) has no renderer to draw textures with: sprites then show
  // Phaser's placeholder texture, which is all it needs.
  if (scene.sys.game.renderer == null) return;
  const g = scene.make.graphics({ x: 0, y: 0 }, false);
  const texture = (key: string, w: number, h: number, draw: () => void): void => {
    if (scene.textures.exists(key)) return;
    g.clear();
    draw();
    g.generateTexture(key, w, h);
  };
  COLOURS.forEach((colour, i) =>
    texture(`villager${i}`, 20, 20, () => {
      g.fillStyle(0x000000, 0.25).fillCircle(10, 11, 9);
      g.fillStyle(colour, 1).fillCircle(10, 10, 9);
      g.fillStyle(0xffffff, 1).fillCircle(7, 8, 2).fillCircle(13, 8, 2);
    }),
  );
  texture('player', 20, 20, () => {
    g.fillStyle(0x1f5fd6, 1).fillRect(0, 0, 20, 20);
    g.lineStyle(2, 0xffffff, 1).strokeRect(1, 1, 18, 18);
  });
  texture('apple', 12, 12, () => {
    g.fillStyle(0xc0392b, 1).fillCircle(6, 7, 5);
    g.fillStyle(0x2e7d32, 1).fillRect(6, 0, 2, 3);
  });
  // Two frames of a villager waving its arms, for the 'wave' animation.
  [-1, 1].forEach((arm, i) =>
    texture(`wave${i}`, 20, 20, () => {
      g.fillStyle(0xfff3b0, 1).fillCircle(10, 11, 7);
      g.lineStyle(2, 0xfff3b0, 1)
        .lineBetween(3, 9, 0, 9 + arm * 6)
        .lineBetween(17, 9, 20, 9 + arm * 6);
    }),
  );
  texture('fence', 8, 8, () => g.fillStyle(0x8d6e4a, 1).fillRect(0, 0, 8, 8));
  texture('pond', 8, 8, () => g.fillStyle(0x3d8bd4, 1).fillRect(0, 0, 8, 8));
  g.destroy();
  if (!scene.anims.exists('wave'))
    scene.anims.create({ key: 'wave', frames: [{ key: 'wave0' }, { key: 'wave1' }, { key: 'wave0' }, { key: 'wave1' }], frameRate: 6 });
}
