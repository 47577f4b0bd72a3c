// @vitest-environment jsdom
// The Phaser demo's village scene in a headless Phaser game, stepped by hand: its name labels follow
// the villagers of the start they belong to (a restart does not leave the last start's labels
// behind to be moved every frame), and a crowded green draws no labels and small speech bubbles.

import type Phaser from 'phaser';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SeededRandom } from '../../src/adapters/headless/random.js';
import { aiccScenePlugin } from '../../src/adapters/phaser/index.js';
import { HEIGHT, LABELS_UP_TO, villageBubbles, villageScene, WIDTH, type VillageScene } from '../../demos/phaser/village.js';
import { FRAME_MS, loadPhaser } from '../adapters/phaser/harness.js';

let games = 0;
let game: Phaser.Game | undefined;
afterEach(() => {
  game?.destroy(true);
  game?.headlessStep(0, 0);
  game = undefined;
  vi.restoreAllMocks();
});

/** A headless game running the village with `count` villagers; its own loop stopped, stepped by `step`. */
async function village(count: number) {
  const Phaser = await loadPhaser();
  const villagers = Array.from({ length: count }, (_, i) => `v${i}`);
  let starts = 0;
  let time = 0;
  const scene = await new Promise<VillageScene>((resolve) => {
    game = new Phaser.Game({
      type: Phaser.HEADLESS,
      width: WIDTH,
      height: HEIGHT,
      banner: false,
      autoFocus: false,
      audio: { noAudio: true },
      physics: { default: 'arcade', arcade: { gravity: { x: 0, y: 0 } } },
      // Phaser keeps scene plugins in one cache per page, by key: a key of this game's own.
      plugins: { scene: [{ key: `AiccVillagePlugin${++games}`, plugin: aiccScenePlugin({ bubbles: villageBubbles(count) }), mapping: 'aicc' }] },
      scene: villageScene({
        villagers,
        random: new SeededRandom('test'),
        ready: (ready) => {
          starts++;
          resolve(ready);
        },
      }),
    });
  });
  game!.loop.stop();
  const step = (frames = 1): void => {
    for (let i = 0; i < frames; i++) game!.headlessStep((time += FRAME_MS), FRAME_MS);
  };
  const texts = (): Phaser.GameObjects.Text[] => scene.children.list.filter((object): object is Phaser.GameObjects.Text => object.type === 'Text');
  return { Phaser, scene, step, texts, starts: () => starts };
}

describe('the village scene', () => {
  it('labels each villager, and after a restart moves only the new start’s labels', async () => {
    const { Phaser, scene, step, texts, starts } = await village(6);
    expect(texts().map((text) => text.text)).toEqual(['v0', 'v1', 'v2', 'v3', 'v4', 'v5']);
    scene.scene.restart();
    step(2);
    expect(starts()).toBe(2);
    expect(texts()).toHaveLength(6);

    const moved: Phaser.GameObjects.Text[] = [];
    const setPosition = Phaser.GameObjects.Text.prototype.setPosition;
    vi.spyOn(Phaser.GameObjects.Text.prototype, 'setPosition').mockImplementation(function (this: Phaser.GameObjects.Text, ...args) {
      moved.push(this);
      return setPosition.apply(this, args);
    });
    step();
    expect(moved).toHaveLength(6);
    expect(moved.every((text) => text.active && text.scene === scene)).toBe(true);
  });

  it(`draws no name labels over more than ${LABELS_UP_TO} villagers, and speaks in small see-through bubbles`, async () => {
    const { texts } = await village(50);
    expect(texts()).toEqual([]);
    expect(villageBubbles(LABELS_UP_TO)).toEqual({});
    const crowded = villageBubbles(50);
    expect(crowded.text).toMatchObject({ fontSize: '9px', wordWrap: { width: 90 } });
    expect(String(crowded.text?.backgroundColor)).toMatch(/^rgba\(/);
  });
});
