// `this.aicc` in every Scene, typed as Phaser types its own scene plugins (`this.physics`,
// `this.input`): the plugin under the mapping the docs install it with, `mapping: 'aicc'`. Types only;
// the entry imports this file so that its declarations ship with it, on Phaser 3.60+ and 4 alike
// (both declare `Phaser.Scene` in a global namespace).

import type { AiccScenePlugin } from './plugin.js';

declare global {
  namespace Phaser {
    interface Scene {
      /** The aicc-capsule Scene plugin, installed with `mapping: 'aicc'` (docs/PHASER.md). */
      aicc: AiccScenePlugin;
    }
  }
}
