// The Three adapter's two entries, as a game imports them: aicc-capsule/three (the binding, its
// tool set, its validators) and aicc-capsule/three/tools (each factory, and the geometry the tools
// measure with). Each exports a deliberate list; a name added or lost shows here first.

import { describe, expect, it } from 'vitest';
import * as three from '../../../src/adapters/three/index.js';
import * as threeTools from '../../../src/adapters/three/toolsEntry.js';

describe('aicc-capsule/three', () => {
  it('exports the binding, its tool set and its validators, and nothing else', () => {
    // Motion and ObjectRegistry: the classes of binding.motion and binding.objects.
    expect(Object.keys(three).sort()).toEqual(['CapsuleBinding', 'Motion', 'ObjectRegistry', 'THREE_TOOL_NAMES', 'threeTools', 'threeValidators']);
  });

  it('/tools exports each tool factory and the geometry helpers', () => {
    expect(Object.keys(threeTools).sort()).toEqual([
      'bearing',
      'gap',
      'headingOf',
      'inViewTool',
      'lineOfSightTool',
      'lookAheadTool',
      'measure',
      'moveToTool',
      'nearbyTool',
      'overlaps',
      'positionTool',
      'stopTool',
      'turnToTool',
    ]);
  });
});
