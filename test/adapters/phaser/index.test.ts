// The Phaser adapter's two entries, as a game imports them: aicc-capsule/phaser (the plugin, its tool
// set, its validators) and aicc-capsule/phaser/tools (each factory, and the perception the tools
// use). Each exports a deliberate list; a name added or lost shows here first.

import { describe, expect, it } from 'vitest';
import * as phaser from '../../../src/adapters/phaser/index.js';
import * as phaserTools from '../../../src/adapters/phaser/toolsEntry.js';

describe('aicc-capsule/phaser', () => {
  it('exports the plugin, its tool set and its validators, and nothing else', () => {
    // Bubbles, EntityRegistry and Walks: the classes of plugin.bubbles, plugin.entities and plugin.walks.
    expect(Object.keys(phaser).sort()).toEqual([
      'AiccScenePlugin',
      'Bubbles',
      'EntityRegistry',
      'PHASER_TOOL_NAMES',
      'Walks',
      'aiccScenePlugin',
      'phaserTools',
      'phaserValidators',
    ]);
  });

  it('/tools exports each tool factory with its limits, and the perception helpers', () => {
    expect(Object.keys(phaserTools).sort()).toEqual([
      'MAX_LINE_LENGTH',
      'MAX_NEARBY',
      'MAX_SPEED',
      'audience',
      'canSeeTool',
      'lineOfSight',
      'moveByTool',
      'moveToTool',
      'nearby',
      'nearbyTool',
      'playAnimationTool',
      'positionTool',
      'sayTool',
      'segmentEntersBox',
      'spawnTool',
      'stopTool',
    ]);
  });
});
