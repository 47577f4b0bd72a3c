// @vitest-environment jsdom
// The inspector over a real (headless) Phaser scene that restarts: the plugin makes a new capsule at
// every start and disposes the old one, unless the game gave it one capsule for all its starts.

import { afterEach, describe, expect, it } from 'vitest';
import { mountInspector, type Inspector } from '../../src/inspector/index.js';
import { createCapsule } from '../../src/runtime/capsule.js';
import { ManualClock } from '../../src/base/clock.js';
import { ajvValidators } from '../../src/validators/ajv.js';
import { agentFor, settle, stage, type Stage } from '../adapters/phaser/harness.js';
import { cell, ManualFrames, rows } from './helpers.js';

let inspector: Inspector | undefined;
let current: Stage | undefined;
afterEach(() => {
  inspector?.dispose();
  inspector = undefined;
  current?.destroy();
  current = undefined;
  document.body.replaceChildren();
});

async function open(options: Parameters<typeof stage>[0] = {}): Promise<Stage> {
  current = await stage(options);
  return current;
}

function restart(s: Stage): void {
  s.scene.scene.restart();
  s.step();
}

const sessions = (): string[] => rows(inspector!.element, '[data-aicc-session]').map((row) => `${cell(row, 'character')} ${cell(row, 'state')}`);

describe('the inspector on a Phaser scene that restarts', () => {
  it('mounted on the plugin (this.aicc), it moves to the new capsule of each start, in the same place', async () => {
    const s = await open();
    const frames = new ManualFrames();
    inspector = mountInspector(s.plugin, { schedule: frames.schedule });
    const element = inspector.element;
    const first = s.plugin.capsule;
    expect(inspector.capsule).toBe(first);
    s.plugin.addCharacter('hero', s.scene.add.rectangle(10, 10, 8, 8));
    await agentFor(s.plugin, 'hero');
    frames.flush();
    expect(sessions()).toEqual(['hero open']);

    restart(s);
    await settle();
    expect(first.disposed).toBe(true);
    expect(s.plugin.capsule).not.toBe(first);
    expect(inspector.capsule).toBe(s.plugin.capsule);
    expect([inspector.element, element.isConnected, element.hidden]).toEqual([element, true, false]);
    expect(sessions()).toEqual([]);
    s.plugin.addCharacter('hero', s.scene.add.rectangle(10, 10, 8, 8));
    await agentFor(s.plugin, 'hero');
    frames.flush();
    expect(sessions()).toEqual(['hero open']);
  });

  it('out of view while the scene is stopped, back when it starts again', async () => {
    const s = await open();
    inspector = mountInspector(s.plugin, { schedule: new ManualFrames().schedule });
    s.scene.scene.stop();
    s.step();
    expect([inspector.element.isConnected, inspector.element.hidden, inspector.capsule]).toEqual([true, true, undefined]);
    s.scene.scene.start();
    s.step();
    expect([inspector.element.hidden, inspector.capsule]).toEqual([false, s.plugin.capsule]);
  });

  it('mounted on the scene’s capsule itself, it leaves the page when the restart disposes that capsule', async () => {
    const s = await open();
    inspector = mountInspector(s.plugin.capsule, { schedule: new ManualFrames().schedule });
    restart(s);
    expect(inspector.element.isConnected).toBe(false);
    expect(document.querySelector('[data-aicc-inspector]')).toBeNull();
  });

  it('with one capsule given for all starts, it stays on that capsule and shows the sessions the restart closed', async () => {
    const capsule = createCapsule({ world: { name: 'Shared', kind: '2d' }, clock: new ManualClock(), validators: ajvValidators() });
    const s = await open({ plugin: { capsule } });
    const frames = new ManualFrames();
    inspector = mountInspector(s.plugin, { schedule: frames.schedule });
    s.plugin.addCharacter('hero', s.scene.add.rectangle(10, 10, 8, 8));
    await agentFor(s.plugin, 'hero');
    restart(s);
    await settle();
    frames.flush();
    expect(inspector.capsule).toBe(capsule);
    expect(sessions()).toEqual(['hero closed']);
    capsule.dispose();
  });
});
